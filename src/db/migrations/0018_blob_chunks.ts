import { sql, type Kysely } from 'kysely';
import { columnTypes, dialectOf } from '../dialect.js';

/**
 * Issue #13 ("no message holds the main thread for more than 50 ms"): large byte strings (raw
 * messages, attachment contents) are stored in pieces. better-sqlite3 runs every statement
 * synchronously, and one INSERT or SELECT of a 40 MB blob held the daemon's only JavaScript
 * thread for hundreds of milliseconds; written and read one piece per statement, with the event
 * loop served in between, no step costs more than a few milliseconds (db/repos/blobs.ts).
 * - blob_chunks: the pieces of one stored byte string, in `seq` order;
 * - inbound_queue.raw_blob / received_messages.raw_blob / received_attachments.content_blob:
 *   null, or the blob whose pieces follow the bytes of the row's own column (raw / content),
 *   which then holds only a head (often empty: an Authentication-Results line the listener
 *   prepends for trusted networks). A queued message's blob becomes its stored message's: the
 *   bytes are written once.
 * - received_messages_raw_blob: finds the message that owns a blob (orphan pieces of an
 *   acknowledgement that never committed are deleted at start, services/inbound-queue.ts).
 * - SQLite's search index (FTS5, migration 0011) indexes the first 100,000 characters of each
 *   field of received mail, as PostgreSQL's tsvector index always did: tokenising a whole 1 MB
 *   body inside the INSERT that stores it was tens of milliseconds of the main thread.
 * Portable DDL, plus the SQLite trigger change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blob_chunks')
    .addColumn('blob_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', columnTypes(db).blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_chunks_pk', ['blob_id', 'seq'])
    .execute();
  await db.schema.alterTable('inbound_queue').addColumn('raw_blob', 'text').execute();
  await db.schema.alterTable('received_messages').addColumn('raw_blob', 'text').execute();
  await db.schema.alterTable('received_attachments').addColumn('content_blob', 'text').execute();
  await db.schema.createIndex('received_messages_raw_blob').on('received_messages').column('raw_blob')
    .where(sql.ref('raw_blob'), 'is not', null).execute();
  if (dialectOf(db) === 'sqlite') await receivedSearchTriggers(db, INDEXED_CHARS);
}

/** Characters of each field the search index reads (PostgreSQL's mailagent_search_text() limit). */
export const INDEXED_CHARS = 100_000;

/**
 * The received_messages triggers of migration 0011 again, each field cut to `limit` characters
 * (null: whole, as 0011 wrote them). Same columns, same order, same watched columns.
 */
export async function receivedSearchTriggers(db: Kysely<unknown>, limit: number | null): Promise<void> {
  const cut = (e: string) => (limit === null ? e : `substr(${e}, 1, ${limit})`);
  const values = (ref: string) => [
    `coalesce(${ref}.from_name, '') || ' ' || ${ref}.from_address`,
    `${ref}."to" || ' ' || ${ref}.cc || ' ' || ${ref}.recipient`,
    `${ref}.subject`,
    `coalesce(${ref}.text, ${ref}.excerpt)`,
  ].map(cut).join(', ');
  const insertRow = `
    INSERT INTO message_search_keys (message_id) VALUES (NEW.id);
    INSERT INTO message_search (rowid, sender, recipients, subject, body)
      VALUES ((SELECT search_rowid FROM message_search_keys WHERE message_id = NEW.id), ${values('NEW')});`;
  const deleteRow = `
    DELETE FROM message_search WHERE rowid = (SELECT search_rowid FROM message_search_keys WHERE message_id = OLD.id);
    DELETE FROM message_search_keys WHERE message_id = OLD.id;`;
  for (const what of ['insert', 'update']) await sql.raw(`DROP TRIGGER IF EXISTS received_messages_search_${what}`).execute(db);
  await sql.raw(`CREATE TRIGGER received_messages_search_insert AFTER INSERT ON received_messages BEGIN ${insertRow} END`).execute(db);
  await sql.raw(`CREATE TRIGGER received_messages_search_update AFTER UPDATE OF from_name, from_address, "to", cc, recipient, subject, text, excerpt
    ON received_messages BEGIN ${deleteRow} ${insertRow} END`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'sqlite') await receivedSearchTriggers(db, null);
  await db.schema.dropIndex('received_messages_raw_blob').ifExists().execute();
  await db.schema.alterTable('received_attachments').dropColumn('content_blob').execute();
  await db.schema.alterTable('received_messages').dropColumn('raw_blob').execute();
  await db.schema.alterTable('inbound_queue').dropColumn('raw_blob').execute();
  await db.schema.dropTable('blob_chunks').ifExists().execute();
}
