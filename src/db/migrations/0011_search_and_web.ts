import { sql, type Kysely } from 'kysely';

/**
 * Search, read state and web-inbox sign-in (issue #15).
 *
 * Two halves on purpose: `portable()` is DDL every dialect runs; `sqliteFullTextSearch()` is the
 * ONE place that knows SQLite's FTS5. A PostgreSQL port replaces only that function (a tsvector
 * column or table kept by triggers) and the query half in `repos/search.ts`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await portable(db);
  await sqliteFullTextSearch(db);
}

async function portable(db: Kysely<unknown>): Promise<void> {
  // When the mail was first marked read (null: unread). Bookkeeping of the reader, not of the mail.
  await db.schema.alterTable('received_messages').addColumn('read_at', 'text').execute();

  // Web inbox sign-in: one-time links (kind `link`, spent on first use) and browser sessions
  // (kind `session`). Only SHA-256 of each token is stored, like API keys. A session acts with
  // the key it was made from, so revoking the key ends it.
  await db.schema
    .createTable('web_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('web_sessions_expires').on('web_sessions').columns(['expires_at']).execute();
}

/**
 * SQLite only: an FTS5 index over sent and received mail, kept by triggers, so the index row is
 * written in the same transaction as the message (no search result without its message, no
 * message missing from search).
 *
 * `message_search` is contentless (the text already lives in the message tables; storing it twice
 * would double the database) with contentless_delete so rows can be removed. FTS5 addresses rows
 * by integer rowid, and the message tables have text primary keys whose implicit rowids VACUUM
 * may renumber, so `message_search_keys` maps each message id to a stable INTEGER PRIMARY KEY.
 *
 * Columns: sender (name + address), recipients (to, cc, envelope recipient / bcc), subject, body
 * (the text part, else the excerpt for received mail or the HTML for sent mail).
 */
async function sqliteFullTextSearch(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE message_search_keys (search_rowid INTEGER PRIMARY KEY, message_id TEXT NOT NULL UNIQUE)`.execute(db);
  await sql`CREATE VIRTUAL TABLE message_search USING fts5(sender, recipients, subject, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`.execute(db);

  const received = {
    sender: `coalesce(NEW.from_name, '') || ' ' || NEW.from_address`,
    recipients: `NEW."to" || ' ' || NEW.cc || ' ' || NEW.recipient`,
    subject: 'NEW.subject',
    body: 'coalesce(NEW.text, NEW.excerpt)',
  };
  const sent = {
    sender: `coalesce(NEW.from_name, '') || ' ' || NEW.from_address`,
    recipients: `NEW."to" || ' ' || NEW.cc || ' ' || NEW.bcc`,
    subject: 'NEW.subject',
    body: `coalesce(NEW.body_text, NEW.body_html, '')`,
  };
  for (const [table, cols, watched] of [
    ['received_messages', received, 'from_name, from_address, "to", cc, recipient, subject, text, excerpt'],
    ['sent_messages', sent, 'from_name, from_address, "to", cc, bcc, subject, body_text, body_html'],
  ] as const) {
    const t = sql.raw(table);
    const values = [cols.sender, cols.recipients, cols.subject, cols.body].join(', ');
    const insertRow = sql`
      INSERT INTO message_search_keys (message_id) VALUES (NEW.id);
      INSERT INTO message_search (rowid, sender, recipients, subject, body)
        VALUES ((SELECT search_rowid FROM message_search_keys WHERE message_id = NEW.id), ${sql.raw(values)});`;
    const deleteRow = (ref: 'OLD' | 'NEW') => sql`
      DELETE FROM message_search WHERE rowid = (SELECT search_rowid FROM message_search_keys WHERE message_id = ${sql.raw(ref)}.id);
      DELETE FROM message_search_keys WHERE message_id = ${sql.raw(ref)}.id;`;
    await sql`CREATE TRIGGER ${sql.raw(table + '_search_insert')} AFTER INSERT ON ${t} BEGIN ${insertRow} END`.execute(db);
    await sql`CREATE TRIGGER ${sql.raw(table + '_search_delete')} AFTER DELETE ON ${t} BEGIN ${deleteRow('OLD')} END`.execute(db);
    await sql`CREATE TRIGGER ${sql.raw(table + '_search_update')} AFTER UPDATE OF ${sql.raw(watched)} ON ${t} BEGIN ${deleteRow('OLD')} ${insertRow} END`.execute(db);
    // Mail stored before this migration.
    await sql`INSERT INTO message_search_keys (message_id) SELECT id FROM ${t} ORDER BY id`.execute(db);
    await sql`INSERT INTO message_search (rowid, sender, recipients, subject, body)
      SELECT k.search_rowid, ${sql.raw(values.replace(/NEW\./g, 'm.'))}
      FROM ${t} m JOIN message_search_keys k ON k.message_id = m.id`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['received_messages', 'sent_messages']) {
    for (const what of ['insert', 'delete', 'update']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_search_${what}`)}`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS message_search`.execute(db);
  await sql`DROP TABLE IF EXISTS message_search_keys`.execute(db);
  await db.schema.dropTable('web_sessions').execute();
  await db.schema.alterTable('received_messages').dropColumn('read_at').execute();
}
