import { sql, type Kysely } from 'kysely';

/**
 * Issue #13 (lists at 1,000,000 stored messages): the filtered lists a client pages through read
 * every row of the workspace when few rows match. They walked the page order's index (threads by
 * last activity, received mail by id) and tested each row: a label on 10 threads among a million
 * read the million. Each such filter gets a partial index in the page order that holds only the
 * rows it can match, so a page reads at most the matching rows (bench/README.md, round 2 session 10):
 *
 * - `threads_filed`: threads not `open` (a status filter for `closed` or `archived`; `open`, most
 *   threads, keeps walking `threads_workspace_activity`). The list adds `status <> 'open'` to its
 *   WHERE (repos/threads.ts) so that SQLite sees the index applies.
 * - `threads_trash`: threads in the trash (`trashed=true`).
 * - `threads_labelled`: threads with any label; the label filter (a JSON array test) then runs on
 *   those only (the list adds `labels <> '[]'`).
 * - `received_read`, `received_quarantined`: the search filters `is:read` and `is:quarantined` of
 *   the received list (repos/search.ts writes both conditions as literals: a partial index is not
 *   used for a bound parameter).
 *
 * None of them holds a row of the common case (an open, unlabelled, untrashed thread; unread mail
 * that was not quarantined), so storing a message writes no entry more than before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX threads_filed ON threads (workspace_id, status, last_message_at, id) WHERE status <> 'open'`.execute(db);
  await sql`CREATE INDEX threads_trash ON threads (workspace_id, last_message_at, id) WHERE trashed_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX threads_labelled ON threads (workspace_id, last_message_at, id) WHERE labels <> '[]'`.execute(db);
  await sql`CREATE INDEX received_read ON received_messages (workspace_id, id) WHERE read_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX received_quarantined ON received_messages (workspace_id, id) WHERE quarantined = 1`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['threads_filed', 'threads_trash', 'threads_labelled', 'received_read', 'received_quarantined']) {
    await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(db);
  }
}
