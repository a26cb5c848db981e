import type { AppContext } from '../../services/context.js';
import { flushRequestLog } from '../../services/request-log.js';
import { flushLastUsed } from '../../services/auth.js';
import type { Worker } from './index.js';

/**
 * The request log and API keys' last_used_at are written in batches (services/request-log.ts,
 * services/auth.ts); stopping the daemon writes the last ones.
 */
export function createRequestLogFlusher(ctx: AppContext): Worker {
  return {
    name: 'request-log',
    start() {},
    async stop() {
      await flushRequestLog(ctx);
      await flushLastUsed(ctx);
    },
  };
}
