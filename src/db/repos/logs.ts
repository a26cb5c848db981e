import type { Db, Decoded } from '../schema.js';
import type { LogsTable } from '../tables/resources.js';
import { json, paginate, type PageRequest, type PageResult } from '../paginate.js';
import { sql, type SqlBool } from 'kysely';
import { REQUEST_CATEGORY } from '../request-log-rows.js';

export type LogRow = Decoded<LogsTable, { metadata: Record<string, unknown> }>;

const decode = (r: LogsTable): LogRow => ({ ...r, metadata: json<Record<string, unknown>>(r.metadata, {}) });

export async function insertLog(db: Db, row: LogRow): Promise<void> {
  await db.insertInto('logs').values({ ...row, metadata: JSON.stringify(row.metadata) }).execute();
}

/** Many rows in few statements (the request log's batches): one INSERT per 200 rows, not per row. */
export async function insertLogs(db: Db, rows: LogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db.insertInto('logs').values(rows.slice(i, i + 200).map((row) => ({ ...row, metadata: JSON.stringify(row.metadata) }))).execute();
  }
}

export interface LogFilter {
  category?: string | null;
  /** Categories left out when no category is asked for. */
  excludeCategories?: string[];
  action?: string | null;
  agentId?: string | null;
}

export async function listLogs(db: Db, workspaceId: string, f: LogFilter, page: PageRequest): Promise<PageResult<LogRow>> {
  let q = db.selectFrom('logs').selectAll().where('workspace_id', '=', workspaceId);
  if (f.category) q = q.where('category', '=', f.category);
  else {
    for (const c of f.excludeCategories ?? []) {
      // Written as the partial index logs_workspace states it (migration 0028: the request log's
      // rows, one per authenticated request, are not in it), so SQLite and PostgreSQL use it.
      q = c === REQUEST_CATEGORY ? q.where(sql<SqlBool>`category <> ${sql.lit(REQUEST_CATEGORY)}`) : q.where('category', '!=', c);
    }
  }
  if (f.action) q = q.where('action', '=', f.action);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  const res = await paginate<LogsTable>(q, 'id', page, 'log entries');
  return { ...res, rows: res.rows.map(decode) };
}
