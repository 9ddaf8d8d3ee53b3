#!/usr/bin/env bash
# Compares a base commit with the working tree, side by side in one run:
#   ./ratelimit-benchmarks/compare.sh <base commit> [rounds, default 3]          the core API's decision paths
#   ./ratelimit-benchmarks/compare.sh <base commit> [rounds, default 3] --http   the sample apps' limited paths
#
# Builds both (the base in a temporary git worktree), then runs PathComparison alternately on each build, `rounds`
# times, every JVM pinned to CPU 0 and the Redis it starts to CPU 1 (as run.sh; needs redis-server and taskset, and wrk
# with --http), and prints the medians of ratios taken within each JVM: decision paths against plain Lettuce measured
# in the same JVM (about 2 minutes per round), or each sample app's limited path against its unlimited one (about 5
# minutes per round: each JVM starts the four sample apps, warms each (app, path) up twice, then measures two inner
# rounds whose order rotates). The base is measured by this tree's PathComparison, compiled against the base's classes. Run it
# alone on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: compare.sh <base commit> [rounds] [--http]}
rounds=${2:-3}
mode=${3:-}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
modules=ratelimit-benchmarks
if [ "$mode" = "--http" ]; then modules=ratelimit-benchmarks,sample-app,sample-webflux-app; fi
./mvnw -q -B -pl "$modules" -am package -DskipTests
(cd "$work/base" && ./mvnw -q -B -pl "$modules" -am package -DskipTests)
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" -cp "$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
  ratelimit-benchmarks/src/main/java/io/github/ratelimit/benchmarks/PathComparison.java
version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
run() { # classpath, label, round, tree
  if [ "$mode" = "--http" ]; then
    args=(http "$2" "$4/sample-app/target/sample-app-$version.jar" "$4/sample-webflux-app/target/sample-webflux-app-$version.jar" 2)
  else
    args=(measure "$2" 1)
  fi
  taskset -c 0 java -Xmx1g -Dbenchmark.redisServer="$(command -v redis-server)" -Dbenchmark.redisCpu=1 -Dbenchmark.clientCpu=0 \
    -cp "$1" io.github.ratelimit.benchmarks.PathComparison "${args[@]}" | grep -E '^(PATH|HTTP)' | sed "s/round=\([0-9]*\)/round=$3.\1/"
}
for round in $(seq 1 "$rounds"); do
  run "$work/classes:$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
    "base-$(git rev-parse --short "$base")" "$round" "$work/base" | tee -a "$work/lines"
  run "ratelimit-benchmarks/target/classes:ratelimit-benchmarks/target/lib/*" "$(git rev-parse --short HEAD)" "$round" \
    "$PWD" | tee -a "$work/lines"
done
java -cp "ratelimit-benchmarks/target/classes" io.github.ratelimit.benchmarks.PathComparison summarize "$work/lines"
