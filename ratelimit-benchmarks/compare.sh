#!/usr/bin/env bash
# Compares a base commit with the working tree, side by side in one run:
#   ./ratelimit-benchmarks/compare.sh <base commit> [rounds, default 3]          the core API's decision paths
#   ./ratelimit-benchmarks/compare.sh <base commit> [rounds, default 8] --http   the sample apps' limited paths
#
# Builds both (the base in a temporary git worktree), then, needing redis-server and taskset (and wrk with --http), with
# every JVM pinned to CPU 0 and Redis to CPU 1 (as run.sh); run it alone on the machine:
# - decision paths: runs PathComparison alternately on each build, `rounds` times, and prints the medians of ratios
#   taken within each JVM, each decision path against plain Lettuce measured in the same JVM (about 2 minutes per
#   round). The base is measured by this tree's PathComparison, compiled against the base's classes.
# - --http: for each sample app variant (servlet, servlet with the policy leased, WebFlux), starts the base's app and
#   this tree's side by side on one Redis, loads each in turn with wrk (one thread, 16 connections, 10 s a run) on the
#   limited path (a limit never reached), first 8 runs each to warm the JIT up (C2 takes about a minute of load on one
#   shared CPU to settle), then `rounds` runs each, their order alternating; prints each run's requests per second and
#   the app's CPU time per request (from /proc), then per variant the medians of this tree over the base, round by
#   round (about 6 minutes per variant at 8 rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: compare.sh <base commit> [rounds] [--http]}
rounds=${2:-3}
if [ "${3:-}" = "--http" ] && [ -z "${2:-}" ]; then rounds=8; fi
mode=${3:-}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
if [ "$mode" = "--http" ]; then
  modules=sample-app,sample-webflux-app
  ./mvnw -q -B -pl "$modules" -am package -DskipTests
  (cd "$work/base" && ./mvnw -q -B -pl "$modules" -am package -DskipTests)
  version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
  head=$(git rev-parse --short HEAD); label="base-$(git rev-parse --short "$base")"
  redis_port=6391
  taskset -c 1 redis-server --port $redis_port --save '' --appendonly no --daemonize yes --pidfile "$work/redis.pid" >/dev/null
  trap 'kill $(cat "$work/redis.pid") 2>/dev/null; git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  start() { # jar, port, extra arguments
    local jar=$1 port=$2; shift 2
    taskset -c 0 java -Xmx512m -jar "$jar" --server.port="$port" --server.address=127.0.0.1 \
      --spring.data.redis.port=$redis_port --sample.embedded-redis=never --ratelimit.policies.hello.limits=1000000000/1s \
      --logging.level.root=WARN "$@" >"$work/app-$port.log" 2>&1 &
    echo $!
  }
  cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
  load() { # pid, port, variant, build, round
    local before after out
    before=$(cpu_ticks "$1")
    out=$(taskset -c 0 wrk -t1 -c16 -d10s "http://127.0.0.1:$2/api/hello")
    after=$(cpu_ticks "$1")
    echo "$out" | awk -v v="$3" -v b="$4" -v r="$5" -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" \
      '/requests in/ { n = $1 } /Requests\/sec/ { rps = $2 }
       END { printf "HTTP %s %s round=%s perSecond=%.0f appCpuMicros=%.1f\n", v, b, r, rps, t * 1e6 / hz / n }'
  }
  variant() { # name, servlet or webflux sample, extra arguments
    local name=$1 app=$2 port_base port_head pid_base pid_head; shift 2
    port_base=$((18000 + RANDOM % 1000)); port_head=$((port_base + 1000))
    pid_base=$(start "$work/base/$app/target/$app-$version.jar" $port_base "$@")
    pid_head=$(start "$app/target/$app-$version.jar" $port_head "$@")
    for port in $port_base $port_head; do
      for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$port/api/unlimited" && break; sleep 1; done
    done
    for w in $(seq 1 8); do
      load "$pid_base" $port_base "$name" "$label" "warm-$w" >/dev/null
      load "$pid_head" $port_head "$name" "$head" "warm-$w" >/dev/null
    done
    for round in $(seq 1 "$rounds"); do
      if [ $((round % 2)) = 1 ]; then
        load "$pid_base" $port_base "$name" "$label" "$round"; load "$pid_head" $port_head "$name" "$head" "$round"
      else
        load "$pid_head" $port_head "$name" "$head" "$round"; load "$pid_base" $port_base "$name" "$label" "$round"
      fi
    done
    kill "$pid_base" "$pid_head"; wait "$pid_base" "$pid_head" 2>/dev/null || true
  }
  redis-cli -p $redis_port ping >/dev/null
  {
    variant servlet sample-app
    variant servlet-leased sample-app --ratelimit.policies.hello.lease.enabled=true --ratelimit.policies.hello.lease.batch=100
    variant webflux sample-webflux-app
  } | tee "$work/lines"
  echo
  echo "| sample app | requests/s, $head vs $label: median [range] | app CPU per request, $head vs $label: median [range] | rounds |"
  echo "|---|---|---|---|"
  awk -v head="$head" '$1 == "HTTP" {
      split($4, r, "="); split($5, p, "="); split($6, c, "=")
      key = $2 SUBSEP r[2]; if ($3 == head) { hp[key] = p[2]; hc[key] = c[2] } else { bp[key] = p[2]; bc[key] = c[2] }
      variants[$2] = 1
    }
    function spread(list, n,   i, j, t, med) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
      med = (n % 2) ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
      return sprintf("%.3fx [%.2f–%.2f]", med, list[1], list[n])
    }
    END {
      for (v in variants) {
        n = 0; delete pr; delete cr
        for (key in hp) { split(key, k, SUBSEP); if (k[1] == v && (key in bp)) { n++; pr[n] = hp[key] / bp[key]; cr[n] = hc[key] / bc[key] } }
        printf "| %s | %s | %s | %d |\n", v, spread(pr, n), spread(cr, n), n
      }
    }' "$work/lines"
  exit 0
fi
modules=ratelimit-benchmarks
./mvnw -q -B -pl "$modules" -am package -DskipTests
(cd "$work/base" && ./mvnw -q -B -pl "$modules" -am package -DskipTests)
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" -cp "$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
  ratelimit-benchmarks/src/main/java/io/github/ratelimit/benchmarks/PathComparison.java
run() { # classpath, label, round
  taskset -c 0 java -Xmx1g -Dbenchmark.redisServer="$(command -v redis-server)" -Dbenchmark.redisCpu=1 -Dbenchmark.clientCpu=0 \
    -cp "$1" io.github.ratelimit.benchmarks.PathComparison measure "$2" 1 | grep '^PATH' | sed "s/round=\([0-9]*\)/round=$3.\1/"
}
for round in $(seq 1 "$rounds"); do
  run "$work/classes:$work/base/ratelimit-benchmarks/target/classes:$work/base/ratelimit-benchmarks/target/lib/*" \
    "base-$(git rev-parse --short "$base")" "$round" | tee -a "$work/lines"
  run "ratelimit-benchmarks/target/classes:ratelimit-benchmarks/target/lib/*" "$(git rev-parse --short HEAD)" "$round" | tee -a "$work/lines"
done
java -cp "ratelimit-benchmarks/target/classes" io.github.ratelimit.benchmarks.PathComparison summarize "$work/lines"
