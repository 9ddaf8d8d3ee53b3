#!/usr/bin/env bash
# One limit across every instance: starts three instances of the sample on one Redis, sends one client's requests
# round-robin across them and counts what each admitted; then does the same with ratelimit.backend=in-memory, where
# every instance counts on its own. Stops everything it started on exit.
#
#   sample-app/demo.sh                  # Redis on localhost:6379 (the first instance starts an embedded one if none)
#   sample-app/demo.sh --webflux        # the same with sample-webflux-app (Spring WebFlux on Reactor Netty)
#   sample-app/demo.sh --gateway        # three sample-gateway instances in front of one sample-app (the upstream)
#   sample-app/demo.sh --worker         # three sample-worker instances calling a stub partner API at a shared rate
#   REDIS_PORT=6390 sample-app/demo.sh  # another port
#
# Environment: REDIS_PORT (6379), PORTS of the instances ("8081 8082 8083"; with --gateway "8091 8092 8093"),
# REQUESTS (15), START_TIMEOUT seconds per instance (180), LIMIT (5/1m): the limit of policy hello (with --gateway,
# gateway-hello), set on the command line the Spring Boot way. Not the shipped 5/10s: that refills a permit every 2 s,
# which the requests of a busy machine can outlast, and the count would no longer be exact. With --gateway,
# UPSTREAM_PORT (8080): the port of the sample-app every gateway routes to, started first, with its own limits off
# (ratelimit.enabled=false) so that every refusal counted is a gateway's.
#
# With --worker: starts the stub partner API (STUB_PORT, 9090), then WORKERS (3) sample-worker instances on one Redis,
# each starting DEMAND (35) calls a second of a partner that allows 20 a second in all (policy partner: fixed-window
# 20/1s, each call waiting up to 2 s for its permit); once all are up, counts the calls the stub receives in each of
# DURATION (10) whole seconds, and prints them against the limit and what the workers asked for.
set -euo pipefail

cd "$(dirname "$0")/.."
POLICY=hello
UPSTREAM_JAR=""
case "${1:-}" in
	"") SAMPLE=sample-app ;;
	--webflux) SAMPLE=sample-webflux-app ;;
	--worker) SAMPLE=sample-worker ;;
	--gateway)
		SAMPLE=sample-gateway
		POLICY=gateway-hello
		UPSTREAM_JAR=sample-app/target/sample-app-0.1.0-SNAPSHOT.jar
		UPSTREAM_PORT=${UPSTREAM_PORT:-8080}
		;;
	*) echo "usage: $0 [--webflux | --gateway | --worker]" >&2; exit 2 ;;
esac
JAR=$SAMPLE/target/$SAMPLE-0.1.0-SNAPSHOT.jar
REDIS_PORT=${REDIS_PORT:-6379}
read -r -a PORTS <<< "${PORTS:-$([[ -n $UPSTREAM_JAR ]] && echo 8091 8092 8093 || echo 8081 8082 8083)}"
REQUESTS=${REQUESTS:-15}
START_TIMEOUT=${START_TIMEOUT:-180}
LIMIT=${LIMIT:-5/1m}
STUB_PORT=${STUB_PORT:-9090}
WORKERS=${WORKERS:-3}
DEMAND=${DEMAND:-35}
DURATION=${DURATION:-10}
# the partner policy's limit, 20/1s, in sample-worker's application.yml
RATE=20
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

# Waits until the command after the first three arguments succeeds; fails when the process $1 (logging to $2, named
# $3 in messages) exits first, or after START_TIMEOUT seconds.
await_ready() {
	local pid=$1 log=$2 name=$3 deadline=$((SECONDS + START_TIMEOUT))
	shift 3
	until "$@"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$name exited during start-up:" >&2
			tail -n 30 "$log" >&2
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			echo "$name not ready after ${START_TIMEOUT}s:" >&2
			tail -n 30 "$log" >&2
			exit 1
		fi
		sleep 0.5
	done
}

healthy() {
	curl -fs --max-time 2 "http://127.0.0.1:$1/actuator/health" | grep -q '"status":"UP"'
}

await_healthy() {
	await_ready "${PID_OF[$1]}" "$LOGS/$2-$1.log" "instance on port $1" healthy "$1"
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

# With --worker: starts the stub, then $WORKERS workers (the first alone, as it may start the embedded Redis), waits
# until each logged that it started, counts what the stub received in $DURATION whole seconds after that and prints it.
run_worker() {
	local i a g from second calls stats most total=0 max=0 over=0 asked=0 gave_up=0
	local -a started_asked started_gave_up
	KEY_PREFIX="demo-$$-$(date +%s)"
	echo
	echo "== $SAMPLE: $WORKERS instances on one Redis, each asking for $DEMAND calls/s of a partner API that allows" \
		"$RATE calls/s in all"
	echo "   (policy partner: fixed-window $RATE/1s, key global; PartnerClient.call() waits up to 2 s for a permit)"
	java -jar "$JAR" --stub --port="$STUB_PORT" > "$LOGS/stub.log" 2>&1 &
	PID_OF[stub]=$!
	await_log stub "Partner API stub listening"
	echo "   :$STUB_PORT runs the stub partner API (java -jar $JAR --stub --port=$STUB_PORT)"
	for ((i = 1; i <= WORKERS; i++)); do
		java -jar "$JAR" --spring.data.redis.port="$REDIS_PORT" --ratelimit.key-prefix="$KEY_PREFIX" \
			--sample.worker.partner-url="http://127.0.0.1:$STUB_PORT/partner" --sample.worker.demand="$DEMAND" \
			> "$LOGS/worker-$i.log" 2>&1 &
		PID_OF[worker-$i]=$!
		if ((i == 1)); then
			await_log worker-1 "Started SampleWorkerApplication"
			if grep -q 'Started an embedded Redis server' "$LOGS/worker-1.log"; then
				echo "   worker 1 started an embedded Redis server on localhost:$REDIS_PORT"
			fi
		fi
	done
	for ((i = 2; i <= WORKERS; i++)); do
		await_log "worker-$i" "Started SampleWorkerApplication"
	done
	from=$(($(date +%s) + 1))
	echo "   $WORKERS workers are up; counting the stub's calls in the $DURATION seconds from $(printf '%(%T)T' "$from")"
	# the workers' counts from their once-a-second summary lines, read at the same moment of the first second and of
	# the second after the last, so that $DURATION lines of each worker lie between the two readings
	sleep_until "$from" 0.25
	for ((i = 1; i <= WORKERS; i++)); do
		read -r started_asked[i] _ started_gave_up[i] <<< "$(job_counts "$LOGS/worker-$i.log")"
	done
	# a quarter of a second more: calls under way at the last second's end are counted in it
	sleep_until "$((from + DURATION))" 0.25
	for ((i = 1; i <= WORKERS; i++)); do
		read -r a _ g <<< "$(job_counts "$LOGS/worker-$i.log")"
		asked=$((asked + a - started_asked[i]))
		gave_up=$((gave_up + g - started_gave_up[i]))
	done
	stats=$(curl -fs --max-time 5 "http://127.0.0.1:$STUB_PORT/stats")
	printf '   %-9s %s\n' second "calls the stub received"
	for ((second = from; second < from + DURATION; second++)); do
		calls=$(awk -v s="$second" '$1 == s { print $2 }' <<< "$stats")
		calls=${calls:-0}
		printf '   %-9s %5d\n' "$(printf '%(%T)T' "$second")" "$calls"
		total=$((total + calls))
		((calls > max)) && max=$calls
		((calls > RATE)) && over=$((over + 1))
	done
	if ((max <= RATE)); then
		most="never more than $RATE in a second"
	else
		most="$over seconds above $RATE (at most $max: a call admitted at the very end of one second of Redis' clock"
		most+=" reached the stub in the next)"
	fi
	echo "   -> the stub received $total calls in $DURATION s: $(ratio "$total" "$DURATION")/s against a limit of" \
		"$RATE/s ($(ratio "$((100 * total))" "$((RATE * DURATION))")% of it), $most;"
	echo "      the $WORKERS workers asked for $((WORKERS * DEMAND)) calls/s ($WORKERS x $DEMAND," \
		"$(ratio "$((WORKERS * DEMAND))" "$RATE") times the limit; their logs counted $(ratio "$asked" "$DURATION")/s)," \
		"and $gave_up of their calls gave up (no permit within 2 s)"
	stop_all
}

# Waits until the process started as $1 (logging to $LOGS/$1.log) logged $2.
await_log() {
	await_ready "${PID_OF[$1]}" "$LOGS/$1.log" "$1" grep -q "$2" "$LOGS/$1.log"
}

# $1 / $2 with one decimal.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'
}

# Sleeps until the epoch second $1, plus $2 seconds (0 unless given).
sleep_until() {
	local now
	now=$(date +%s.%N)
	sleep "$(awk -v t="$1" -v extra="${2:-0}" -v now="$now" 'BEGIN { d = t + extra - now; print (d > 0) ? d : 0 }')"
}

# The job's counts since it started, from its last summary line in a worker's log: "asked made gave-up".
job_counts() {
	grep -o 'since start: asked [0-9]*, made [0-9]*, gave up [0-9]*' "$1" | tail -n 1 \
		| awk '{ gsub(",", ""); print $4, $6, $9 }' | grep . || echo "0 0 0"
}

if [[ ! -f $JAR || ( -n $UPSTREAM_JAR && ! -f $UPSTREAM_JAR ) ]]; then
	echo "building $JAR${UPSTREAM_JAR:+ and $UPSTREAM_JAR} ..."
	./mvnw -q -pl "$SAMPLE${UPSTREAM_JAR:+,sample-app}" -am package -DskipTests
fi
if [[ $SAMPLE == sample-worker ]]; then
	PORTS=("$STUB_PORT")
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

if [[ $SAMPLE == sample-worker ]]; then
	run_worker
else
	run redis
	run in-memory
fi
