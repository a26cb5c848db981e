import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely, SqliteDatabase } from 'kysely';
import type { Database } from './schema.js';

/**
 * Synchronous statements on a SQLite connection, for hot paths (db/prepared.ts, insert-row.ts):
 * kysely's executor costs ~15 promises and a connection hand-over per statement, several times
 * SQLite's own work for the small rows of an inbound message (bench/README.md, round 2 session
 * 5). Statements come from the same cache as kysely's and are noted in the same write epochs
 * (tableMark stays true).
 */
export interface DirectStatements {
  get(sql: string, params: readonly unknown[]): unknown;
  all(sql: string, params: readonly unknown[]): unknown[];
  run(sql: string, params: readonly unknown[]): number;
}
export const directRoots = new WeakMap<object, { sqlite: BetterSqlite3.Database; run: DirectStatements }>();
export const directTxs = new WeakMap<object, { sqlite: BetterSqlite3.Database; run: DirectStatements }>();

export function directRunner(sqlite: BetterSqlite3.Database, statements: SqliteDatabase): { sqlite: BetterSqlite3.Database; run: DirectStatements } {
  const stmt = (sql: string) => statements.prepare(sql) as unknown as BetterSqlite3.Statement;
  return {
    sqlite,
    run: {
      get: (sql, params) => stmt(sql).get(...params),
      all: (sql, params) => stmt(sql).all(...params),
      run: (sql, params) => stmt(sql).run(...params).changes,
    },
  };
}

/**
 * The direct statements of `db`, when running one synchronously is what kysely would do:
 * - `db` is a transaction of a SQLite database (runTransaction), while it is open: its
 *   statements run on its connection, in it, one after another (the caller awaits each);
 * - `db` is a SQLite root database, the statement only reads (`write` false) and no transaction
 *   is open on the connection: an autocommit read, as kysely would run it once it had the
 *   connection. While one is open (the caller's own, or another chain's between its awaits),
 *   null: kysely's driver then joins the caller's transaction or waits for the other to end.
 * Writes on the root database always go through kysely (the write gate, db/queue-writer.ts).
 * null on PostgreSQL: callers use kysely.
 */
export function directStatements(db: Kysely<Database>, write: boolean): DirectStatements | null {
  const tx = directTxs.get(db);
  if (tx) return tx.sqlite.inTransaction ? tx.run : null;
  if (write) return null;
  const root = directRoots.get(db);
  return root && !root.sqlite.inTransaction ? root.run : null;
}

