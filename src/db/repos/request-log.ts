import { sql, type SqlBool } from 'kysely';
import type { Db } from '../schema.js';
import { dialectOf } from '../dialect.js';
import { decodeCursor, encodeCursor, type PageRequest, type PageResult } from '../paginate.js';
import {
  entryRow, parseRequestLogEntries, requestLogBatchRows, requestLogEntryCreatedAt,
  type RequestLogBatchRow, type RequestLogEntry,
} from '../request-log-rows.js';
import type { LogRow } from './logs.js';

/**
 * The request log's store (table `request_log`, migration 0033): one row per workspace per
 * written batch of entries (db/request-log-rows.ts). Lists and retention answer per entry as
 * `logs` did: ids newest first with the cursor of GET /v1/logs, filters on the action and the
 * agent, entries older than the retention's cut-off removed even from a row that keeps newer ones.
 */

export async function insertRequestLogBatches(db: Db, rows: RequestLogBatchRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100) await db.insertInto('request_log').values(rows.slice(i, i + 100)).execute();
}

/** `\n<value>\n` within a `\n`-listed column (db/request-log-rows.ts listed): exact and case-sensitive on both engines. */
function lists(db: Db, column: 'actions' | 'agents', value: string) {
  const needle = `\n${value}\n`;
  return dialectOf(db) === 'postgres'
    ? sql<SqlBool>`strpos(${sql.ref(column)}, ${needle}) > 0`
    : sql<SqlBool>`instr(${sql.ref(column)}, ${needle}) > 0`;
}

/** The stored rows a list reads at a time (each up to REQUEST_LOG_ROW_ENTRIES entries). */
const ROWS_PER_READ = 4;

/**
 * A page of one workspace's request log, newest first (the cursor of GET /v1/logs, `log entries`).
 * Stored rows are read by `last_id` descending (request_log_key); since rows of two daemons of a
 * cluster may hold interleaved ids, a row's entries are merged in, and the walk stops only once
 * the page is full with entries newer than every entry the next row can hold (its `last_id`).
 */
export async function listRequestLog(
  db: Db, workspaceId: string, f: { action?: string | null; agentId?: string | null }, page: PageRequest,
): Promise<PageResult<LogRow>> {
  const limit = page.limit ?? 25;
  const list = 'log entries';
  const cursor = page.cursor ? decodeCursor(list, page.cursor) : null;
  let found: LogRow[] = [];
  let below: { last: string; first: string } | null = null;
  for (;;) {
    let q = db.selectFrom('request_log').select(['last_id', 'first_id', 'entries']).where('workspace_id', '=', workspaceId);
    if (cursor !== null) q = q.where('first_id', '<', cursor);
    if (below) {
      const b = below;
      q = q.where((eb) => eb.or([eb('last_id', '<', b.last), eb.and([eb('last_id', '=', b.last), eb('first_id', '<', b.first)])]));
    }
    if (f.action) q = q.where(lists(db, 'actions', f.action));
    if (f.agentId) q = q.where(lists(db, 'agents', f.agentId));
    const rows = await q.orderBy('last_id', 'desc').orderBy('first_id', 'desc').limit(ROWS_PER_READ).execute();
    let full = false;
    for (const r of rows) {
      if (found.length > limit && found[limit].id > r.last_id) {
        full = true;
        break;
      }
      // Matched on the stored entry (id, action, agent id), a row built only for what matches.
      const had = found.length;
      for (const e of parseRequestLogEntries(r.entries)) {
        if (cursor !== null && e[0] >= cursor) continue;
        if (f.action && e[4] !== f.action) continue;
        if (f.agentId && e[2] !== f.agentId) continue;
        found.push(entryRow(workspaceId, e));
      }
      if (found.length === had) continue;
      found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      if (found.length > limit + 1) found = found.slice(0, limit + 1);
    }
    if (full || rows.length < ROWS_PER_READ) break;
    const last = rows[rows.length - 1];
    below = { last: last.last_id, first: last.first_id };
  }
  const has_more = found.length > limit;
  const rows = has_more ? found.slice(0, limit) : found;
  return has_more ? { rows, has_more, next_cursor: encodeCursor(list, rows[rows.length - 1].id) } : { rows, has_more };
}

/**
 * Retention: removes up to about `limit` stored rows' worth of entries created before `before`
 * (oldest rows first, request_log_age). A row whose entries are all older goes; one that also
 * holds newer entries is written again with those only. Returns the entries removed and the
 * stored rows looked at (fewer than `limit`: nothing older is left).
 */
export async function expireRequestLog(db: Db, before: string, limit: number): Promise<{ removed: number; rows: number }> {
  const old = await db.selectFrom('request_log').selectAll().where('min_created_at', '<', before).orderBy('min_created_at').limit(limit).execute();
  let removed = 0;
  for (const r of old) {
    const gone = await db.deleteFrom('request_log').where('workspace_id', '=', r.workspace_id).where('last_id', '=', r.last_id)
      .where('first_id', '=', r.first_id).executeTakeFirst();
    // Another daemon of a cluster removed or rewrote it meanwhile.
    if (Number(gone.numDeletedRows) === 0) continue;
    if (r.max_created_at < before) {
      removed += r.entry_count;
      continue;
    }
    const kept: RequestLogEntry[] = parseRequestLogEntries(r.entries).filter((e) => requestLogEntryCreatedAt(e) >= before);
    removed += r.entry_count - kept.length;
    if (kept.length) await insertRequestLogBatches(db, requestLogBatchRows(new Map([[r.workspace_id, kept]])));
  }
  return { removed, rows: old.length };
}

/** Every entry of a workspace's request log, oldest first (tests and tools; a list reads pages). */
export async function allRequestLogEntries(db: Db, workspaceId: string): Promise<LogRow[]> {
  const rows = await db.selectFrom('request_log').select('entries').where('workspace_id', '=', workspaceId).execute();
  return rows.flatMap((r) => parseRequestLogEntries(r.entries).map((e) => entryRow(workspaceId, e))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
