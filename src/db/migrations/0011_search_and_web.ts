import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Search, read state and web-inbox sign-in (issue #15).
 *
 * Two halves on purpose: `portable()` is DDL every dialect runs; the full-text index is
 * engine-specific (`sqliteFullTextSearch()`: FTS5; `postgresFullTextSearch()`: a tsvector side
 * table), with its query half in `repos/search.ts`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await portable(db);
  if (dialectOf(db) === 'postgres') await postgresFullTextSearch(db);
  else await sqliteFullTextSearch(db);
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

  const received = SOURCES.received_messages;
  const sent = SOURCES.sent_messages;
  for (const [table, cols] of [['received_messages', received], ['sent_messages', sent]] as const) {
    const t = sql.raw(table);
    const values = [cols.sender, cols.recipients, cols.subject, cols.body].join(', ');
    await sqliteSearchTriggers(db, table);
    // Mail stored before this migration.
    await sql`INSERT INTO message_search_keys (message_id) SELECT id FROM ${t} ORDER BY id`.execute(db);
    await sql`INSERT INTO message_search (rowid, sender, recipients, subject, body)
      SELECT k.search_rowid, ${sql.raw(values.replace(/NEW\./g, 'm.'))}
      FROM ${t} m JOIN message_search_keys k ON k.message_id = m.id`.execute(db);
  }
}

/**
 * The SQLite triggers of one table as this migration wrote them (0018 later cut received mail's
 * fields; 0027 moved the indexing off the write path, and its down() restores these).
 */
export async function sqliteSearchTriggers(db: Kysely<unknown>, table: keyof typeof SOURCES, what: readonly ('insert' | 'delete' | 'update')[] = ['insert', 'delete', 'update']): Promise<void> {
  const cols = SOURCES[table];
  const t = sql.raw(table);
  const values = [cols.sender, cols.recipients, cols.subject, cols.body].join(', ');
  const insertRow = sql`
    INSERT INTO message_search_keys (message_id) VALUES (NEW.id);
    INSERT INTO message_search (rowid, sender, recipients, subject, body)
      VALUES ((SELECT search_rowid FROM message_search_keys WHERE message_id = NEW.id), ${sql.raw(values)});`;
  const deleteRow = (ref: 'OLD' | 'NEW') => sql`
    DELETE FROM message_search WHERE rowid = (SELECT search_rowid FROM message_search_keys WHERE message_id = ${sql.raw(ref)}.id);
    DELETE FROM message_search_keys WHERE message_id = ${sql.raw(ref)}.id;`;
  if (what.includes('insert')) await sql`CREATE TRIGGER ${sql.raw(table + '_search_insert')} AFTER INSERT ON ${t} BEGIN ${insertRow} END`.execute(db);
  if (what.includes('delete')) await sql`CREATE TRIGGER ${sql.raw(table + '_search_delete')} AFTER DELETE ON ${t} BEGIN ${deleteRow('OLD')} END`.execute(db);
  if (what.includes('update')) await sql`CREATE TRIGGER ${sql.raw(table + '_search_update')} AFTER UPDATE OF ${sql.raw(cols.watched)} ON ${t} BEGIN ${deleteRow('OLD')} ${insertRow} END`.execute(db);
}

/** What each kind of mail indexes, per column (the same expressions on both engines). */
const SOURCES = {
  received_messages: {
    sender: `coalesce(NEW.from_name, '') || ' ' || NEW.from_address`,
    recipients: `NEW."to" || ' ' || NEW.cc || ' ' || NEW.recipient`,
    subject: 'NEW.subject',
    body: 'coalesce(NEW.text, NEW.excerpt)',
    watched: 'from_name, from_address, "to", cc, recipient, subject, text, excerpt',
  },
  sent_messages: {
    sender: `coalesce(NEW.from_name, '') || ' ' || NEW.from_address`,
    recipients: `NEW."to" || ' ' || NEW.cc || ' ' || NEW.bcc`,
    subject: 'NEW.subject',
    body: `coalesce(NEW.body_text, NEW.body_html, '')`,
    watched: 'from_name, from_address, "to", cc, bcc, subject, body_text, body_html',
  },
} as const;

/**
 * PostgreSQL: `message_search(message_id, doc)`, one weighted tsvector per message (A sender,
 * B recipients, C subject, D body, so field filters are weight restrictions) under a GIN index,
 * kept by row triggers: written in the message's own transaction, as with FTS5.
 *
 * Tokens match FTS5's unicode61 tokenizer: `mailagent_search_text()` turns every ASCII
 * character that is not a letter or digit into a space (otherwise PostgreSQL's parser keeps
 * `alice@example.com` or `a-b` as one token and `from:example` would not find it), the `simple`
 * configuration lower-cases without stemming or stop words, and `mailagent_search_fold()`
 * removes diacritics when the `unaccent` extension can be created (it is trusted: the database
 * owner may; without it "café" and "cafe" differ). The query side folds with the same function.
 * Limits FTS5 lacks: each column indexes its first 100,000 characters (a tsvector holds at most
 * 1 MB) and phrases past word position 16,383 are not found.
 */
async function postgresFullTextSearch(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS unaccent; EXCEPTION WHEN others THEN NULL; END $$`).execute(db);
  const unaccent = await sql<{ nspname: string }>`select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'unaccent'`.execute(db);
  const fold = unaccent.rows.length ? `"${unaccent.rows[0].nspname.replace(/"/g, '""')}".unaccent(t)` : 't';
  await sql.raw(`CREATE FUNCTION mailagent_search_fold(t text) RETURNS text LANGUAGE sql STABLE AS $$ SELECT ${fold} $$`).execute(db);
  await sql.raw(`CREATE FUNCTION mailagent_search_text(t text) RETURNS tsvector LANGUAGE sql STABLE AS $$
    SELECT to_tsvector('simple', mailagent_search_fold(regexp_replace(left(coalesce(t, ''), 100000), '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+', ' ', 'g')))
  $$`).execute(db);
  // One query word, folded and quoted for to_tsquery() (quotes and backslashes doubled), so a
  // word the fold turns into punctuation (ŉ → 'n) is still data, never tsquery syntax.
  await sql.raw(`CREATE FUNCTION mailagent_search_lexeme(t text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT '''' || replace(replace(mailagent_search_fold(t), '\\', '\\\\'), '''', '''''') || ''''
  $$`).execute(db);
  await sql`CREATE TABLE message_search (message_id text PRIMARY KEY, doc tsvector NOT NULL)`.execute(db);
  await sql`CREATE INDEX message_search_doc ON message_search USING gin (doc)`.execute(db);
  for (const [table, cols] of Object.entries(SOURCES) as [keyof typeof SOURCES, (typeof SOURCES)[keyof typeof SOURCES]][]) {
    await postgresSearchFunction(db, table);
    await sql.raw(`CREATE TRIGGER ${table}_search AFTER INSERT OR DELETE OR UPDATE OF ${cols.watched} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_search()`).execute(db);
    // Mail stored before this migration.
    await sql.raw(`INSERT INTO message_search (message_id, doc) SELECT m.id, ${postgresSearchDoc(table, 'm')} FROM ${table} m`).execute(db);
  }
}

/** PostgreSQL: the weighted tsvector of one message of `table` (`ref`: the row's name in the statement). */
export function postgresSearchDoc(table: keyof typeof SOURCES, ref: string): string {
  const cols = SOURCES[table];
  return [['sender', 'A'], ['recipients', 'B'], ['subject', 'C'], ['body', 'D']]
    .map(([c, w]) => `setweight(mailagent_search_text(${cols[c as keyof typeof cols].replace(/NEW\./g, ref + '.')}), '${w}')`).join(' || ');
}

/** PostgreSQL: the trigger function of `table` as this migration wrote it (0027's down() restores it). */
export async function postgresSearchFunction(db: Kysely<unknown>, table: keyof typeof SOURCES): Promise<void> {
  const doc = (ref: string) => postgresSearchDoc(table, ref);
  await sql.raw(`CREATE OR REPLACE FUNCTION ${table}_search() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- A plain INSERT on insert (no ON CONFLICT: its index read would add SERIALIZABLE
      -- read locks on the neighbouring keys of concurrent ingests, i.e. needless re-runs).
      IF TG_OP = 'DELETE' THEN
        DELETE FROM message_search WHERE message_id = OLD.id;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO message_search (message_id, doc) VALUES (NEW.id, ${doc('NEW')});
      ELSE
        UPDATE message_search SET doc = ${doc('NEW')} WHERE message_id = NEW.id;
      END IF;
      RETURN NULL;
    END $$`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    for (const table of Object.keys(SOURCES)) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${table}_search ON ${table}`).execute(db);
      await sql.raw(`DROP FUNCTION IF EXISTS ${table}_search()`).execute(db);
    }
    await sql`DROP TABLE IF EXISTS message_search`.execute(db);
    await sql`DROP FUNCTION IF EXISTS mailagent_search_text(text)`.execute(db);
    await sql`DROP FUNCTION IF EXISTS mailagent_search_lexeme(text)`.execute(db);
    await sql`DROP FUNCTION IF EXISTS mailagent_search_fold(text)`.execute(db);
    await db.schema.dropTable('web_sessions').execute();
    await db.schema.alterTable('received_messages').dropColumn('read_at').execute();
    return;
  }
  for (const table of ['received_messages', 'sent_messages']) {
    for (const what of ['insert', 'delete', 'update']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_search_${what}`)}`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS message_search`.execute(db);
  await sql`DROP TABLE IF EXISTS message_search_keys`.execute(db);
  await db.schema.dropTable('web_sessions').execute();
  await db.schema.alterTable('received_messages').dropColumn('read_at').execute();
}
