import type { AppContext } from '../../services/context.js';
import { indexQueuedMessages } from '../../services/search.js';
import type { Worker } from './index.js';
import { createPollingWorker } from './polling.js';

/** How often the queue of the full-text index is looked at (one indexed read when empty). */
const POLL_MS = 250;

/**
 * Writes the full-text index of the messages stored since the last pass (services/search.ts
 * indexQueuedMessages; db/search-index.ts: storing a message only queues it), a batch at a time.
 * A search never waits for this worker: it indexes what is still queued itself. Stopping leaves
 * the queue as it is (it is in the database; the next start or search indexes it).
 */
export function createSearchIndexer(ctx: AppContext): Worker & { tick(): Promise<number> } {
  return createPollingWorker(ctx, 'search-index', POLL_MS, (stopped) => indexQueuedMessages(ctx, stopped));
}
