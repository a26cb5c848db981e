import { isoAt } from '../shared/clock.js';
// A type only: the writer thread that loads this module must not load the repositories' kysely.
import type { LogRow } from './repos/logs.js';
import type { RequestLogTable } from './tables/resources.js';

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

/**
 * The request log's store (table `request_log`, migration 0033): one row per workspace per batch,
 * not one per request. Each row holds its entries as one JSON array (`entries`), with what lists
 * and retention search by in columns: the range of its entries' ids (`first_id`, `last_id`), of
 * their times (`min_created_at`, `max_created_at`), and the distinct actions and agent ids of its
 * entries (`actions`, `agents`: each between newlines, so a filter skips the rows that cannot
 * match without reading their entries). A row of `logs` with its four B-tree entries per request
 * was a third of GET /v1/me's CPU (bench/README.md, round 2 session 11); a batch row costs its
 * three B-tree entries once per batch (repos/request-log.ts reads it).
 */
export type RequestLogBatchRow = RequestLogTable;

/**
 * One stored entry. Written by this build: `[id, at (ms), agent_id, key_id, action, method, path,
 * status, request_id, mode, client_address, user_agent, duration_ms]`, the metadata rebuilt on
 * read in the order `requestLogRows` gives it. Moved from `logs` by migration 0033 (whatever its
 * metadata held): `[id, created_at (ISO), agent_id, key_id, action, metadata]`.
 */
export type RequestLogEntry =
  | [string, number, string | null, string | null, string, string, string, number, string, string, string | null, string | null, number]
  | [string, string, string | null, string | null, string, Record<string, unknown>];

/** The most entries one stored row holds (a page of 100 reads at most a few rows' JSON). */
export const REQUEST_LOG_ROW_ENTRIES = 500;

/** Stored rows for entries of any workspaces (each list in id order), one per workspace per REQUEST_LOG_ROW_ENTRIES. */
export function requestLogBatchRows(byWorkspace: Map<string, RequestLogEntry[]>): RequestLogBatchRow[] {
  const out: RequestLogBatchRow[] = [];
  for (const [workspaceId, entries] of byWorkspace) {
    for (let i = 0; i < entries.length; i += REQUEST_LOG_ROW_ENTRIES) {
      out.push(batchRow(workspaceId, entries.length > REQUEST_LOG_ROW_ENTRIES ? entries.slice(i, i + REQUEST_LOG_ROW_ENTRIES) : entries));
    }
  }
  return out;
}

function batchRow(workspaceId: string, entries: RequestLogEntry[]): RequestLogBatchRow {
  let first = entries[0][0];
  let last = first;
  let minAt = entryCreatedAt(entries[0]);
  let maxAt = minAt;
  const actions = new Set<string>();
  const agents = new Set<string>();
  for (const e of entries) {
    if (e[0] < first) first = e[0];
    if (e[0] > last) last = e[0];
    const at = entryCreatedAt(e);
    if (at < minAt) minAt = at;
    if (at > maxAt) maxAt = at;
    actions.add(e[4]);
    if (e[2] !== null) agents.add(e[2]);
  }
  return {
    workspace_id: workspaceId, first_id: first, last_id: last, min_created_at: minAt, max_created_at: maxAt,
    entry_count: entries.length, actions: listed(actions), agents: listed(agents), entries: JSON.stringify(entries),
  };
}

/** `\n`-separated with a `\n` at each end, so `\n<value>\n` finds a whole value (an HTTP path holds no newline). */
const listed = (values: Set<string>): string => (values.size ? `\n${[...values].join('\n')}\n` : '\n');

const entryCreatedAt = (e: RequestLogEntry): string => (typeof e[1] === 'number' ? isoAt(e[1]) : e[1]);

/** The stored rows of flat batches of values (pushRequest): built on the queue writer's thread, or on the main connection without one. */
export function requestLogBatchesOf(batches: readonly (readonly unknown[])[]): RequestLogBatchRow[] {
  const byWorkspace = new Map<string, RequestLogEntry[]>();
  for (const batch of batches) {
    // Read in place (no slice and destructuring per request).
    for (let i = 0; i + REQUEST_LOG_VALUES <= batch.length; i += REQUEST_LOG_VALUES) {
      const workspaceId = batch[i + 2] as string;
      let list = byWorkspace.get(workspaceId);
      if (!list) byWorkspace.set(workspaceId, (list = []));
      const method = batch[i + 6] as string;
      const route = batch[i + 8] as string | null;
      const path = (batch[i + 7] as string).split('?')[0];
      list.push([
        batch[i] as string, batch[i + 1] as number, batch[i + 3] as string | null, batch[i + 4] as string, `${method} ${route ?? path}`,
        method, path, batch[i + 9] as number, batch[i + 10] as string, batch[i + 5] as string, batch[i + 11] as string | null,
        batch[i + 12] as string | null, Math.round(batch[i + 13] as number),
      ]);
    }
  }
  return requestLogBatchRows(byWorkspace);
}

/** One stored entry as `logs` rows read (LogRow). */
export function entryRow(workspaceId: string, e: RequestLogEntry): LogRow {
  if (e.length === 6) {
    return { id: e[0], workspace_id: workspaceId, category: REQUEST_CATEGORY, action: e[4], target_resource_id: null, agent_id: e[2], key_id: e[3], metadata: e[5], created_at: e[1] };
  }
  return {
    id: e[0], workspace_id: workspaceId, category: REQUEST_CATEGORY, action: e[4], target_resource_id: null, agent_id: e[2], key_id: e[3],
    metadata: { method: e[5], path: e[6], status: e[7], request_id: e[8], key_id: e[3], mode: e[9], client_address: e[10], user_agent: e[11], duration_ms: e[12] },
    created_at: isoAt(e[1]),
  };
}

/** A stored row's entries as stored (retention keeps some of them: repos/request-log.ts). */
export const parseRequestLogEntries = (entriesJson: string): RequestLogEntry[] => JSON.parse(entriesJson) as RequestLogEntry[];
export { entryCreatedAt as requestLogEntryCreatedAt };
