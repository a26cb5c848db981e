#!/bin/bash
# Main-thread CPU per request of a `mailagent serve` under wrk (-t2 -c16): on a shared machine the
# request rate swings ±30 % with the neighbours' load, CPU time per request far less, so A/B
# comparisons of hot-path changes read better here. The main thread's utime+stime come from
# /proc/PID/task/PID/stat (worker threads excluded: work moved to a thread shows as a saving).
#   bench/tools/cpu-per-request.sh <build root> <me|send> [seconds] [cpu-prof dir]
# e.g. for i in 1 2 3; do bench/tools/cpu-per-request.sh ../base me; bench/tools/cpu-per-request.sh . me; done
set -e
ROOT=$(cd "$1" && pwd); MODE=$2; SECS=${3:-6}; PD=$4
H=$(mktemp -d "${TMPDIR:-/tmp}/mailagent-cpr-XXXX")
trap 'rm -rf "$H"' EXIT
export HOME=$H XDG_CONFIG_HOME=$H/config XDG_DATA_HOME=$H/xdg
for v in $(env | grep ^MAILAGENT_ | cut -d= -f1); do unset "$v"; done
PROF=(); [ -n "$PD" ] && PROF=(--cpu-prof "--cpu-prof-dir=$PD")
node "${PROF[@]}" "$ROOT/bin/mailagent" serve --port 0 --smtp-port 0 --data-dir "$H/data" --log-level silent 2>"$H/err" &
PID=$!
for _ in $(seq 150); do grep -q "ready: API" "$H/err" 2>/dev/null && break; sleep 0.2; done
URL=$(grep -o "ready: API [^ ]*" "$H/err" | awk '{print $3}')
KEY=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$H/config/mailagent/config.json','utf8')).profiles.default.test_key)")
cpu() { awk '{print $14+$15}' "/proc/$PID/task/$PID/stat"; }
C0=$(cpu); for t in /proc/$PID/task/*; do echo "thread $(cat $t/comm) $(awk "{print \$14+\$15}" $t/stat)"; done > "$H/threads0"
if [ "$MODE" = me ]; then
  wrk -t2 -c16 -d"${SECS}s" -H "Authorization: Bearer $KEY" "$URL/v1/me" > "$H/out"
else
  printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' "'{\"to\":\"bob@example.com\",\"subject\":\"Your receipt\",\"body_text\":\"Thanks for your order #1234.\"}'" > "$H/s.lua"
  wrk -t2 -c16 -d"${SECS}s" -s "$H/s.lua" -H "Authorization: Bearer $KEY" "$URL/v1/messages" > "$H/out"
fi
C1=$(cpu); for t in /proc/$PID/task/*; do echo "thread $(cat $t/comm) $(awk "{print \$14+\$15}" $t/stat)"; done > "$H/threads1"
REQ=$(grep -o "[0-9]* requests in" "$H/out" | awk '{print $1}')
TICK=$(getconf CLK_TCK)
echo "$(basename "$ROOT") $MODE: $(grep Requests/sec "$H/out" | awk '{print $2}') req/s, main thread $(( (C1 - C0) * 1000000 / TICK / REQ )) µs/request $(grep Non-2xx "$H/out" || true) (load $(cut -d' ' -f1-3 /proc/loadavg))"
[ -n "$THREADS" ] && paste "$H/threads0" "$H/threads1" | awk -v req="$REQ" -v tick="$TICK" '{d=$6-$3; if (d>0) printf "  %-16s %6.1f µs/request\n", $2, d*1000000/tick/req}'
kill -TERM $PID; wait $PID || true
