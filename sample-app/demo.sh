#!/usr/bin/env bash
# One limit across every instance: starts three instances of the sample on one Redis, sends one client's requests
# round-robin across them and counts what each admitted; then does the same with ratelimit.backend=in-memory, where
# every instance counts on its own. Stops everything it started on exit.
#
#   sample-app/demo.sh                  # Redis on localhost:6379 (the first instance starts an embedded one if none)
#   sample-app/demo.sh --webflux        # the same with sample-webflux-app (Spring WebFlux on Reactor Netty)
#   sample-app/demo.sh --gateway        # three sample-gateway instances in front of one sample-app (the upstream)
#   REDIS_PORT=6390 sample-app/demo.sh  # another port
#
# Environment: REDIS_PORT (6379), PORTS of the instances ("8081 8082 8083"; with --gateway "8091 8092 8093"),
# REQUESTS (15), START_TIMEOUT seconds per instance (180), LIMIT (5/1m): the limit of policy hello (with --gateway,
# gateway-hello), set on the command line the Spring Boot way. Not the shipped 5/10s: that refills a permit every 2 s,
# which the requests of a busy machine can outlast, and the count would no longer be exact. With --gateway,
# UPSTREAM_PORT (8080): the port of the sample-app every gateway routes to, started first, with its own limits off
# (ratelimit.enabled=false) so that every refusal counted is a gateway's.
set -euo pipefail

cd "$(dirname "$0")/.."
POLICY=hello
UPSTREAM_JAR=""
case "${1:-}" in
	"") SAMPLE=sample-app ;;
	--webflux) SAMPLE=sample-webflux-app ;;
	--gateway)
		SAMPLE=sample-gateway
		POLICY=gateway-hello
		UPSTREAM_JAR=sample-app/target/sample-app-0.1.0-SNAPSHOT.jar
		UPSTREAM_PORT=${UPSTREAM_PORT:-8080}
		;;
	*) echo "usage: $0 [--webflux | --gateway]" >&2; exit 2 ;;
esac
JAR=$SAMPLE/target/$SAMPLE-0.1.0-SNAPSHOT.jar
REDIS_PORT=${REDIS_PORT:-6379}
read -r -a PORTS <<< "${PORTS:-$([[ -n $UPSTREAM_JAR ]] && echo 8091 8092 8093 || echo 8081 8082 8083)}"
REQUESTS=${REQUESTS:-15}
START_TIMEOUT=${START_TIMEOUT:-180}
LIMIT=${LIMIT:-5/1m}
LOGS=""
declare -A PID_OF=()

# Stops every instance (SIGTERM: each stops the embedded Redis it started); after 30 s, kills what is left.
stop_all() {
	local pid child children=()
	for pid in "${PID_OF[@]}"; do
		children+=($(pgrep -P "$pid" || true))
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PID_OF[@]}"; do
		for _ in $(seq 1 60); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	for child in "${children[@]}"; do
		if ps -o comm= -p "$child" 2>/dev/null | grep -q '^redis-server'; then
			kill -9 "$child" 2>/dev/null || true
		fi
	done
	PID_OF=()
}

cleanup() {
	local status=$?
	stop_all
	if [[ -z $LOGS ]]; then
		return
	fi
	if [[ $status -ne 0 ]]; then
		echo "demo failed; instance logs kept in $LOGS" >&2
	else
		rm -rf "$LOGS"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

listening() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start_instance() {
	local port=$1 backend=$2 log="$LOGS/$2-$1.log" upstream=()
	if [[ -n $UPSTREAM_JAR ]]; then
		upstream=(--sample.upstream="http://127.0.0.1:$UPSTREAM_PORT")
	fi
	java -jar "$JAR" --server.port="$port" --spring.data.redis.port="$REDIS_PORT" \
		--ratelimit.backend="$backend" --ratelimit.key-prefix="$KEY_PREFIX" \
		--ratelimit.policies.$POLICY.limits="$LIMIT" "${upstream[@]}" > "$log" 2>&1 &
	PID_OF[$port]=$!
}

# With --gateway: the sample-app every gateway routes to, its own limits off (it would count every client as one, the
# gateways' address). Logs to $LOGS/upstream-<port>.log, as await_healthy expects of "backend" upstream.
start_upstream() {
	java -jar "$UPSTREAM_JAR" --server.port="$UPSTREAM_PORT" --spring.data.redis.port="$REDIS_PORT" \
		--ratelimit.enabled=false > "$LOGS/upstream-$UPSTREAM_PORT.log" 2>&1 &
	PID_OF[$UPSTREAM_PORT]=$!
}

# Says so when the instance on a port (logging to $LOGS/<backend>-<port>.log) started the embedded Redis server.
say_if_embedded_redis() {
	if grep -q 'Started an embedded Redis server' "$LOGS/$2-$1.log"; then
		echo "   :$1 started an embedded Redis server on localhost:$REDIS_PORT"
	fi
}

await_healthy() {
	local port=$1 backend=$2 pid=${PID_OF[$1]} log="$LOGS/$2-$1.log" deadline=$((SECONDS + START_TIMEOUT))
	until curl -fs --max-time 2 "http://127.0.0.1:$port/actuator/health" | grep -q '"status":"UP"'; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "instance on port $port exited during start-up:" >&2
			tail -n 30 "$log" >&2
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			echo "instance on port $port not healthy after ${START_TIMEOUT}s:" >&2
			tail -n 30 "$log" >&2
			exit 1
		fi
		sleep 0.5
	done
}

# Sends $REQUESTS requests to /api/hello, round-robin across the instances, and prints admitted vs denied.
run() {
	local backend=$1 i port status admitted_total=0 denied_total=0
	local -A admitted denied
	KEY_PREFIX="demo-$$-$(date +%s)"
	echo
	echo "== $SAMPLE, ratelimit.backend=$backend: ${#PORTS[@]} instances, policy $POLICY limited to $LIMIT per client IP"
	if [[ -n $UPSTREAM_JAR ]]; then
		start_upstream
		await_healthy "$UPSTREAM_PORT" upstream
		say_if_embedded_redis "$UPSTREAM_PORT" upstream
		echo "   :$UPSTREAM_PORT runs sample-app, the upstream of every gateway (its own limits off)"
	fi
	start_instance "${PORTS[0]}" "$backend"
	await_healthy "${PORTS[0]}" "$backend"
	say_if_embedded_redis "${PORTS[0]}" "$backend"
	for port in "${PORTS[@]:1}"; do
		start_instance "$port" "$backend"
	done
	for port in "${PORTS[@]:1}"; do
		await_healthy "$port" "$backend"
	done
	echo "   ${PORTS[*]/#/:} are up (/actuator/health UP)"
	for port in "${PORTS[@]}"; do
		admitted[$port]=0
		denied[$port]=0
	done
	echo "   $REQUESTS requests from one client to /api/hello, round-robin"
	for ((i = 0; i < REQUESTS; i++)); do
		port=${PORTS[i % ${#PORTS[@]}]}
		status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/api/hello" || true)
		case $status in
			200) admitted[$port]=$((admitted[$port] + 1)) ;;
			429) denied[$port]=$((denied[$port] + 1)) ;;
			*) echo "unexpected status '$status' from port $port" >&2; exit 1 ;;
		esac
	done
	printf '   %-10s %9s %7s\n' instance admitted denied
	for port in "${PORTS[@]}"; do
		printf '   %-10s %9d %7d\n' ":$port" "${admitted[$port]}" "${denied[$port]}"
		admitted_total=$((admitted_total + admitted[$port]))
		denied_total=$((denied_total + denied[$port]))
	done
	printf '   %-10s %9d %7d\n' total "$admitted_total" "$denied_total"
	if [[ $backend == redis ]]; then
		echo "   -> $admitted_total admitted in total: the limit (${LIMIT%%/*}), however many instances answer"
	else
		echo "   -> $admitted_total admitted in total: each instance counted alone, so ${#PORTS[@]} instances let through ${#PORTS[@]} times the limit"
	fi
	stop_all
}

if [[ ! -f $JAR || ( -n $UPSTREAM_JAR && ! -f $UPSTREAM_JAR ) ]]; then
	echo "building $JAR${UPSTREAM_JAR:+ and $UPSTREAM_JAR} ..."
	./mvnw -q -pl "$SAMPLE${UPSTREAM_JAR:+,sample-app}" -am package -DskipTests
fi
for port in "${PORTS[@]}" ${UPSTREAM_JAR:+$UPSTREAM_PORT}; do
	if listening "$port"; then
		echo "port $port is already in use; free it or set PORTS" >&2
		exit 1
	fi
done
if listening "$REDIS_PORT"; then
	echo "Redis: using the server already listening on localhost:$REDIS_PORT"
else
	echo "Redis: nothing listens on localhost:$REDIS_PORT; the first instance starts an embedded Redis server there"
fi
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/ratelimit-demo.XXXXXX")

run redis
run in-memory
