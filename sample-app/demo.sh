#!/usr/bin/env bash
# One limit across every instance: starts three instances of the sample on one Redis, sends one client's requests
# round-robin across them and counts what each admitted; then does the same with ratelimit.backend=in-memory, where
# every instance counts on its own. Stops everything it started on exit.
#
#   sample-app/demo.sh                  # Redis on localhost:6379 (the first instance starts an embedded one if none)
#   sample-app/demo.sh --webflux        # the same with sample-webflux-app (Spring WebFlux on Reactor Netty)
#   REDIS_PORT=6390 sample-app/demo.sh  # another port
#
# Environment: REDIS_PORT (6379), PORTS of the instances ("8081 8082 8083"), REQUESTS (15), START_TIMEOUT seconds per instance (180),
# LIMIT (5/1m): policy hello's limit, set on the command line the Spring Boot way. Not the shipped 5/10s: that refills
# a permit every 2 s, which the requests of a busy machine can outlast, and the count would no longer be exact.
set -euo pipefail

cd "$(dirname "$0")/.."
case "${1:-}" in
	"") SAMPLE=sample-app ;;
	--webflux) SAMPLE=sample-webflux-app ;;
	*) echo "usage: $0 [--webflux]" >&2; exit 2 ;;
esac
JAR=$SAMPLE/target/$SAMPLE-0.1.0-SNAPSHOT.jar
REDIS_PORT=${REDIS_PORT:-6379}
read -r -a PORTS <<< "${PORTS:-8081 8082 8083}"
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
	local port=$1 backend=$2 log="$LOGS/$2-$1.log"
	java -jar "$JAR" --server.port="$port" --spring.data.redis.port="$REDIS_PORT" \
		--ratelimit.backend="$backend" --ratelimit.key-prefix="$KEY_PREFIX" \
		--ratelimit.policies.hello.limits="$LIMIT" > "$log" 2>&1 &
	PID_OF[$port]=$!
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
	echo "== $SAMPLE, ratelimit.backend=$backend: ${#PORTS[@]} instances, policy hello limited to $LIMIT per client IP"
	start_instance "${PORTS[0]}" "$backend"
	await_healthy "${PORTS[0]}" "$backend"
	if grep -q 'Started an embedded Redis server' "$LOGS/$backend-${PORTS[0]}.log"; then
		echo "   :${PORTS[0]} started an embedded Redis server on localhost:$REDIS_PORT"
	fi
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

if [[ ! -f $JAR ]]; then
	echo "building $JAR ..."
	./mvnw -q -pl "$SAMPLE" -am package -DskipTests
fi
for port in "${PORTS[@]}"; do
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
