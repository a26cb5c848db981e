import type { AppContext } from '../../services/context.js';
import { indexQueuedMessages } from '../../services/search.js';
import type { Worker } from './index.js';

/** How often the queue of the full-text index is looked at (one indexed read when empty). */
const POLL_MS = 250;

/**
 * Writes the full-text index of the messages stored since the last pass (services/search.ts
 * indexQueuedMessages; db/search-index.ts: storing a message only queues it), a batch at a time.
 * A search never waits for this worker: it indexes what is still queued itself. Stopping leaves
 * the queue as it is (it is in the database; the next start or search indexes it).
 */
export function createSearchIndexer(ctx: AppContext): Worker & { tick(): Promise<number> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = true;
  const tick = (): Promise<number> => indexQueuedMessages(ctx, () => stopped);
  const loop = () => {
    if (stopped) return;
    running = tick().catch((err) => ctx.log.error({ err }, 'search index pass failed')).finally(() => {
      running = null;
      if (!stopped) {
        timer = setTimeout(loop, POLL_MS);
        timer.unref();
      }
    });
  };
  return {
    name: 'search-index',
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
