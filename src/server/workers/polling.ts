import type { AppContext } from '../../services/context.js';
import type { Worker } from './index.js';

/**
 * A background loop that runs one pass, then waits `pollMs` after it ends (never two passes at
 * once), logging a failed pass and going on. `tick` runs one pass (tests call it directly); a
 * pass is told whether the worker has been stopped, to end early. stop() waits for the running pass.
 */
export function createPollingWorker(
  ctx: AppContext, name: string, pollMs: number, pass: (stopped: () => boolean) => Promise<number>,
): Worker & { tick(): Promise<number> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = true;
  const tick = (): Promise<number> => pass(() => stopped);
  const loop = () => {
    if (stopped) return;
    running = tick().catch((err) => ctx.log.error({ err }, `${name} pass failed`)).finally(() => {
      running = null;
      if (!stopped) {
        timer = setTimeout(loop, pollMs);
        timer.unref();
      }
    });
  };
  return {
    name,
    tick,
    start() {
      if (!stopped) return;
      stopped = false;
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
