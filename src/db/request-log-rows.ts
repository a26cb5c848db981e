import { isoAt } from '../shared/clock.js';
// A type only: the writer thread that loads this module must not load the repositories' kysely.
import type { LogRow } from './repos/logs.js';

/**
 * The request log's rows (GET /v1/logs?category=request), from a flat batch of values: one
 * request is REQUEST_LOG_VALUES consecutive entries in the order of `pushRequest`. A batch of
 * primitives in one array is what the main thread hands to the queue writer's thread
 * (db/queue-writer.ts writeRequestLog): copying it between threads costs a fraction of copying
 * row objects, and the rows themselves (the metadata's JSON, the ISO time) are built on that
 * thread, off the request path. The main connection builds the same rows when there is no writer.
 * Only imports shared/: the writer thread loads it.
 */
export interface RequestLogValues {
  id: string;
  at: number;
  workspaceId: string;
  agentId: string | null;
  keyId: string;
  mode: string;
  method: string;
  /** The request URL; only its path is logged (a query may carry addresses). */
  url: string;
  route: string | null;
  status: number;
  requestId: string;
  clientAddress: string | null;
  userAgent: string | null;
  durationMs: number;
}

export const REQUEST_LOG_VALUES = 14;
/** The request log's category (GET /v1/logs?category=request; services/audit-log.ts re-exports it). */
export const REQUEST_CATEGORY = 'request';

export function pushRequest(batch: unknown[], v: RequestLogValues): void {
  batch.push(v.id, v.at, v.workspaceId, v.agentId, v.keyId, v.mode, v.method, v.url, v.route, v.status, v.requestId, v.clientAddress, v.userAgent, v.durationMs);
}

export function requestLogRows(batch: readonly unknown[]): LogRow[] {
  const rows: LogRow[] = [];
  // Read in place (no slice and destructuring per row: the writer thread runs this for every
  // authenticated request).
  for (let i = 0; i + REQUEST_LOG_VALUES <= batch.length; i += REQUEST_LOG_VALUES) {
    const method = batch[i + 6] as string;
    const route = batch[i + 8] as string | null;
    const keyId = batch[i + 4] as string;
    const path = (batch[i + 7] as string).split('?')[0];
    rows.push({
      id: batch[i] as string, workspace_id: batch[i + 2] as string, category: REQUEST_CATEGORY, action: `${method} ${route ?? path}`,
      target_resource_id: null, agent_id: batch[i + 3] as string | null, key_id: keyId,
      metadata: {
        method, path, status: batch[i + 9] as number, request_id: batch[i + 10] as string, key_id: keyId,
        mode: batch[i + 5] as string, client_address: batch[i + 11] as string | null, user_agent: batch[i + 12] as string | null,
        duration_ms: Math.round(batch[i + 13] as number),
      },
      created_at: isoAt(batch[i + 1] as number),
    });
  }
  return rows;
}
