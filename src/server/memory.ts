import { setFlagsFromString } from 'node:v8';
import { setEnvironmentData, type Worker } from 'node:worker_threads';
import { HOLD_YOUNG_GROWTH } from '../shared/worker-entry.js';

/**
 * V8 heap settings of the daemon's process (`mailagent serve`), set at run time before the server
 * loads (docs/self-hosting.md → Memory; figures: bench/README.md → "Daemon memory, session 5",
 * "round 2 session 10" and "round 2 session 11").
 *
 * Why at run time: most of V8's heap sizes are read once, when an isolate is created, so the main
 * thread's maximum semi-space can only come from the node command line or NODE_OPTIONS (the
 * systemd unit and the Dockerfile set it). These work from here:
 *
 * - `--heap-growing-percent`: after each full GC V8 lets the old generation grow to the live size
 *   times a factor before the next one. With a heap limit of several GB (a 64-bit machine's
 *   default) that factor reaches 4: the main thread, ~45 MB live, let its old generation reach
 *   ~95–105 MB under a burst of mail. V8 reads this flag at every full GC, in every thread: at 30 %
 *   it stays at ~55–70 MB, for a few more full GCs (CPU time per message within this machine's
 *   noise).
 * - `--semi-space-growth-factor=1` (YOUNG_GROWTH_HELD): V8 doubles a new space, up to its
 *   maximum, when enough of it survives scavenges; at a factor of 1 it never grows. V8 reads the
 *   flag at each growth, so it holds the main thread's young generation where it is when set: at
 *   V8's initial size when `serve` sets it first thing (cli/serve-heap.ts), instead of the 32 MB
 *   it grew to while the CLI and the server loaded — the main thread's new space was the largest
 *   part of the RSS that plain `mailagent serve` carried beyond the unit's setting. V8 puts the
 *   factor back to 2 whenever it configures a new isolate (every thread the daemon starts), so it
 *   is set again three times: by each thread itself, first thing, before its entry module loads
 *   (shared/worker-entry.ts, HOLD_YOUNG_GROWTH in the threads' environment data); on the main
 *   thread as each thread comes online; and the daemon starts its long-lived threads before it
 *   loads the HTTP server and waits, idle, until they are online (threadsOnline()), so no
 *   scavenge of the main thread falls in the window between a thread's isolate and its hold. A
 *   thread started later (a replaced pool worker, the body worker) can still let the main
 *   thread's new space double in that short window, never past what the operator's NODE_OPTIONS
 *   allows.
 * - `--min-semi-space-size` (THREAD_SEMI_SPACE_START_MB), read when a thread's isolate is created:
 *   every thread the daemon starts begins with its young generation at its own limit
 *   (`resourceLimits.maxYoungGenerationSizeMb`: the pipeline workers' DEFAULT_WORKER_YOUNG_MB,
 *   the helper threads' HELPER_THREAD_YOUNG_MB; V8 caps the start at the limit), since with
 *   growth held it would otherwise stay at V8's initial size.
 * - `--max-semi-space-size`, cleared (0) for the threads started afterwards. When it is set (the
 *   unit's NODE_OPTIONS), V8 lets it override a thread's own `resourceLimits`, so every thread got
 *   the main thread's semi-spaces. The main thread read it when node started and keeps it.
 */
export const OLD_GENERATION_GROWING_PERCENT = 30;
export const YOUNG_GROWTH_HELD = '--semi-space-growth-factor=1';
/** Above every daemon thread's own semi-space limit, so that each starts at its limit. */
export const THREAD_SEMI_SPACE_START_MB = 16;

let holding = false;
const holdYoungGrowth = () => setFlagsFromString(YOUNG_GROWTH_HELD);
/** Threads created and not yet online (or exited): threadsOnline() waits for none to be left. */
const starting = new Set<Worker>();
let whenNoneStarting: (() => void)[] = [];

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
  setFlagsFromString(`--min-semi-space-size=${THREAD_SEMI_SPACE_START_MB}`);
  applied.push(`--min-semi-space-size=${THREAD_SEMI_SPACE_START_MB}`);
  holdYoungGrowth();
  applied.push(YOUNG_GROWTH_HELD);
  // Every thread started from here on holds it too, first thing (shared/worker-entry.ts).
  setEnvironmentData(HOLD_YOUNG_GROWTH, true);
  if (!holding) {
    holding = true;
    // Each new isolate puts the growth factor back to V8's default: hold it again once the thread runs.
    process.on('worker', (w) => {
      starting.add(w);
      const up = () => {
        holdYoungGrowth();
        if (!starting.delete(w) || starting.size) return;
        for (const f of whenNoneStarting.splice(0)) f();
      };
      w.once('online', up);
      w.once('exit', up);
    });
  }
  return applied;
}

/**
 * Resolves once every thread created so far is online (each thread's isolate has been created,
 * so none can reset V8's growth factor any more, and the main thread holds it again), or after
 * `waitMs` in any case. The daemon awaits it, idle, right after starting its long-lived threads
 * and before it loads the HTTP server (daemon.ts). Without applyDaemonHeapSettings (tests'
 * in-process daemons) nothing is tracked and it resolves at once.
 */
export async function threadsOnline(waitMs = 5_000): Promise<void> {
  // Node emits 'worker' on the next tick after `new Worker()`: let the threads just created register.
  await new Promise((r) => process.nextTick(r));
  if (!starting.size) return;
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    whenNoneStarting.push(resolve);
    timer = setTimeout(() => {
      whenNoneStarting = whenNoneStarting.filter((f) => f !== resolve);
      resolve();
    }, waitMs);
  });
  clearTimeout(timer);
}
