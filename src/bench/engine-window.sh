#!/usr/bin/env bash
# Issue 21's figures in one run (docs/benchmarks.md): Drools 10.2 and Sentinel's engine on the shared
# bench's greenhouse stream at 1,000 and 10,000 rules, Sentinel with 1,000 derived points too, then
# EnginePassBenchmark; one JVM after the other, so that all of them see the same machine.
#
#   src/bench/engine-window.sh [OUT]     # OUT: a folder for the logs (default target/engine-window-<time>)
#
# Drools comes from a private copy of ../shared/bench/drools-core (DROOLS_CORE to point elsewhere),
# built with this project's Maven wrapper from Maven Central. About 12 minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/target/engine-window-$(date -u +%Y%m%dT%H%M%SZ)}"
drools_src="${DROOLS_CORE:-$root/../shared/bench/drools-core}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
jvm=(-Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:+UseSerialGC)
say() { echo "engine-window: $*" >&2; }

cd "$root"
say "building the benchmarks"
./mvnw -B -q -Pbench -Dspotless.apply.skip=true test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$out/classpath.txt" >&2
cp="$root/target/test-classes:$root/target/classes:$(cat "$out/classpath.txt")"
if [[ ! -f "$out/drools-core/target/drools-core-bench.jar" ]]; then
  say "building drools-core from $drools_src"
  rm -rf "$out/drools-core" && cp -r "$drools_src" "$out/drools-core"
  ./mvnw -B -q -f "$out/drools-core/pom.xml" package >&2
fi
drools="$out/drools-core/target/drools-core-bench.jar"

stream=(--batch 100 --warmup 20000000 --transitions 5000000)
run() { # NAME COMMAND...: a run's log, and its result line as JSON
  local name=$1
  shift
  say "$name ($(date -u +%H:%M:%S))"
  "$@" --json "$out/$name.json" > "$out/$name.log" 2>&1 || say "$name failed: $out/$name.log"
}
run drools-1000 java "${jvm[@]}" -jar "$drools" --zones 1000 "${stream[@]}"
run sentinel-1000 java "${jvm[@]}" -cp "$cp" io.sentinel.bench.GreenhouseBench --zones 1000 "${stream[@]}"
run drools-10000 java "${jvm[@]}" -jar "$drools" --zones 10000 "${stream[@]}"
run sentinel-10000 java "${jvm[@]}" -cp "$cp" io.sentinel.bench.GreenhouseBench --zones 10000 "${stream[@]}"
run sentinel-1000-derived java "${jvm[@]}" -cp "$cp" io.sentinel.bench.GreenhouseBench \
  --zones 1000 --derived 1000 "${stream[@]}"
say "EnginePassBenchmark ($(date -u +%H:%M:%S))"
java -cp "$cp" org.openjdk.jmh.Main io.sentinel.bench.EnginePassBenchmark.pass -f 4 -wi 4 -w 1s \
  -i 2 -r 1s -bm sample -tu us -p shape=100-same,100-spread -p derived=0,1000 -prof gc \
  > "$out/engine-pass.log" 2>&1 || say "EnginePassBenchmark failed: $out/engine-pass.log"

field() { # FILE KEY: a number or string from a one-line JSON result
  sed -n "s/.*\"$2\": *\"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null | head -1
}
{
  echo "# Issue 21 in one run: $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD)"
  echo
  echo "$(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(java -version 2>&1 | head -1); ${jvm[*]}"
  echo
  echo "| rules | system | transitions/s | pass p50 µs | p99 µs | bytes/pass | check |"
  echo "|--:|---|--:|--:|--:|--:|---|"
  for name in drools-1000 sentinel-1000 drools-10000 sentinel-10000 sentinel-1000-derived; do
    f="$out/$name.json"
    rules=$(field "$f" zones)
    system=$(field "$f" system)
    [[ $name == *derived ]] && rules="$rules + $(field "$f" derived) derived"
    ok=$(field "$f" ok)
    bytes=$(field "$f" bytes_per_pass)
    echo "| $rules | $system | $(field "$f" transitions_per_s) | $(field "$f" pass_us_p50) |" \
      "$(field "$f" pass_us_p99) | ${bytes:--} | $([[ $ok == true ]] && echo OK || echo FAILED) |"
  done
  echo
  echo "EnginePassBenchmark, µs (aim: p99 under 100 with 1,000 derived points) and bytes per pass:"
  echo
  echo "| derived | shape | p50 | p90 | p99 | bytes/pass |"
  echo "|--:|---|--:|--:|--:|--:|"
  # A percentile's line ends in its score and unit; the allocation's in score ± error and unit.
  awk '$1 ~ /^EnginePassBenchmark.pass:(p0.50|p0.90|p0.99|gc.alloc.rate.norm)$/ {
         split($1, m, ":"); k = $2 " | " $3; keys[k] = 1
         v[k, m[2]] = $(NF - 2) == "±" ? $(NF - 3) : $(NF - 1) }
       END { for (k in keys) printf "| %s | %s | %s | %s | %.0f |\n", k, v[k, "p0.50"], v[k, "p0.90"],
             v[k, "p0.99"], v[k, "gc.alloc.rate.norm"] }' "$out/engine-pass.log" | sort -n
} | tee "$out/summary.md"
