#!/usr/bin/env bash
# Runs every benchmark and writes docs/benchmarks.md and docs/benchmarks-throughput.png (about 5 minutes).
# Needs JDK 17; installs redis-benchmark (Debian's redis-tools) and wrk with apt-get when they are missing.
# Environment: BENCHMARK_WARMUP and BENCHMARK_MEASURE (seconds per decision run, default 1 and 3).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
command -v wrk >/dev/null || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y -qq "${missing[@]}"; else sudo apt-get update -qq && sudo apt-get install -y -qq "${missing[@]}"; fi
fi

./mvnw -q -B -pl ratelimit-benchmarks,sample-app -am package -DskipTests

version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
exec java -Xmx1g -Djava.awt.headless=true \
  -Dbenchmark.warmup="${BENCHMARK_WARMUP:-1}" -Dbenchmark.measure="${BENCHMARK_MEASURE:-3}" \
  -cp "ratelimit-benchmarks/target/classes:ratelimit-benchmarks/target/lib/*" \
  io.github.ratelimit.benchmarks.RunBenchmarks docs "sample-app/target/sample-app-${version}.jar"
