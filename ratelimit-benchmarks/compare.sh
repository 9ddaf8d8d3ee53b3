#!/usr/bin/env bash
# Compares the decision paths of a base commit and of the working tree, side by side in one run (about 3 minutes per
# round on 2 CPUs): ./ratelimit-benchmarks/compare.sh <base commit> [rounds, default 3]
#
# Builds both (the base in a temporary git worktree), then runs PathComparison alternately on each build, `rounds`
# times, every JVM pinned to CPU 0 and the Redis it starts to CPU 1 (as run.sh; needs redis-server and taskset), and
# prints the medians, as ratios to plain Lettuce measured in the same JVM. The base is measured by this tree's
# PathComparison, compiled against the base's classes. Run it alone on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: compare.sh <base commit> [rounds]}
rounds=${2:-3}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
./mvnw -q -B -pl ratelimit-benchmarks -am package -DskipTests
(cd "$work/base" && ./mvnw -q -B -pl ratelimit-benchmarks -am package -DskipTests)
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" -cp "$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
  ratelimit-benchmarks/src/main/java/io/github/ratelimit/benchmarks/PathComparison.java
run() {
  taskset -c 0 java -Xmx1g -Dbenchmark.redisServer="$(command -v redis-server)" -Dbenchmark.redisCpu=1 -Dbenchmark.clientCpu=0 \
    -cp "$1" io.github.ratelimit.benchmarks.PathComparison measure "$2" 1 | grep '^PATH' | sed "s/round=1/round=$3/"
}
for round in $(seq 1 "$rounds"); do
  run "$work/classes:$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
    "base-$(git rev-parse --short "$base")" "$round" | tee -a "$work/lines"
  run "ratelimit-benchmarks/target/classes:ratelimit-benchmarks/target/lib/*" "$(git rev-parse --short HEAD)" "$round" \
    | tee -a "$work/lines"
done
java -cp "ratelimit-benchmarks/target/classes" io.github.ratelimit.benchmarks.PathComparison summarize "$work/lines"
