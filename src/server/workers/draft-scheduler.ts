import type { AppContext } from '../../services/context.js';
import { runDueDrafts } from '../../services/drafts.js';
import type { Worker } from './index.js';
import { createPollingWorker } from './polling.js';

const POLL_MS = 1000;

/** Sends scheduled drafts on time (services/drafts.ts runDueDrafts does one pass; tests call it). */
export function createDraftScheduler(ctx: AppContext): Worker & { tick(): Promise<number> } {
  return createPollingWorker(ctx, 'draft-scheduler', POLL_MS, () => runDueDrafts(ctx));
}
