import type { AppContext } from '../../services/context.js';
import { runDueDrafts } from '../../services/drafts.js';
import type { Worker } from './index.js';

const POLL_MS = 1000;

/** Sends scheduled drafts on time (services/drafts.ts runDueDrafts does one pass; tests call it). */
export function createDraftScheduler(ctx: AppContext): Worker & { tick(): Promise<number> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = true;
  const tick = async (): Promise<number> => runDueDrafts(ctx);
  const loop = () => {
    if (stopped) return;
    running = tick().catch((err) => ctx.log.error({ err }, 'draft scheduler pass failed')).finally(() => {
      running = null;
      if (!stopped) {
        timer = setTimeout(loop, POLL_MS);
        timer.unref();
      }
    });
  };
  return {
    name: 'draft-scheduler',
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
