#!/usr/bin/env bash
# Runs every benchmark and writes docs/benchmarks.md and docs/benchmarks-throughput.png (about 30 minutes on 2 CPUs).
#
# Needs JDK 17 and at least 2 CPUs. Installs with apt-get what is missing: redis-server (Debian's Redis 7, which the
# benchmark starts itself on a free port, persistence off; Debian's package may also start its own service on port
# 6379, which the benchmarks never touch), redis-tools (redis-benchmark), wrk, and util-linux (taskset).
#
# Pinning: Redis runs alone on CPU 1 (taskset -c 1); this script's JVM and everything it starts (redis-benchmark, wrk,
# the JVMs of sample-app, sample-webflux-app and sample-gateway, the gateway's upstream and the waiting cell's limiter
# instances in this JVM, and JMH's forks of the in-process decision cells) run on CPU 0 (taskset -c 0).
#
# Environment (defaults in brackets): BENCHMARK_RUNS [3] runs, each measuring every contender side by side;
# BENCHMARK_WARMUP [0.5] and BENCHMARK_MEASURE [1.5] seconds per decision cell (and per JMH warm-up and measured
# iteration, 2 and 3 of them); BENCHMARK_HTTP_SECONDS [3] per wrk run;
# BENCHMARK_WAIT_SECONDS [30] seconds each contender of the waiting cell is measured, per run (after 2 s of warm-up);
# BENCHMARK_ONLY [empty: everything] 'gateway' runs the gateway cell alone (about 3.5 minutes with the defaults) and
# writes its section and targets to ratelimit-benchmarks/target/benchmarks-gateway.md, 'waiting' the waiting cell alone
# (about 7 minutes with the defaults: 4 contenders x 3 runs x 32 s and their start-up) to
# ratelimit-benchmarks/target/benchmarks-waiting.md; either leaves docs/ untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

command="ratelimit-benchmarks/run.sh"
for setting in BENCHMARK_RUNS BENCHMARK_WARMUP BENCHMARK_MEASURE BENCHMARK_HTTP_SECONDS BENCHMARK_WAIT_SECONDS \
  BENCHMARK_ONLY; do
  if [ -n "${!setting:-}" ]; then command="$setting=${!setting} $command"; fi
done
load_before_build=$(cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g')

if [ "$(nproc --all)" -lt 2 ]; then
  echo "The benchmarks pin Redis and the clients to different CPUs: they need at least 2 CPUs." >&2
  exit 1
fi

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
command -v wrk >/dev/null || missing+=(wrk)
command -v taskset >/dev/null || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
fi

./mvnw -q -B -pl ratelimit-benchmarks,sample-app,sample-webflux-app,sample-gateway -am package -DskipTests

version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
exec taskset -c 0 java -Xmx1g -Djava.awt.headless=true \
  -Dbenchmark.redisServer="$(command -v redis-server)" -Dbenchmark.redisCpu=1 -Dbenchmark.clientCpu=0 \
  -Dbenchmark.command="$command" -Dbenchmark.loadBeforeBuild="$load_before_build" \
  -Dbenchmark.runs="${BENCHMARK_RUNS:-3}" -Dbenchmark.warmup="${BENCHMARK_WARMUP:-0.5}" \
  -Dbenchmark.measure="${BENCHMARK_MEASURE:-1.5}" -Dbenchmark.httpSeconds="${BENCHMARK_HTTP_SECONDS:-3}" \
  -Dbenchmark.waitSeconds="${BENCHMARK_WAIT_SECONDS:-30}" -Dbenchmark.only="${BENCHMARK_ONLY:-}" \
  -cp "ratelimit-benchmarks/target/classes:ratelimit-benchmarks/target/lib/*" \
  io.github.ratelimit.benchmarks.RunBenchmarks docs "sample-app/target/sample-app-${version}.jar" \
  "sample-webflux-app/target/sample-webflux-app-${version}.jar" "sample-gateway/target/sample-gateway-${version}.jar"
