import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
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
/**
 * The main thread's new space once the daemon serves (MB, as V8 reports it: `new_space` in
 * v8.getHeapSpaceStatistics(), the `young` of mailagent_thread_heap_bytes): see
 * growMainYoungGeneration. At 8 MB GET /v1/me spends 22–28 % less main-thread CPU per request
 * than at the 2 MB start-up hold; 4 MB gives about a third of that, more than 8 nothing measurable
 * (bench/README.md, round 2 session 14).
 */
export const MAIN_NEW_SPACE_MB = 8;

let holding = false;
/** The main thread's new space may grow to this many bytes (0: held where it is). */
let growTo = 0;
let gcWatch: PerformanceObserver | null = null;
const mainNewSpaceBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
/**
 * V8's growth factor for a new space of `nowBytes` that may grow to `targetBytes`: held (1) at or
 * above the target or when there is none; below it, the factor that reaches the target in one
 * growth (once the daemon is loaded V8 grows a new space seldom — when enough of it survives
 * scavenges, as while code warms up — so a factor of 2 could leave it short for good).
 */
export function youngGrowthFlag(nowBytes: number, targetBytes: number): string {
  return targetBytes > 0 && nowBytes > 0 && nowBytes < targetBytes ? `--semi-space-growth-factor=${Math.ceil(targetBytes / nowBytes)}` : YOUNG_GROWTH_HELD;
}
const holdYoungGrowth = () => setFlagsFromString(youngGrowthFlag(growTo ? mainNewSpaceBytes() : 0, growTo));
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
 * Once the daemon serves (daemon.ts, after it listens): the main thread's new space, held at 2 MB
 * while the CLI, the server and the threads loaded (the start-up would otherwise grow it to V8's
 * 32 MB), may grow to `newSpaceMb` and no further. At 2 MB a request's garbage meets a scavenge
 * four times as often as at 8 MB (GET /v1/me: 67 against ~250 requests per scavenge), and V8's
 * scavenge helper threads run as often: 22–28 % more main-thread CPU per request (bench/README.md,
 * round 2 session 14), for 8–11 MB more RSS after 30,000 messages. A GC observer sets V8's growth
 * factor after each collection (youngGrowthFlag): held once the target is reached; free again if
 * V8 shrinks the new space (it does after a full GC at a low allocation rate). V8 reads the factor
 * at each growth, so a second growth before the observer's callback (two in one turn) could pass
 * the target, never past V8's maximum (16 MB, or the operator's --max-semi-space-size, which caps
 * this too). No-op unless applyDaemonHeapSettings ran (tests' in-process daemons).
 */
export function growMainYoungGeneration(newSpaceMb = MAIN_NEW_SPACE_MB): void {
  if (!holding || gcWatch) return;
  growTo = newSpaceMb * 1024 * 1024;
  holdYoungGrowth();
  gcWatch = new PerformanceObserver(holdYoungGrowth);
  gcWatch.observe({ entryTypes: ['gc'] });
}

/** Stop watching (daemon stop); the factor is held where the new space is. */
export function stopMainYoungGrowth(): void {
  gcWatch?.disconnect();
  gcWatch = null;
  growTo = 0;
  if (holding) holdYoungGrowth();
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
