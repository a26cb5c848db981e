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
  for (let i = 0; i + REQUEST_LOG_VALUES <= batch.length; i += REQUEST_LOG_VALUES) {
    const [id, at, workspaceId, agentId, keyId, mode, method, url, route, status, requestId, clientAddress, userAgent, durationMs] =
      batch.slice(i, i + REQUEST_LOG_VALUES) as [string, number, string, string | null, string, string, string, string, string | null, number, string, string | null, string | null, number];
    const path = url.split('?')[0];
    rows.push({
      id, workspace_id: workspaceId, category: REQUEST_CATEGORY, action: `${method} ${route ?? path}`,
      target_resource_id: null, agent_id: agentId, key_id: keyId,
      metadata: {
        method, path, status, request_id: requestId, key_id: keyId,
        mode, client_address: clientAddress, user_agent: userAgent, duration_ms: Math.round(durationMs),
      },
      created_at: isoAt(at),
    });
  }
  return rows;
}
