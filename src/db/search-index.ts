import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { dialectOf } from './dialect.js';
import { inTransactionChain, runTransaction, searchIndexThread, withWriteLock } from './open.js';
import { directStatements } from './direct.js';
import { indexPendingBatch } from './search-index-sql.js';
import { postgresSearchDoc } from './migrations/0011_search_and_web.js';

/**
 * The full-text index, written off the write path (issue #13, migration 0027). Storing a message
 * only queues it (`message_search_pending`, same transaction); its index rows are written here,
 * in batches:
 * - in the background (server/workers/search-index.ts): SQLite — on the checkpointer's worker
 *   thread (db/checkpointer.ts), its own connection, while the main thread holds the write lock
 *   (withWriteLock: the main connection's writes wait without blocking, so nobody sleeps in
 *   SQLite's busy handler); the main connection does it only when that thread is not running
 *   (in-memory databases, tests without it). PostgreSQL — one statement on the pool.
 * - before every text search (catchUpSearchIndex, services/search.ts): whatever is queued is
 *   indexed first, so a search sees every message committed before it.
 * Crash safety: a batch's index rows and the deletion of its queue rows commit together; queued
 * rows survive a restart and are indexed by the next batch or search.
 */

/** Messages indexed per batch in the background: a few milliseconds of the write lock. */
export const SEARCH_INDEX_BATCH = 256;

/** Whether any message waits for its index rows. */
export async function hasPendingSearch(db: Kysely<Database>): Promise<boolean> {
  const r = await sql<{ x: number }>`SELECT 1 AS x FROM message_search_pending LIMIT 1`.execute(db);
  return r.rows.length > 0;
}

/**
 * PostgreSQL: one batch in one READ COMMITTED statement. The queue rows are locked (FOR UPDATE,
 * not SKIP LOCKED) and deleted, and their messages' tsvectors upserted: a batch of another
 * session or daemon holding some of them is waited for, so once this returns, every message
 * queued before it started has its index rows committed (read-your-writes across daemons). The
 * upsert covers a message updated while a batch indexed it (the update's trigger queues it
 * again; the next batch rewrites its row). Without a limit: every queued row.
 */
function postgresBatch(limit: number | null) {
  const pick = sql.raw(`SELECT message_id FROM message_search_pending ORDER BY message_id${limit === null ? '' : ` LIMIT ${Math.floor(limit)}`} FOR UPDATE`);
  const docs = (['received_messages', 'sent_messages'] as const)
    .map((t) => `SELECT m.id, ${postgresSearchDoc(t, 'm')} FROM batch JOIN ${t} m ON m.id = batch.message_id`).join(' UNION ALL ');
  return sql<{ n: number }>`WITH batch AS (
      DELETE FROM message_search_pending WHERE message_id IN (${pick}) RETURNING message_id
    ), indexed AS (
      INSERT INTO message_search (message_id, doc) ${sql.raw(docs)}
      ON CONFLICT (message_id) DO UPDATE SET doc = EXCLUDED.doc
    )
    SELECT count(*)::int AS n FROM batch`;
}

/** Index one batch of at most `limit` queued messages (null: all of them); returns how many. */
export async function indexSearchBatch(db: Kysely<Database>, limit: number | null): Promise<number> {
  if (dialectOf(db) === 'postgres') {
    // READ COMMITTED with the queue rows locked explicitly (above): a SERIALIZABLE batch would
    // conflict with every message stored meanwhile and be run again for nothing.
    return runTransaction(db, async (tx) => (await postgresBatch(limit).execute(tx)).rows[0]?.n ?? 0, { commit: 'none', isolation: 'read committed' });
  }
  const n = limit ?? Number.MAX_SAFE_INTEGER;
  const thread = searchIndexThread(db);
  if (thread) {
    const done = await withWriteLock(db, async () => thread(n));
    if (done !== null) return done;
  }
  // The index is derived data: no sync of its own (a lost batch comes back with its queue rows).
  return runTransaction(db, async (tx) => {
    const direct = directStatements(tx, true);
    if (!direct) throw new Error('search index: no direct statements on a SQLite transaction');
    return indexPendingBatch(direct, n);
  }, 'none');
}

/**
 * Index every message queued so far (before a text search; never inside a transaction). Nothing
 * queued: one indexed read.
 * SQLite has one writer, so batches until a short one leave nothing queued before this call;
 * PostgreSQL takes them all in one statement (see postgresBatch).
 */
export async function catchUpSearchIndex(db: Kysely<Database>): Promise<void> {
  // Its batches are transactions of their own (and, on SQLite, another connection's writes).
  if (inTransactionChain(db)) throw new Error('catchUpSearchIndex: not from inside a transaction');
  if (!(await hasPendingSearch(db))) return;
  if (dialectOf(db) === 'postgres') {
    await indexSearchBatch(db, null);
    return;
  }
  while ((await indexSearchBatch(db, SEARCH_INDEX_BATCH)) === SEARCH_INDEX_BATCH);
}
