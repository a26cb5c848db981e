import type { Kysely } from 'kysely';
import { columnTypes } from '../dialect.js';

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
 * Portable DDL only.
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('received_attachments').dropColumn('content_blob').execute();
  await db.schema.alterTable('received_messages').dropColumn('raw_blob').execute();
  await db.schema.alterTable('inbound_queue').dropColumn('raw_blob').execute();
  await db.schema.dropTable('blob_chunks').ifExists().execute();
}
