import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Issue #13 (lists at 1,000,000 stored messages), after 0030: the search filters `has:attachment`
 * and `intent:` still read every message of the workspace when few match — the list walked the
 * page order (ids, newest first) and tested each message (an EXISTS on the attachments table; a
 * JSON lookup in `classification`). Now (bench/README.md, round 2 session 11):
 *
 * - `has_attachments` on received and sent messages (1 when the message was stored with at least
 *   one attachment; repos/received.ts insertReceived and repos/messages.ts insertSentMessage set it,
 *   this migration sets it for what is stored already) and a partial index of the messages that
 *   have one, in page order: `received_with_attachments`, `sent_with_attachments`. `has:attachment`
 *   reads that index only (repos/search.ts writes `has_attachments = 1`, a literal, so that SQLite
 *   sees the partial index applies); mail without attachments, the common case, writes no entry.
 * - `received_intent`: received mail by (workspace, intent, id), an index on the expression the
 *   search uses (`json_extract(classification, '$.intent')`; PostgreSQL `(classification)::jsonb
 *   ->> 'intent'`), so `intent:x` is a range of that index in page order. Every classified message
 *   has an intent, so this one entry more is written per received message.
 *
 * Each ends with thread_id, so that a thread list's search (repos/search.ts threadConditions: the
 * threads holding a matching message) reads the index alone. has_attachments is also a key column
 * of the partial indexes (always 1 there): an equality on two columns is what makes SQLite, which
 * has no statistics, prefer them to the workspace's own index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  // (added only when absent: a database an earlier build of this migration rolled back kept it)
  const tables = await db.introspection.getTables();
  for (const table of ['received_messages', 'sent_messages']) {
    if (tables.find((t) => t.name === table)?.columns.some((c) => c.name === 'has_attachments')) continue;
    await sql.raw(`ALTER TABLE ${table} ADD COLUMN has_attachments INTEGER NOT NULL DEFAULT 0`).execute(db);
  }
  await sql`UPDATE received_messages SET has_attachments = 1 WHERE id IN (SELECT received_message_id FROM received_attachments)`.execute(db);
  await sql`UPDATE sent_messages SET has_attachments = 1 WHERE id IN (SELECT message_id FROM sent_attachments)`.execute(db);
  await sql`CREATE INDEX received_with_attachments ON received_messages (workspace_id, has_attachments, id, thread_id) WHERE has_attachments = 1`.execute(db);
  await sql`CREATE INDEX sent_with_attachments ON sent_messages (workspace_id, has_attachments, id, thread_id) WHERE has_attachments = 1`.execute(db);
  await (pg
    ? sql`CREATE INDEX received_intent ON received_messages (workspace_id, ((classification::jsonb ->> 'intent')), id, thread_id)`
    : sql`CREATE INDEX received_intent ON received_messages (workspace_id, json_extract(classification, '$.intent'), id, thread_id)`).execute(db);
}

/** The indexes, then the column (as before 0031; code of this version run on that schema must not write it). */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['received_with_attachments', 'sent_with_attachments', 'received_intent']) {
    await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(db);
  }
  for (const table of ['received_messages', 'sent_messages']) await sql.raw(`ALTER TABLE ${table} DROP COLUMN has_attachments`).execute(db);
}
