#!/bin/bash
# Main-thread CPU per request of two or more builds, measured side by side on a shared machine:
# every build's `mailagent serve` is up at once, and short wrk bursts (-t2 -c16, GET /v1/me or a
# test-mode send) go to each in turn, round after round, so a neighbour's load spike falls on all
# builds alike (cpu-per-request.sh runs one build per minute-long window, which the load swings
# between). CPU time is the main thread's, in ns, from /proc/PID/task/PID/schedstat (worker threads
# excluded: work moved to a thread shows as a saving); summed per build over the rounds.
#   bench/tools/cpu-per-request-ab.sh <me|send> <seconds per burst> <rounds> <build root> <build root> [...]
# e.g. bench/tools/cpu-per-request-ab.sh me 2 10 ../base .
# CONNS=32 (default 16): wrk's connections, e.g. to see what a send costs per group-commit batch
# (at -c16 the batches hold ~7 sends; bench/README.md, round 2 session 10).
set -e
MODE=$1; SECS=$2; ROUNDS=$3; shift 3
[ "$MODE" = me ] || [ "$MODE" = send ] || { echo "usage: $0 <me|send> <seconds per burst> <rounds> <build root>..." >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mailagent-cprab-XXXX")
PIDS=(); URLS=(); KEYS=(); NAMES=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
for v in $(env | grep ^MAILAGENT_ | cut -d= -f1); do unset "$v"; done
printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' "'{\"to\":\"bob@example.com\",\"subject\":\"Your receipt\",\"body_text\":\"Thanks for your order #1234.\"}'" > "$T/send.lua"
i=0
for spec in "$@"; do
  # <build root>@<node flags, comma-separated>: that build with node started with those flags
  # (e.g. ../base@--min-semi-space-size=2, the main thread's young generation at its start).
  root=${spec%%@*}; FLAGS=(); [ "$spec" != "$root" ] && IFS=, read -ra FLAGS <<< "${spec#*@}"
  R=$(cd "$root" && pwd); H="$T/h$i"; mkdir -p "$H"
  HOME=$H XDG_CONFIG_HOME=$H/config XDG_DATA_HOME=$H/xdg node "${FLAGS[@]}" "$R/bin/mailagent" serve --port 0 --smtp-port 0 --data-dir "$H/data" --log-level silent 2>"$H/err" >/dev/null &
  PIDS+=($!); NAMES+=("$(basename "$R")${FLAGS[*]:+@${FLAGS[*]}}")
  for _ in $(seq 150); do grep -q "ready: API" "$H/err" 2>/dev/null && break; sleep 0.2; done
  URLS+=("$(grep -o "ready: API [^ ]*" "$H/err" | awk '{print $3}')")
  KEYS+=("$(node -e "console.log(JSON.parse(require('fs').readFileSync('$H/config/mailagent/config.json','utf8')).profiles.default.test_key)")")
  i=$((i + 1))
done
cpu() { awk '{print $1}' "/proc/$1/task/$1/schedstat"; }
# Every thread of the process (the queue writer's, V8's GC helpers, libuv's pool): what the request
# costs the machine, which on two cores is what the rate depends on.
allcpu() { cat /proc/$1/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
burst() { # index seconds → "requests cpu_ns all_threads_ns"
  local p=${PIDS[$1]} c0 c1 a0 a1 out
  c0=$(cpu "$p"); a0=$(allcpu "$p")
  if [ "$MODE" = me ]; then out=$(wrk -t2 -c"${CONNS:-16}" -d"$2s" -H "Authorization: Bearer ${KEYS[$1]}" "${URLS[$1]}/v1/me")
  else out=$(wrk -t2 -c"${CONNS:-16}" -d"$2s" -s "$T/send.lua" -H "Authorization: Bearer ${KEYS[$1]}" "${URLS[$1]}/v1/messages"); fi
  c1=$(cpu "$p"); a1=$(allcpu "$p")
  echo "$(echo "$out" | grep -o '[0-9]* requests in' | awk '{print $1}') $((c1 - c0)) $((a1 - a0))"
}
# PRESEND=N: first N seconds of test-mode sends on each daemon, not counted (the state a daemon is in
# after sending: pipeline.bench.ts measures its "warm" GET /v1/me after 10 s of sends).
if [ -n "$PRESEND" ]; then
  for j in "${!PIDS[@]}"; do
    node -e "const D=require('better-sqlite3'); const db=new D(process.argv[1]); db.pragma('busy_timeout = 5000'); db.prepare(\"update workspaces set tier = 'scale', created_at = '2020-01-01T00:00:00.000Z'\").run()" "$T/h$j/data/mailagent.db"
    wrk -t2 -c16 -d"${PRESEND}s" -s "$T/send.lua" -H "Authorization: Bearer ${KEYS[$j]}" "${URLS[$j]}/v1/messages" > /dev/null
  done
fi
for j in "${!PIDS[@]}"; do burst "$j" 3 > /dev/null; done # warm-up, not counted
declare -a REQ CPU ALL
for r in $(seq "$ROUNDS"); do
  line="round $r:"
  for j in "${!PIDS[@]}"; do
    read -r q c a < <(burst "$j" "$SECS")
    REQ[$j]=$(( ${REQ[$j]:-0} + q )); CPU[$j]=$(( ${CPU[$j]:-0} + c )); ALL[$j]=$(( ${ALL[$j]:-0} + a ))
    line="$line ${NAMES[$j]} $((c / q / 1000)) µs"
  done
  echo "$line (load $(cut -d' ' -f1 /proc/loadavg))"
done
for j in "${!PIDS[@]}"; do
  # The main thread's young generation at the end (mailagent_thread_heap_bytes), MB.
  YOUNG=$(curl -s -H "Authorization: Bearer ${KEYS[$j]}" "${URLS[$j]}/metrics" | awk -F'[ ]' '/thread="main",kind="young"/ {printf "%.0f", $2 / 1048576}')
  echo "${NAMES[$j]} $MODE: main new space ${YOUNG:-?} MB, ${REQ[$j]} requests ($(( REQ[$j] / (SECS * ROUNDS) )) req/s), main thread $(( CPU[$j] / REQ[$j] / 1000 )).$(( (CPU[$j] / REQ[$j] % 1000) / 100 )) µs/request, all threads $(( ALL[$j] / REQ[$j] / 1000 )).$(( (ALL[$j] / REQ[$j] % 1000) / 100 )) µs/request"
done
