import { setFlagsFromString } from 'node:v8';

/**
 * V8 heap settings of the daemon's process (`mailagent serve`), set at run time before the server
 * loads (docs/self-hosting.md → Memory; figures: bench/README.md → "Daemon memory, session 5").
 *
 * Why at run time: most of V8's heap sizes are read once, when an isolate is created, so the main
 * thread's own semi-space can only come from the node command line or NODE_OPTIONS (the systemd
 * unit and the Dockerfile set it). Two settings do work from here:
 *
 * - `--heap-growing-percent`: after each full GC V8 lets the old generation grow to the live size
 *   times a factor before the next one. With a heap limit of several GB (a 64-bit machine's
 *   default) that factor reaches 4: the main thread, ~45 MB live, let its old generation reach
 *   ~95–105 MB under a burst of mail. V8 reads this flag at every full GC, in every thread: at 30 %
 *   it stays at ~55–70 MB, for a few more full GCs (CPU time per message within this machine's
 *   noise).
 * - `--max-semi-space-size`: read when a thread's isolate is created, so it bounds the new space
 *   of every thread started afterwards (the inbound queue's writer, the checkpointer, a pool worker
 *   that replaces one; the pool's workers also have their own resourceLimits), not the main one.
 */
export const OLD_GENERATION_GROWING_PERCENT = 30;
export const THREAD_SEMI_SPACE_MB = 4;

/** What was set (`--flag=value` each); a flag the operator gave on the command line or in NODE_OPTIONS is left alone. */
export function applyDaemonHeapSettings(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = `${execArgv.join(' ')} ${nodeOptions}`.replaceAll('_', '-');
  const applied: string[] = [];
  for (const [flag, value] of [['--heap-growing-percent', OLD_GENERATION_GROWING_PERCENT], ['--max-semi-space-size', THREAD_SEMI_SPACE_MB]] as const) {
    if (given.includes(flag)) continue;
    setFlagsFromString(`${flag}=${value}`);
    applied.push(`${flag}=${value}`);
  }
  return applied;
}
