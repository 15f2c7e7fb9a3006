#!/usr/bin/env bash
# Runs the QueueGate demo: the demo shop on 8081 and the gateway on 8080 in front of it, with an
# embedded Redis (the gateway's demo profile). Needs only a JDK 17+; Ctrl-C stops both.
# It says what it is doing: the build (quiet, minutes the first time), then each server once it
# answers; the line "QueueGate is up" comes when the gateway answers on both its ports.
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

# The servers run in the background so that this script can say when they answer; without job
# control they ignore Ctrl-C, so the script stops them itself.
servers=()
stop_servers() {
    for pid in "${servers[@]+"${servers[@]}"}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${servers[@]+"${servers[@]}"}"; do
        wait "$pid" 2>/dev/null || true
    done
}
trap stop_servers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# True once something answers HTTP on the port of 127.0.0.1 (bash's /dev/tcp: no curl needed).
answers() {
    local status
    status=$( (exec 3<>"/dev/tcp/127.0.0.1/$1" &&
        printf 'GET / HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3 &&
        IFS= read -r -t 5 line <&3 && printf '%s' "$line") 2>/dev/null || true)
    [[ $status == HTTP/* ]]
}

# Waits until every port answers; fails if the server's process ends first (a port taken, a bad
# argument: its own log says why).
await() {
    local pid=$1 port
    shift
    for port in "$@"; do
        until answers "$port"; do
            if ! kill -0 "$pid" 2>/dev/null; then
                return 1
            fi
            sleep 0.5
        done
    done
}

echo "Building QueueGate (the first build downloads dependencies and takes a few minutes)..."
./mvnw -q -B -DskipTests package
echo "Built."

shop_jar=$(ls demo-backend/target/queuegate-demo-backend-*.jar | grep -v original | head -n 1)
gateway_jar=$(ls gateway-app/target/queuegate-gateway-app-*-exec.jar | head -n 1)

if [[ -z "${DEMO_BACKEND_URI:-}" ]]; then
    export DEMO_BACKEND_URI="http://localhost:$shop_port"
    echo "Starting the demo shop on $DEMO_BACKEND_URI..."
    java -jar "$shop_jar" --server.port="$shop_port" &
    shop=$!
    servers+=("$shop")
    if ! await "$shop" "$shop_port"; then
        echo "The demo shop did not start (its log above says why)." >&2
        exit 1
    fi
    echo "The demo shop is up on $DEMO_BACKEND_URI."
else
    echo "Using the shop at $DEMO_BACKEND_URI"
fi

echo "Starting the gateway on http://localhost:$gateway_port, actuator on http://localhost:$management_port..."
java -jar "$gateway_jar" --spring.profiles.active=demo --server.port="$gateway_port" \
    --management.server.port="$management_port" "$@" &
gateway=$!
servers+=("$gateway")
if ! await "$gateway" "$gateway_port" "$management_port"; then
    wait "$gateway" || status=$?
    echo "The gateway did not start (its log above says why)." >&2
    exit "${status:-1}"
fi
cat <<EOF
QueueGate is up (Ctrl-C stops it):
  a product behind the waiting room  http://localhost:$gateway_port/api/products/42
  the demo shop's app                http://localhost:$gateway_port/shop/index.html
  health                             http://localhost:$management_port/actuator/health
  every queue                        http://localhost:$management_port/actuator/queues
  the operator console               http://localhost:$management_port/actuator/queueconsole (operator / demo)
EOF
wait "$gateway"
