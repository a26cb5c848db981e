import { setFlagsFromString } from 'node:v8';

/**
 * V8 heap settings of the daemon's process (`mailagent serve`), set at run time before the server
 * loads (docs/self-hosting.md → Memory; figures: bench/README.md → "Daemon memory, session 5" and
 * "round 2 session 10").
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
 * - `--max-semi-space-size`, cleared (0) for the threads started afterwards. When it is set (the
 *   unit's NODE_OPTIONS), V8 lets it override a thread's own `resourceLimits`, so every thread got
 *   the main thread's semi-spaces: the helper threads' 3 MB young generation (shared/thread-heap.ts
 *   HELPER_THREAD_YOUNG_MB) was 8 MB, and the pipeline workers' DEFAULT_WORKER_YOUNG_MB was
 *   whatever the flag said. The main thread read it when node started and keeps it; every thread
 *   the daemon starts has its own limits.
 */
export const OLD_GENERATION_GROWING_PERCENT = 30;

/** What was set (`--flag=value` each); a growing percent the operator gave on the command line or in NODE_OPTIONS is left alone. */
export function applyDaemonHeapSettings(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = `${execArgv.join(' ')} ${nodeOptions}`.replaceAll('_', '-');
  const applied: string[] = [];
  if (!given.includes('--heap-growing-percent')) {
    setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`);
    applied.push(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`);
  }
  setFlagsFromString('--max-semi-space-size=0');
  applied.push('--max-semi-space-size=0');
  return applied;
}
