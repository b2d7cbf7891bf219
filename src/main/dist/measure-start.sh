#!/usr/bin/env bash
# Start time and memory of the gateway: starts `quarkus-run.jar run` on a site RUNS times and
# reports, per run, the time from the JVM's start to READY=1 (sent after the engine's first pass,
# io.sentinel.runtime.SystemdNotify), the CPU time the JVM had used by then (user + system, all its
# threads: on a shared machine far steadier than the wall time), the RSS then and the RSS SETTLE
# seconds later. Not a test: a measurement, to be quoted with the machine's state
# (docs/deployment.md, "The edge JVM").
#
#   src/main/dist/measure-start.sh [--options FILE] [--java-opts "..."] [--runs N] [--settle S]
#                                  [--site DIR] [--jar JAR] [--logs DIR] [--no-archive]
#
# The gateway runs as the unit runs it, through src/main/jvm/sentinel-java: the options of FILE
# (default src/main/jvm/edge.options), the class-data archive (run 1 of a measurement writes it
# in a fresh data folder, run 2 checks and maps it, the rest map it; --no-archive: none), then
# --java-opts,
# on the machine's broker (SENTINEL_MQTT_URL, default the embedded/local one) and database
# (SENTINEL_DB_URL; unset: the embedded PostgreSQL, whose own processes are not in the RSS), with
# an HTTP port and a site name of its own so that it disturbs no other gateway on the machine.
# --logs keeps each run's gateway log there (gateway-N.log), to see where a start went.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
options="$here/src/main/jvm/edge.options"
java_opts=""
runs=3
settle=5
site="$here"
jar="$here/target/quarkus-app/quarkus-run.jar"
logs=""
cds=on
while [[ $# -gt 0 ]]; do
  case "$1" in
    --options) options="$2"; shift 2 ;;
    --java-opts) java_opts="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --settle) settle="$2"; shift 2 ;;
    --site) site="$2"; shift 2 ;;
    --jar) jar="$2"; shift 2 ;;
    --logs) logs="$2"; mkdir -p "$logs"; shift 2 ;;
    --no-archive) cds=off; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "measure-start: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
[[ -f "$jar" ]] || { echo "measure-start: no $jar: ./mvnw -B -DskipTests package first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "measure-start: needs python3 (the notify socket)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/sentinel-measure.XXXXXX")"
gateway=""
cleanup() { [[ -n "$gateway" ]] && kill "$gateway" 2>/dev/null && wait "$gateway" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cpu_ms() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1000 / t }' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }

echo "options: $( [[ -n "$options" ]] && grep -v '^#' "$options" | tr '\n' ' ')$java_opts"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
printf '%-4s %-12s %-12s %-12s %-12s\n' run ready_ms cpu_ready_ms rss_ready_mb "rss_${settle}s_mb"
for ((i = 1; i <= runs; i++)); do
  sock="$work/notify-$i.sock"
  # The receiver prints the monotonic clock (ms) at which READY=1 arrived, then exits.
  python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1])
print("bound", flush=True)
while b"READY=1" not in s.recv(4096): pass
print(int(time.monotonic() * 1000), flush=True)
' "$sock" > "$work/ready-$i" &
  receiver=$!
  until grep -q bound "$work/ready-$i" 2>/dev/null; do sleep 0.02; done
  start_ms=$(python3 -c 'import time; print(int(time.monotonic() * 1000))')
  # shellcheck disable=SC2086
  NOTIFY_SOCKET="$sock" SENTINEL_HOME="$work/home" SENTINEL_SITE="measure-$$" \
    SENTINEL_MQTT_CLIENT_ID="sentinel-measure-$$" QUARKUS_HTTP_PORT="${QUARKUS_HTTP_PORT:-0}" \
    SENTINEL_EDGE_OPTIONS="${options:-/dev/null}" SENTINEL_JAVA_OPTS="$java_opts" SENTINEL_CDS="$cds" \
    "$here/src/main/jvm/sentinel-java" "$jar" run --site "$site" > "$work/gateway-$i.log" 2>&1 &
  gateway=$!
  for ((t = 0; t < 600; t++)); do
    [[ $(wc -l < "$work/ready-$i") -ge 2 ]] && break
    kill -0 "$gateway" 2>/dev/null || break
    sleep 0.05
  done
  if [[ $(wc -l < "$work/ready-$i") -lt 2 ]]; then
    echo "run $i: no READY=1 within 30 s; the gateway's log:" >&2; cat "$work/gateway-$i.log" >&2
    kill "$receiver" 2>/dev/null; exit 1
  fi
  ready_ms=$(( $(tail -1 "$work/ready-$i") - start_ms ))
  cpu_ready=$(cpu_ms "$gateway")
  rss_ready=$(rss_mb "$gateway")
  sleep "$settle"
  rss_settled=$(rss_mb "$gateway")
  printf '%-4s %-12s %-12s %-12s %-12s\n' "$i" "$ready_ms" "$cpu_ready" "$rss_ready" "$rss_settled"
  kill "$gateway"; wait "$gateway" 2>/dev/null || true; gateway=""
  [[ -n "$logs" ]] && cp "$work/gateway-$i.log" "$logs/gateway-$i.log"
  wait "$receiver" 2>/dev/null || true
done
