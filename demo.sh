#!/usr/bin/env bash
# Runs the QueueGate demo: the demo shop on 8081 and the gateway on 8080 in front of it, with an
# embedded Redis (the gateway's demo profile). Needs only a JDK 17+; Ctrl-C stops both.
#
# Ports taken already? Move them:
#   DEMO_SHOP_PORT=18081 DEMO_GATEWAY_PORT=18080 DEMO_MANAGEMENT_PORT=19090 ./demo.sh
# DEMO_BACKEND_URI points the gateway's demo route at another shop (then no demo shop is started).
# Further arguments go to the gateway, as Spring properties: ./demo.sh --queuegate.products.7.max-active=1
set -euo pipefail
cd "$(dirname "$0")"

shop_port=${DEMO_SHOP_PORT:-8081}
gateway_port=${DEMO_GATEWAY_PORT:-8080}
management_port=${DEMO_MANAGEMENT_PORT:-9090}

./mvnw -q -B -DskipTests package

shop_jar=$(ls demo-backend/target/queuegate-demo-backend-*.jar | grep -v original | head -n 1)
gateway_jar=$(ls gateway-app/target/queuegate-gateway-app-*-exec.jar | head -n 1)

if [[ -z "${DEMO_BACKEND_URI:-}" ]]; then
    export DEMO_BACKEND_URI="http://localhost:$shop_port"
    java -jar "$shop_jar" --server.port="$shop_port" &
    shop=$!
    trap 'kill "$shop" 2>/dev/null || true' EXIT INT TERM
    echo "Demo shop starting on $DEMO_BACKEND_URI"
else
    echo "Using the shop at $DEMO_BACKEND_URI"
fi

echo "Gateway starting on http://localhost:$gateway_port, actuator on http://localhost:$management_port (Ctrl-C stops)"
java -jar "$gateway_jar" --spring.profiles.active=demo --server.port="$gateway_port" \
    --management.server.port="$management_port" "$@"
