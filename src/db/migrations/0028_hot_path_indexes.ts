import { sql, type Kysely } from 'kysely';

/**
 * Issue #13 (API hot path): fewer index entries written per send. A test-mode send inserts a
 * thread, a Message-ID ref, a sent message, a recipient and two events, ~26 B-tree entries in
 * all; every index entry is SQLite work on the main thread and, per group-committed batch, a
 * right-most index page rewritten in the WAL (bench/README.md, round 2 session 9).
 *
 * - `sent_messages_due (status, due_at)` indexed every send, although only scheduled sends have a
 *   `due_at`. It becomes partial, `WHERE due_at IS NOT NULL`: the scheduler's claim
 *   (`status = 'scheduled' AND due_at <= ?`) and its stalled-send requeue (`status = 'sending'
 *   AND due_at IS NOT NULL`) imply the condition, so both SQLite and PostgreSQL still use it; the
 *   metrics count of scheduled sends states it (a scheduled row always has a due_at), and
 *   "is a message of this thread sending?" goes through `sent_messages_thread` (repos/threads.ts).
 * - `events_created_at (workspace_id, created_at)` is dropped. Event lists page on the id
 *   (`events_workspace_id`, `events_agent_id`), and a `since` filter also bounds the id (an
 *   event's id is made from the same instant as its created_at, never earlier: repos/events.ts),
 *   so it is a range of that index; the bounce and complaint counts go through `events_type`
 *   (workspace, type), fewer rows than every event of the window. Retention's global age scan
 *   keeps `events_created (created_at)`.
 * - `logs_workspace (workspace_id, id)` leaves out the request log's rows (one per authenticated
 *   request, written by the queue writer's thread: GET /v1/me's second largest cost after the
 *   main thread). Only the audit-log listing walks it (`category <> 'request'`, repos/logs.ts);
 *   the request log is listed through `logs_category` and `logs_action`, retention through
 *   `logs_category_created`. The audit listing no longer steps over every request row either.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sent_messages_due`.execute(db);
  await sql`CREATE INDEX sent_messages_due ON sent_messages (status, due_at) WHERE due_at IS NOT NULL`.execute(db);
  await sql`DROP INDEX IF EXISTS events_created_at`.execute(db);
  await sql`DROP INDEX IF EXISTS logs_workspace`.execute(db);
  await sql`CREATE INDEX logs_workspace ON logs (workspace_id, id) WHERE category <> 'request'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sent_messages_due`.execute(db);
  await sql`CREATE INDEX sent_messages_due ON sent_messages (status, due_at)`.execute(db);
  await sql`CREATE INDEX events_created_at ON events (workspace_id, created_at)`.execute(db);
  await sql`DROP INDEX IF EXISTS logs_workspace`.execute(db);
  await sql`CREATE INDEX logs_workspace ON logs (workspace_id, id)`.execute(db);
}
