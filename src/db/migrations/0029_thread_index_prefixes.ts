import { sql, type Kysely } from 'kysely';

/**
 * Issue #13 (API hot path): two index entries fewer per new thread (every test-mode send without
 * threading headers makes one). `threads_workspace_id (workspace_id, id)` and
 * `threads_agent_id (agent_id, id)` are prefixes of the activity indexes of 0009,
 * `threads_workspace_activity (workspace_id, last_message_at, id)` and
 * `threads_agent_activity (agent_id, last_message_at, id)`: every query on threads names the
 * thread's id (the primary key) or filters on the workspace or the agent, and a filter on the
 * first column is served by either index alike. No query orders threads by id within a workspace
 * or an agent (lists order by last activity). test/unit/db/thread-indexes.test.ts checks each
 * query's plan. Portable DDL: the same on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS threads_workspace_id`.execute(db);
  await sql`DROP INDEX IF EXISTS threads_agent_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('threads_workspace_id').ifNotExists().on('threads').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('threads_agent_id').ifNotExists().on('threads').columns(['agent_id', 'id']).execute();
}
