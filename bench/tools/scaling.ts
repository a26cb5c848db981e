// What the linear-time fuzzers share (classifier-linear.bench.ts, classifier-html.bench.ts): how a
// case's time grows with its size, and the closing lines.
import { loadavg } from 'node:os';

/**
 * The largest size's time over the smallest's, divided by their size ratio (1 = linear, ≫ 1 =
 * superlinear), each time floored at `floorMs` (timer noise); Infinity when the largest was cut.
 */
export function growthOf(times: (number | null)[], sizes: number[], floorMs: number): number {
  const lo = times[0] ?? 0.01;
  const hi = times[times.length - 1];
  return hi === null ? Infinity : Math.max(hi, floorMs) / Math.max(lo, floorMs) / (sizes[sizes.length - 1] / sizes[0]);
}

/** Whether a case is flagged: it grows more than 2× faster than its size past `overMs`, or was cut. */
export function superlinear(times: (number | null)[], growth: number, overMs: number): boolean {
  const hi = times[times.length - 1];
  return (growth > 2 && (hi ?? Infinity) > overMs) || hi === null;
}

/** Closes the runners and prints the load average and the flagged cases. */
export async function finish(runners: { close(): Promise<unknown> }[], flagged: string[], overMs: number): Promise<void> {
  for (const r of runners) await r.close();
  console.log(`# load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`# superlinear (growth > 2 and > ${overMs} ms at the largest size, or cut): ${flagged.length}`);
  for (const f of flagged) console.log('#   ' + f);
}
