#!/usr/bin/env bash
# Runs the QueueGate demo: the demo shop on 8081 and the gateway on 8080 in front of it, with an
# embedded Redis (the gateway's demo profile). Needs only a JDK 17+; Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")"

./mvnw -q -B -DskipTests package

shop_jar=$(ls demo-backend/target/queuegate-demo-backend-*.jar | grep -v original | head -n 1)
gateway_jar=$(ls gateway/app/target/queuegate-gateway-app-*-exec.jar | head -n 1)

java -jar "$shop_jar" &
shop=$!
trap 'kill "$shop" 2>/dev/null || true' EXIT INT TERM

echo "Demo shop starting on http://localhost:8081; gateway on http://localhost:8080 (Ctrl-C stops both)"
java -jar "$gateway_jar" --spring.profiles.active=demo "$@"
