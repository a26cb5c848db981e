/**
 * CPU time per thread of a process (Linux /proc/PID/task/TID/stat, utime+stime in clock ticks),
 * for the benches' "CPU per message per thread" figures: take `threadTicks(pid)` before and after a
 * run, then `perThread(before, after, pid, n)`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);

/** CPU ticks per thread: tid → ticks. */
export function threadTicks(pid: number): Map<number, { ticks: number }> {
  const out = new Map<number, { ticks: number }>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out.set(Number(t), { ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* the thread ended */ }
  }
  return out;
}

/**
 * ms of CPU per unit (message) between two samples: `main` (tid = pid), `others` (every other
 * thread, summed) and the busiest others as t1, t2… (Node names none of its threads: pool workers,
 * the queue writer, V8's GC and compiler threads, libuv's pool).
 */
export function perThread(before: Map<number, { ticks: number }>, after: Map<number, { ticks: number }>, pid: number, n: number, top = 6): Record<string, number> {
  const per: Record<string, number> = { main: 0, others: 0 };
  const ts: number[] = [];
  for (const [tid, a] of after) {
    const ms = ((a.ticks - (before.get(tid)?.ticks ?? 0)) * TICK_MS) / n;
    if (tid === pid) per.main += ms;
    else ts.push(ms);
  }
  per.others = ts.reduce((x, y) => x + y, 0);
  ts.sort((x, y) => y - x).slice(0, top).forEach((ms, i) => { per[`t${i + 1}`] = ms; });
  return per;
}
