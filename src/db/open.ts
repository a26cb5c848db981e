import BetterSqlite3 from 'better-sqlite3';
import {
  sql, Kysely, Migrator, SqliteDialect, type CompiledQuery, type SqliteDatabase, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings,
} from 'kysely';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';

export interface OpenedDb {
  db: Kysely<Database>;
  /** The database file (':memory:' for an in-memory one). */
  file: string;
  /** The pragmas in force, read back after setting them (tests check they stuck). */
  pragmas: { journal_mode: string; synchronous: number; foreign_keys: number; busy_timeout: number };
  close(): Promise<void>;
}

/**
 * SQLite has one connection, guarded by a mutex that a transaction holds until it ends. Without
 * help, a query on the root `db` issued from inside a transaction callback (a helper that was
 * handed ctx.db instead of tx.db) waits for that mutex forever, and the whole daemon with it.
 * `holdingConnection` marks the async chain that owns the connection; the driver then lets that
 * chain's root-db queries use the held connection (they join the transaction) instead of waiting.
 */
const held = new AsyncLocalStorage<ReadonlySet<object>>();
const driverOf = new WeakMap<object, ReentrantDriver>();

/** The held connection lent to a query of the owning chain; releasing it is a no-op. */
class BorrowedConnection implements DatabaseConnection {
  constructor(private readonly connection: DatabaseConnection) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.connection.executeQuery<R>(query);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

class ReentrantDriver implements Driver {
  private connection: DatabaseConnection | undefined;
  /** Token of the transaction callback that holds the connection right now, if any. */
  owner: object | null = null;
  constructor(private readonly inner: Driver) {}
  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    // Only the chain of the transaction that holds the connection now may borrow it: work it
    // left behind (a timer set inside an earlier transaction) queues for the lock like anyone.
    if (this.owner && this.connection && held.getStore()?.has(this.owner)) return new BorrowedConnection(this.connection);
    this.connection = await this.inner.acquireConnection();
    return this.connection;
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof BorrowedConnection) return; // the transaction releases the real one
    return this.inner.releaseConnection(connection);
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

class ReentrantSqliteDialect extends SqliteDialect {
  driver: ReentrantDriver | undefined;
  override createDriver(): Driver {
    this.driver = new ReentrantDriver(super.createDriver());
    return this.driver;
  }
}

/**
 * Run fn as the owner of `db`'s connection. Call it only from inside a transaction callback of
 * `db` (services' inTransaction does), while that transaction holds the connection. A database
 * not opened by openDatabase is left as it is.
 */
export async function holdingConnection<T>(db: Kysely<Database>, fn: () => Promise<T>): Promise<T> {
  const driver = driverOf.get(db);
  if (!driver) return fn();
  const token = {};
  const previous = driver.owner;
  driver.owner = token;
  try {
    return await held.run(new Set([...(held.getStore() ?? []), token]), fn);
  } finally {
    driver.owner = previous;
  }
}

/**
 * Every SQLite pragma lives here. synchronous=FULL is set explicitly: better-sqlite3's build
 * defaults WAL databases to NORMAL, and an SMTP 250 / HTTP 201 must mean the row is on disk.
 */
export function openDatabase(file: string): OpenedDb {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  // A new database frees deleted pages in small steps (db/maintenance.ts reclaimSpace); this must
  // be set before the first table exists. Older files are converted by migration 0012.
  if (Number(sqlite.pragma('page_count', { simple: true })) === 0) sqlite.pragma('auto_vacuum = INCREMENTAL');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const pragmas = {
    journal_mode: String(sqlite.pragma('journal_mode', { simple: true })),
    synchronous: Number(sqlite.pragma('synchronous', { simple: true })),
    foreign_keys: Number(sqlite.pragma('foreign_keys', { simple: true })),
    busy_timeout: Number(sqlite.pragma('busy_timeout', { simple: true })),
  };
  const dialect = new ReentrantSqliteDialect({ database: cachingStatements(sqlite) });
  const db = new Kysely<Database>({ dialect });
  if (dialect.driver) driverOf.set(db, dialect.driver);
  return { db, file, pragmas, close: () => db.destroy() };
}

/** Prepared statements kept per SQL text (kysely's SQLite driver prepares every query anew). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The database as kysely's driver sees it, with `prepare` answered from a small LRU cache: the
 * same few hundred statements run on every request, and compiling them again each time was ~5%
 * of the inbound pipeline's CPU. A statement still being iterated (`busy`) is never handed out
 * twice; SQLite re-prepares cached statements itself after a schema change (sqlite3_prepare_v2).
 */
function cachingStatements(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const hit = cache.get(sql);
      if (hit && !hit.busy) {
        cache.delete(sql); // re-insert: Map order is the LRU order
        cache.set(sql, hit);
        return hit;
      }
      const stmt = sqlite.prepare(sql);
      if (!hit) {
        cache.set(sql, stmt);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      return stmt;
    },
  };
}

/** A database written by a newer mailagent: this binary does not know some of its migrations. */
export class DatabaseTooNewError extends Error {
  constructor(readonly unknown: string[]) {
    super(`the database was upgraded by a newer mailagent (it has migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this version does not know). `
      + 'Run the newer mailagent, or restore the backup taken before that upgrade (mailagent restore <data dir>/backups/pre-migrate-*.db --data-dir DIR).');
    this.name = 'DatabaseTooNewError';
  }
}

/**
 * Migrations applied to this database and those this binary would still apply. Throws
 * DatabaseTooNewError when the database holds migrations this binary does not know (an older
 * binary on a newer database must refuse to touch it, not fail half-way).
 */
export async function migrationState(db: Kysely<Database>): Promise<{ applied: string[]; pending: string[] }> {
  const table = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`.execute(db);
  const applied = table.rows.length
    ? (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)).rows.map((r) => r.name)
    : [];
  const unknown = applied.filter((n) => !(n in migrations));
  if (unknown.length) throw new DatabaseTooNewError(unknown);
  return { applied, pending: Object.keys(migrations).filter((n) => !applied.includes(n)).sort() };
}

export async function migrate(db: Kysely<Database>): Promise<string[]> {
  await migrationState(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the database already holds a workspace (the data dir is initialised). */
export async function isInitialised(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
