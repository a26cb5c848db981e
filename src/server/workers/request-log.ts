import type { AppContext } from '../../services/context.js';
import { flushRequestLog } from '../../services/request-log.js';
import type { Worker } from './index.js';

/** The request log is written in batches (services/request-log.ts); stopping the daemon writes the last one. */
export function createRequestLogFlusher(ctx: AppContext): Worker {
  return { name: 'request-log', start() {}, stop: () => flushRequestLog(ctx) };
}
