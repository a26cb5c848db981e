import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';
import { sqliteSearchTriggers, postgresSearchFunction, postgresSearchDoc } from './0011_search_and_web.js';
import { receivedSearchTriggers, INDEXED_CHARS } from './0018_blob_chunks.js';

/**
 * Issue #13 (API and ingest hot paths): the full-text index is written in the background, not in
 * the transaction that stores a message. Until now a trigger tokenised every sent and received
 * message into the index inside its INSERT (SQLite: the rowid map + FTS5, ~60 µs of the main
 * thread per test send, more for real bodies; PostgreSQL: the weighted tsvector).
 *
 * `message_search_pending(message_id)`: the messages whose index rows are still to be written.
 * The triggers now only queue: an INSERT queues the new message; an UPDATE of an indexed column
 * removes the message's index rows and queues it again; a DELETE removes both. The queue row
 * commits with the message, so pending work survives a crash or a restart. db/search-index.ts
 * indexes the queue in batches (on SQLite from the checkpointer's thread, its own connection)
 * and, before any text search, indexes whatever is still queued (read-your-writes: a search sees
 * every message committed before it). Mail already indexed stays as it is.
 */
const TABLES = ['received_messages', 'sent_messages'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema.createTable('message_search_pending').addColumn('message_id', 'text', (c) => c.primaryKey()).execute();
    for (const table of TABLES) {
      // Same trigger (INSERT, DELETE, UPDATE of the indexed columns), new function body. The queue
      // row goes before the index row on delete: a batch indexing this message holds the queue
      // row's lock, so the delete waits for it and then removes what it wrote.
      await sql.raw(`CREATE OR REPLACE FUNCTION ${table}_search() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN
            DELETE FROM message_search_pending WHERE message_id = OLD.id;
            DELETE FROM message_search WHERE message_id = OLD.id;
          ELSIF TG_OP = 'INSERT' THEN
            INSERT INTO message_search_pending (message_id) VALUES (NEW.id);
          ELSE
            DELETE FROM message_search WHERE message_id = NEW.id;
            INSERT INTO message_search_pending (message_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
          END IF;
          RETURN NULL;
        END $$`).execute(db);
    }
    return;
  }
  // WITHOUT ROWID: the queue is its primary key, one b-tree to write per message instead of two.
  await sql`CREATE TABLE message_search_pending (message_id TEXT PRIMARY KEY) WITHOUT ROWID`.execute(db);
  const watched = {
    received_messages: 'from_name, from_address, "to", cc, recipient, subject, text, excerpt',
    sent_messages: 'from_name, from_address, "to", cc, bcc, subject, body_text, body_html',
  };
  const unindex = `
    DELETE FROM message_search WHERE rowid = (SELECT search_rowid FROM message_search_keys WHERE message_id = OLD.id);
    DELETE FROM message_search_keys WHERE message_id = OLD.id;`;
  for (const table of TABLES) {
    for (const what of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_search_${what}`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_search_insert AFTER INSERT ON ${table} BEGIN
      INSERT INTO message_search_pending (message_id) VALUES (NEW.id);
    END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_search_update AFTER UPDATE OF ${watched[table]} ON ${table} BEGIN ${unindex}
      INSERT OR IGNORE INTO message_search_pending (message_id) VALUES (NEW.id);
    END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_search_delete AFTER DELETE ON ${table} BEGIN ${unindex}
      DELETE FROM message_search_pending WHERE message_id = OLD.id;
    END`).execute(db);
  }
}

/** Back to indexing inside the message's transaction; what was still queued is indexed first. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    for (const table of TABLES) await postgresSearchFunction(db, table);
    for (const table of TABLES) {
      await sql.raw(`INSERT INTO message_search (message_id, doc) SELECT m.id, ${postgresSearchDoc(table, 'm')} FROM ${table} m
        WHERE m.id IN (SELECT message_id FROM message_search_pending) ON CONFLICT (message_id) DO UPDATE SET doc = EXCLUDED.doc`).execute(db);
    }
  } else {
    for (const table of TABLES) {
      for (const what of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_search_${what}`).execute(db);
    }
    await sqliteSearchTriggers(db, 'sent_messages');
    await sqliteSearchTriggers(db, 'received_messages', ['delete']);
    await receivedSearchTriggers(db, INDEXED_CHARS);
    // Queued messages: an UPDATE of an indexed column runs the restored trigger (delete + insert).
    for (const table of TABLES) {
      await sql.raw(`UPDATE ${table} SET subject = subject WHERE id IN (SELECT message_id FROM message_search_pending)`).execute(db);
    }
  }
  await db.schema.dropTable('message_search_pending').execute();
}
