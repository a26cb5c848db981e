import { sql, type Kysely } from 'kysely';
import {
  entryRow, parseRequestLogEntries, REQUEST_CATEGORY, requestLogBatchRows, type RequestLogBatchRow, type RequestLogEntry,
} from '../request-log-rows.js';

/**
 * Issue #13 (GET /v1/me at 0.5× a bare route): the request log leaves `logs`, where every
 * authenticated request was a row and four index entries (its primary key, `logs_category`,
 * `logs_action`, `logs_category_created`: with the row, a third of the request's CPU, bench/README.md
 * round 2 session 11), for `request_log`: one row per workspace per written batch, its entries as
 * one JSON array (db/request-log-rows.ts). Per batch: the table, `request_log_key`
 * (workspace_id, last_id, first_id: lists walk it newest first, covering the id range they check),
 * `request_log_age` (min_created_at: retention). The rows already in `logs` are moved, 200 to a
 * stored row per workspace, their metadata kept as it was;
 * `logs_category_created` goes (only request-log retention read it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE request_log (
    workspace_id TEXT NOT NULL,
    first_id TEXT NOT NULL,
    last_id TEXT NOT NULL,
    min_created_at TEXT NOT NULL,
    max_created_at TEXT NOT NULL,
    entry_count INTEGER NOT NULL,
    actions TEXT NOT NULL,
    agents TEXT NOT NULL,
    entries TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX request_log_key ON request_log (workspace_id, last_id, first_id)`.execute(db);
  await sql`CREATE INDEX request_log_age ON request_log (min_created_at)`.execute(db);

  interface Old { id: string; workspace_id: string; action: string; agent_id: string | null; key_id: string | null; metadata: string; created_at: string }
  // Per workspace, 200 rows at a time through logs_category (workspace_id, category, id).
  const workspaces = (await sql<{ workspace_id: string }>`SELECT DISTINCT workspace_id FROM logs WHERE category = ${REQUEST_CATEGORY}`.execute(db)).rows;
  for (const { workspace_id: ws } of workspaces) {
    let after = '';
    for (;;) {
      const page: Old[] = (await sql<Old>`SELECT id, workspace_id, action, agent_id, key_id, metadata, created_at FROM logs
        WHERE workspace_id = ${ws} AND category = ${REQUEST_CATEGORY} AND id > ${after} ORDER BY id LIMIT 200`.execute(db)).rows;
      if (!page.length) break;
      const entries: RequestLogEntry[] = page.map((r) => [r.id, r.created_at, r.agent_id, r.key_id, r.action, JSON.parse(r.metadata) as Record<string, unknown>]);
      await insertBatchRows(db, requestLogBatchRows(new Map([[ws, entries]])));
      after = page[page.length - 1].id;
    }
  }
  await sql`DELETE FROM logs WHERE category = ${REQUEST_CATEGORY}`.execute(db);
  // Only request-log retention read it (audit entries have no retention).
  await sql`DROP INDEX IF EXISTS logs_category_created`.execute(db);
}

async function insertBatchRows(db: Kysely<unknown>, rows: RequestLogBatchRow[]): Promise<void> {
  for (const r of rows) {
    await sql`INSERT INTO request_log (workspace_id, first_id, last_id, min_created_at, max_created_at, entry_count, actions, agents, entries)
      VALUES (${r.workspace_id}, ${r.first_id}, ${r.last_id}, ${r.min_created_at}, ${r.max_created_at}, ${r.entry_count}, ${r.actions}, ${r.agents}, ${r.entries})`.execute(db);
  }
}

/** Every stored entry back into `logs` as its own row (as before 0033), then the table goes. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const rows = (await sql<{ workspace_id: string; entries: string }>`SELECT workspace_id, entries FROM request_log`.execute(db)).rows;
  for (const r of rows) {
    for (const e of parseRequestLogEntries(r.entries)) {
      const l = entryRow(r.workspace_id, e);
      await sql`INSERT INTO logs (id, workspace_id, category, action, target_resource_id, agent_id, key_id, metadata, created_at)
        VALUES (${l.id}, ${l.workspace_id}, ${l.category}, ${l.action}, ${l.target_resource_id}, ${l.agent_id}, ${l.key_id}, ${JSON.stringify(l.metadata)}, ${l.created_at})`.execute(db);
    }
  }
  await sql`DROP TABLE request_log`.execute(db);
  await sql`CREATE INDEX logs_category_created ON logs (category, created_at)`.execute(db);
}
