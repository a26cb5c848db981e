#!/bin/bash
# Where a request's CPU goes, thread by thread: `perf record -e task-clock` (CPU-time samples, so a
# thread that is preempted is not charged, unlike --cpu-prof's wall-time samples) of every thread of
# a `mailagent serve` under wrk (-t2 -c16, GET /v1/me or a test-mode send), after a warm-up, with JS
# frames named (node --perf-basic-prof). Prints each thread's share of the samples with the role
# its stacks show (main, the queue writer, a pool worker, the checkpointer, libuv's pool, V8's
# compiler and GC threads) and its top leaf frames; the perf data is kept for `perf report`.
#   bench/tools/perf-threads.sh <build root> <me|send> [seconds] [warm-up seconds]
# e.g. bench/tools/perf-threads.sh ../base send 8 20
# CONNS=32 (default 16): wrk's connections. TOP=N (default 8): leaf frames per thread.
set -e
ROOT=$(cd "$1" && pwd); MODE=$2; SECS=${3:-8}; WARM=${4:-15}
[ "$MODE" = me ] || [ "$MODE" = send ] || { echo "usage: $0 <build root> <me|send> [seconds] [warm-up seconds]" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed (Debian: linux-perf)" >&2; exit 2; }
H=$(mktemp -d "${TMPDIR:-/tmp}/mailagent-perf-XXXX")
export HOME=$H XDG_CONFIG_HOME=$H/config XDG_DATA_HOME=$H/xdg
for v in $(env | grep ^MAILAGENT_ | cut -d= -f1); do unset "$v"; done
# --perf-basic-prof writes /tmp/perf-PID.map (JIT frames' names): removed with the daemon.
node --perf-basic-prof "$ROOT/bin/mailagent" serve --port 0 --smtp-port 0 --data-dir "$H/data" --log-level silent 2>"$H/err" >/dev/null &
PID=$!
trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f /tmp/perf-$PID.map; rm -rf "$H"' EXIT
for _ in $(seq 150); do grep -q "ready: API" "$H/err" 2>/dev/null && break; sleep 0.2; done
URL=$(grep -o "ready: API [^ ]*" "$H/err" | awk '{print $3}')
KEY=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$H/config/mailagent/config.json','utf8')).profiles.default.test_key)")
printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' "'{\"to\":\"bob@example.com\",\"subject\":\"Your receipt\",\"body_text\":\"Thanks for your order #1234.\"}'" > "$H/send.lua"
if [ "$MODE" = me ]; then W=(-H "Authorization: Bearer $KEY" "$URL/v1/me"); else W=(-s "$H/send.lua" -H "Authorization: Bearer $KEY" "$URL/v1/messages"); fi
wrk -t2 -c"${CONNS:-16}" -d"${WARM}s" "${W[@]}" >/dev/null
# One wrk run over the recording and a second either side of it: no connection opens or closes
# while perf records (V8 deoptimises code at connection close: bench/README.md, session 11).
wrk -t2 -c"${CONNS:-16}" -d"$((SECS + 2))s" "${W[@]}" > "$H/wrk" &
WRK=$!
sleep 1
OUT=${OUT:-$H/perf.data}
perf record -q -e task-clock -g -p "$PID" -o "$OUT" -- sleep "$SECS" 2>/dev/null >/dev/null
wait $WRK
echo "$(basename "$ROOT") $MODE: $(grep Requests/sec "$H/wrk" | awk '{print $2}') req/s under perf (load $(cut -d' ' -f1-3 /proc/loadavg)); perf data: $OUT"
# Each sample: "<tid>" then its stack, leaf first. Per thread: samples, the role (first match of its
# frames), and the leaf frames.
perf script -i "$OUT" -F tid,ip,sym 2>/dev/null | awk -v pid="$PID" -v top="${TOP:-8}" '
  function role(f) {
    if (f ~ /queue-writer-thread/) return "queue writer";
    if (f ~ /classifier\/|pipeline\/worker/) return "pool worker";
    if (f ~ /checkpointer|fts5|sqlite3WalCheckpoint/) return "checkpointer";
    if (f ~ /uv__fs_work|fdatasync|ext4_sync_file/) return "libuv pool (fsync)";
    if (f ~ /compiler::|Turbofan|PipelineImpl|OptimizingCompile|Scavenge|Marking|Sweep|Evacuat|GCTracer|Heap::/) return "V8 platform: compiler, GC";
    return "";
  }
  /^ *[0-9]+ *$/ { tid = $1 + 0; n[tid]++; total++; depth = 0; next }
  /^$/ { next }
  {
    $1 = ""; f = substr($0, 2); depth++;
    if (depth == 1) leaf[tid SUBSEP f]++;
    if (!(tid in kind)) { r = role(f); if (r != "") kind[tid] = r }
  }
  END {
    for (t in n) order[t] = n[t];
    m = 0; for (t in order) ids[++m] = t;
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (n[ids[j]] > n[ids[i]]) { x = ids[i]; ids[i] = ids[j]; ids[j] = x }
    for (i = 1; i <= m && i <= 12; i++) {
      t = ids[i]; r = (t == pid) ? "main" : ((t in kind) ? kind[t] : "?");
      printf "\n%5.1f%%  thread %s (%s)\n", 100 * n[t] / total, t, r;
      k = 0; delete fr;
      for (key in leaf) { split(key, p, SUBSEP); if (p[1] == t) fr[p[2]] = leaf[key] }
      for (s = 0; s < top; s++) {
        best = ""; bv = 0; for (f in fr) if (fr[f] > bv) { bv = fr[f]; best = f }
        if (best == "") break;
        printf "        %5.1f%%  %s\n", 100 * bv / n[t], substr(best, 1, 110); delete fr[best];
      }
    }
  }'
