import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';
import { SEARCH_COLUMNS, SEARCH_KINDS, SEARCH_ROWID_FIRST, SEARCH_ROWID_STEP } from '../search-index-sql.js';

/**
 * Issue #13 (a text search of a list at 1,000,000 stored messages within 2× of its time at 1,000;
 * bench/README.md, round 2 session 14). SQLite only: the search index's FTS5 rowids
 * (`message_search_keys.search_rowid`) were handed out as batches were indexed — one sequence for
 * both kinds of mail, not in id order — so a search read every match's key before it could page
 * (5,000 random key lookups for a word in 1 % of 500,000 sent messages) and walked the other
 * kind's matches too. From this migration each kind has its own range of rowids, in the order
 * of the message ids (search-index-sql.ts SEARCH_KINDS: the indexer keeps it so), and
 * repos/search.ts searchPage reads the doclist newest first within the list's kind.
 *
 * Mail already indexed is keyed again here, in id order `SEARCH_ROWID_STEP` apart from the
 * middle of its kind's range, and its index rows are written again under the new keys (FTS5
 * rowids cannot be changed in place): the whole index is rebuilt in this migration's
 * transaction. On the 1,000,000-message bench file (9.5 GB) that took 84–127 s at load 20–23, of
 * which 15 s CPU: mostly reading the received rows' text (bench/README.md, round 2 session 14);
 * a database with more than REKEY_NOTICE indexed messages says so on stderr first. Queued messages
 * (message_search_pending) have no keys yet and are keyed by the indexer as before.
 *
 * PostgreSQL: nothing (its index is keyed by message id; repos/search.ts tsIds).
 */
const REKEY_NOTICE = 100_000;
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  const n = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM message_search_keys`.execute(db)).rows[0]?.n ?? 0);
  if (n > REKEY_NOTICE) process.stderr.write(`migration 0036: rebuilding the search index of ${n} messages in list order (1–2 minutes per million messages)\n`);
  await sql`CREATE TEMP TABLE search_rekey (search_rowid INTEGER PRIMARY KEY, message_id TEXT NOT NULL)`.execute(db);
  for (const K of Object.values(SEARCH_KINDS)) {
    await sql`INSERT INTO search_rekey (search_rowid, message_id)
      SELECT ${sql.lit(K.lo + SEARCH_ROWID_FIRST)} + (row_number() OVER (ORDER BY k.message_id) - 1) * ${sql.lit(SEARCH_ROWID_STEP)}, k.message_id
      FROM message_search_keys k WHERE EXISTS (SELECT 1 FROM ${sql.table(K.table)} m WHERE m.id = k.message_id)`.execute(db);
  }
  await sql`DELETE FROM message_search_keys`.execute(db);
  await sql`INSERT INTO message_search_keys (search_rowid, message_id) SELECT search_rowid, message_id FROM search_rekey ORDER BY search_rowid`.execute(db);
  await sql`DROP TABLE search_rekey`.execute(db);
  // A contentless table's rows go all at once so; then each message's row again, in rowid order.
  await sql`INSERT INTO message_search (message_search) VALUES ('delete-all')`.execute(db);
  for (const K of Object.values(SEARCH_KINDS)) {
    await sql`INSERT INTO message_search (rowid, sender, recipients, subject, body)
      SELECT k.search_rowid, ${sql.raw(SEARCH_COLUMNS[K.table].join(', '))}
      FROM message_search_keys k JOIN ${sql.table(K.table)} m ON m.id = k.message_id
      WHERE k.search_rowid BETWEEN ${sql.lit(K.lo)} AND ${sql.lit(K.hi)} ORDER BY k.search_rowid`.execute(db);
  }
}

/** Nothing to undo: the indexer before this migration reads and hands out keys of any value. */
export async function down(): Promise<void> {}
