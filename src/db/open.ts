import BetterSqlite3 from 'better-sqlite3';
import { loadPg } from './pg-module.js';
import {
  Kysely, PostgresDialect, SqliteDialect, sql, type CompiledQuery, type SqliteDatabase, type DatabaseConnection, type Driver,
  type QueryResult, type TransactionSettings, type Transaction, type Migration,
} from 'kysely';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createPrivateFile, makePrivateDir, tightenFile } from '../shared/private-fs.js';
import type { ThreadHeap } from '../shared/thread-heap.js';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { dialectOf, hasTable, isRetryableConflict, type DialectName } from './dialect.js';
import { Checkpointer } from './checkpointer.js';
import { watchShm } from './shm-watch.js';
import { directRoots, directRunner, directTxs } from './direct.js';
import { runMigrations } from './migrator.js';

/** Where the data lives: a SQLite file (the default) or a PostgreSQL server shared by several daemons. */
export type DatabaseSpec =
  | { kind: 'sqlite'; file: string }
  | {
    kind: 'postgres';
    /** postgres://user:pass@host:port/db?sslmode=verify-full&sslrootcert=... (TLS options as libpq's). */
    url: string;
    /** Connections this daemon keeps at most. */
    poolSize: number;
    /** Longest a single statement may run before PostgreSQL cancels it, ms (0: no limit). */
    statementTimeoutMs: number;
  };

export interface OpenedDb {
  db: Kysely<Database>;
  dialect: DialectName;
  /** SQLite only: the database file (':memory:' for an in-memory one); null on PostgreSQL. */
  file: string | null;
  /** SQLite only: the pragmas in force, read back after setting them (tests check they stuck). */
  pragmas: { journal_mode: string; synchronous: number; foreign_keys: number; busy_timeout: number } | null;
  close(): Promise<void>;
}

/**
 * Transactions are explicit: a transaction's statements go through its own handle (`trx`, a
 * service's `tx.db`). A query on the root `db` issued from inside a transaction callback (a helper
 * handed ctx.db instead of tx.db) would not run in it:
 * - SQLite has one connection behind a mutex that the transaction holds until it ends; such a
 *   query would wait for the mutex forever, and the whole daemon with it.
 * - PostgreSQL has a pool; such a query would take another connection, not see the
 *   transaction's uncommitted rows, and block forever on a row lock the transaction holds.
 * Until round 2 session 8 an AsyncLocalStorage marked each transaction's async chain and such a
 * query was sent through the transaction; its promise hooks, process-wide once any instance is in
 * use, ran for every promise and async resource of the daemon (a test send: −7 to −18 % of its
 * main-thread CPU without them, bench/README.md → API hot path, session 8). Now no call path relies
 * on it (the one that did binds a context to its transaction: services/context.ts
 * withinTransaction), and the check below keeps it so: with
 * MAILAGENT_CHECK_TX=1 (set for the whole test suite, vitest.config.ts, and passed on to the
 * daemons the tests start) transactions mark their chains again, and a root-db query, a
 * transaction begun on the root db, or inTransaction/groupedTransaction (services/context.ts)
 * from inside a marked chain throws TransactionEscapeError instead of deadlocking.
 */
interface Holding {
  driver: ReentrantDriver;
  live: boolean;
}
const checkedChains = process.env.MAILAGENT_CHECK_TX === '1' ? new AsyncLocalStorage<readonly Holding[]>() : null;
const driverOf = new WeakMap<object, ReentrantDriver>();

/** A statement on the root database from inside one of its transactions (see Holding above). */
export class TransactionEscapeError extends Error {
  constructor(what: string) {
    super(`${what} from inside a transaction of the same database: pass the transaction (tx.db) instead`);
    this.name = 'TransactionEscapeError';
  }
}

/** Whether the calling chain is inside a live transaction of `driver` (only known under the check). */
function holdsTransaction(driver: ReentrantDriver | undefined): boolean {
  return !!driver && !!checkedChains?.getStore()?.some((h) => h.driver === driver && h.live);
}

/**
 * Under MAILAGENT_CHECK_TX=1: throw when the calling chain is inside a transaction of `db`'s root
 * (for code about to use the root db, e.g. to begin a transaction of its own). A no-op otherwise.
 */
export function assertOutsideTransaction(db: Kysely<Database>, what = 'a transaction begun on the root db'): void {
  if (!db.isTransaction && holdsTransaction(driverOf.get(db))) throw new TransactionEscapeError(what);
}

/**
 * SQLite with another thread writing the same file (db/queue-writer.ts): a write statement run
 * outside a transaction (a claim, a lease, the scheduler's requeue) takes the write gate first,
 * awaited without blocking. Without it the statement would meet the other thread's lock inside
 * SQLite and wait in SQLite's busy handler, which sleeps the whole main thread: as long as the
 * writer's commit of a large message (100 ms and more at 40 MB).
 */
class GatedConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection, private readonly driver: ReentrantDriver) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const gate = this.driver.gate;
    if (!gate || this.driver.txGate || !writes(query)) return this.inner.executeQuery<R>(query);
    await gate.acquire();
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      gate.release();
    }
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Whether a statement may write (reads never wait for a writer in WAL mode). */
function writes(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind === 'SelectQueryNode') return false;
  return kind !== 'RawNode' || !/^\s*(select|with)\b/i.test(query.sql);
}

/**
 * The write gate as the main thread takes it: counted, so a transaction that holds it (and the
 * statements inside it, and a runTransaction around it) do not wait for themselves.
 */
class MainThreadGate implements WriteGate {
  private holders = 0;
  private taken: Promise<void> | null = null;
  constructor(private readonly inner: WriteGate) {}
  async acquire(): Promise<void> {
    if (this.holders++ === 0) this.taken = this.inner.acquire();
    try {
      await this.taken;
    } catch (err) {
      this.release();
      throw err;
    }
  }
  release(): void {
    if (--this.holders === 0) {
      this.taken = null;
      this.inner.release();
    }
  }
  contended(): boolean {
    return this.inner.contended?.() ?? false;
  }
}

class ReentrantDriver implements Driver {
  /** The write gate of the file, while another thread writes it (setWriteGate). */
  gate: WriteGate | null = null;
  /** The gate a transaction of this (one) connection holds from BEGIN to its end. */
  txGate: WriteGate | null = null;
  constructor(private readonly inner: Driver, readonly dialect: DialectName) {}
  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    if (holdsTransaction(this)) throw new TransactionEscapeError('a query on the root db');
    const conn = await this.inner.acquireConnection();
    return this.dialect === 'sqlite' ? new GatedConnection(conn, this) : conn;
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection instanceof GatedConnection ? connection.inner : connection);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // The gate is held for the whole transaction: released between its statements, the other
    // thread could take SQLite's lock while this transaction holds its own (each waiting for the other).
    const gate = this.gate;
    if (gate) await gate.acquire();
    this.txGate = gate;
    try {
      return await this.inner.beginTransaction(connection, settings);
    } catch (err) {
      this.endTransaction();
      throw err;
    }
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      return await this.inner.commitTransaction(connection);
    } finally {
      this.endTransaction();
    }
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      return await this.inner.rollbackTransaction(connection);
    } catch (err) {
      // SQLite already rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM
      // end it): a ROLLBACK then fails, and its error would replace the one that says why ("database
      // or disk is full"), which the caller must see. Nothing is left to undo.
      if (/no transaction is active/.test((err as Error).message)) return;
      throw err;
    } finally {
      this.endTransaction();
    }
  }
  private endTransaction(): void {
    const gate = this.txGate;
    this.txGate = null;
    gate?.release();
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

class ReentrantSqliteDialect extends SqliteDialect {
  driver: ReentrantDriver | undefined;
  override createDriver(): Driver {
    this.driver = new ReentrantDriver(super.createDriver(), 'sqlite');
    return this.driver;
  }
}

class ReentrantPostgresDialect extends PostgresDialect {
  driver: ReentrantDriver | undefined;
  override createDriver(): Driver {
    this.driver = new ReentrantDriver(super.createDriver(), 'postgres');
    return this.driver;
  }
}

/** Attempts of one transaction, in all, before a conflict it keeps losing surfaces as an error. */
const MAX_TX_ATTEMPTS = 12;
/**
 * Attempts run side by side with other transactions; from the next one on, the transaction runs
 * alone (the serial lane, below).
 */
const CONCURRENT_ATTEMPTS = 3;
/** The advisory lock key of the serial lane (db-wide, so it holds across daemons). */
const SERIAL_LANE_KEY = 7420019;

/**
 * When a transaction's commit is on disk, relative to runTransaction resolving:
 * - `inline` (the default): the COMMIT itself flushes (SQLite synchronous=FULL: an fsync of the
 *   WAL on the main thread, during which nothing else in the daemon runs).
 * - `off-thread`: equally durable when runTransaction resolves, but the flush is not done by the
 *   COMMIT: SQLite commits with synchronous=NORMAL (frames written, no fsync) and the WAL file is
 *   then fdatasync'd on libuv's thread pool, one flush shared by every commit that arrived while
 *   the previous one ran. The event loop keeps serving requests meanwhile. A checkpoint in NORMAL
 *   mode syncs the WAL before copying it and the database after, so a frame is never dropped
 *   before it is in the synced database file. PostgreSQL: the same as inline (its commit
 *   already waits for the WAL flush without blocking this process).
 * - `none`: committed, durable at the next flush of anyone's commit (within a second or two
 *   under load; SQLite: the next synced commit or checkpoint); a process crash loses nothing, a
 *   power cut may lose the last rows. Only for data a client was never promised (the request
 *   log, last_used_at). PostgreSQL: `SET LOCAL synchronous_commit = off`.
 */
export type CommitSync = 'inline' | 'off-thread' | 'none';

/**
 * PostgreSQL isolation of one transaction (SQLite has one writer at a time: ignored there).
 * `serializable` is the default and the right choice for code written against SQLite's
 * one-writer model. `read committed` is for a transaction whose every read-check-then-write is
 * protected by an explicit lock (a row lock, an advisory lock) and that therefore cannot lose a
 * serialization conflict; the caller must say why in a comment (services/inbound.ts is the one
 * user). It still takes the serial lane shared, so a transaction running alone in the lane does
 * not meet its writes either.
 */
export type Isolation = 'serializable' | 'read committed';

export interface TransactionOptions {
  commit?: CommitSync;
  isolation?: Isolation;
}

/**
 * What runTransaction did, per kind of transaction (withTransactionKind; 'other' when none was
 * named): PostgreSQL's re-runs are otherwise invisible, and they are where contention costs.
 */
export interface TransactionCounts {
  /** Transactions run (each counted once, however many attempts it took). */
  transactions: number;
  /** Attempts that ended in a serialization failure (40001) and were run again or gave up. */
  serializationFailures: number;
  /** Attempts that ended in a deadlock (40P01). */
  deadlocks: number;
  /** Attempts run alone in the serial lane (the 4th attempt of a transaction and later ones). */
  serialLane: number;
  /** Transactions that gave up (a conflict on the last attempt, or any other error). */
  failed: number;
}
const txCounts = new WeakMap<object, Map<string, TransactionCounts>>();
/**
 * The kind carried down the async chain. Counts are kept on PostgreSQL only (runTransaction), so
 * the AsyncLocalStorage is used only once a PostgreSQL database has been opened in this process:
 * a SQLite daemon runs without one (its promise hooks would cost every request).
 */
const txKind = new AsyncLocalStorage<string>();
let countsKinds = false;

/** Run fn with the transactions it starts counted under `kind` (transactionCounts; PostgreSQL). */
export function withTransactionKind<T>(kind: string, fn: () => T): T {
  return countsKinds ? txKind.run(kind, fn) : fn();
}

/** Counts per transaction kind since the database was opened (metrics: mailagent_db_*). */
export function transactionCounts(db: Kysely<Database>): ReadonlyMap<string, Readonly<TransactionCounts>> {
  return txCounts.get(db) ?? new Map();
}

function countsFor(db: Kysely<Database>): TransactionCounts {
  let byKind = txCounts.get(db);
  if (!byKind) txCounts.set(db, (byKind = new Map()));
  const kind = txKind.getStore() ?? 'other';
  let c = byKind.get(kind);
  if (!c) byKind.set(kind, (c = { transactions: 0, serializationFailures: 0, deadlocks: 0, serialLane: 0, failed: 0 }));
  return c;
}

/**
 * Run fn in one transaction of `db`, its chain joined (see Holding above).
 *
 * On PostgreSQL every transaction is SERIALIZABLE and is run again when PostgreSQL reports a
 * serialization failure or a deadlock: the services were written against SQLite, where writers
 * never overlap, and read-check-then-write sequences (a name that must be free, a cap that must
 * not be exceeded, an idempotency key) stay correct across connections and daemons only if
 * transactions behave as if run one at a time. fn may therefore run more than once: it must
 * keep its effects inside the transaction (services defer the rest to afterCommit).
 *
 * Progress (the serial lane): SERIALIZABLE's conflict detection is coarse (btree leaf pages:
 * a message's thread and reference lookups share pages with the rows its neighbours insert), so
 * under many concurrent writers one transaction can lose attempt after attempt; mail stored
 * that way was answered 451 once its re-runs ran out (29 to 37 of 1,200 messages, 16 SMTP sessions
 * into one mailbox). Every attempt therefore holds an advisory lock on the lane until it ends:
 * the first CONCURRENT_ATTEMPTS attempts share it (taken by the transaction's first statement,
 * released by COMMIT/ROLLBACK), a later attempt holds it alone. That one takes it before BEGIN
 * (session-level), so it waits for the running attempts to end, new ones queue behind it, and its
 * snapshot is taken only once it holds the lane: no concurrent serializable transaction is left
 * for it to conflict with, and it commits (unless it deadlocks on a row lock with a
 * non-serializable statement: then it is run again). Inside its transaction it re-takes the lock
 * transaction-scoped and drops the session-level one, so the lock ends with the transaction
 * whatever happens to the client (an open transaction of a vanished client is ended by
 * idle_in_transaction_session_timeout). A shared attempt that waited behind it took its snapshot
 * before that commit and may have to run again: the price of the guarantee, paid only under
 * contention.
 *
 * `options.isolation: 'read committed'` (Isolation above) runs the attempts at READ COMMITTED,
 * in the same lane; such a transaction is re-run only after a deadlock. Attempts, re-runs and
 * serial-lane entries are counted per kind (withTransactionKind, transactionCounts).
 */
export async function runTransaction<T>(
  db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>, options: CommitSync | TransactionOptions = 'inline',
): Promise<T> {
  const { commit = 'inline', isolation = 'serializable' } = typeof options === 'string' ? { commit: options } : options;
  const driver = driverOf.get(db);
  const direct = directRoots.get(db);
  const body = async (trx: Transaction<Database>) => {
    // The transaction's own statements may skip kysely's executor (directStatements below).
    if (direct) directTxs.set(trx, direct);
    try {
      return await (driver && checkedChains ? checked(driver, checkedChains, () => fn(trx)) : fn(trx));
    } finally {
      directTxs.delete(trx);
    }
  };
  if (!driver || driver.dialect === 'sqlite') {
    const gate = writeGates.get(db);
    const wal = walSyncs.get(db);
    // Another thread may write this file too (db/queue-writer.ts): wait for it here, without
    // blocking, rather than in SQLite's busy handler, which would put the whole thread to sleep.
    // The gate covers the transaction only; the WAL flush of `off-thread` happens after it.
    if (gate) await gate.acquire();
    let value: T;
    try {
      if (commit === 'inline' || !wal) return await db.transaction().execute(body);
      // synchronous is a property of the connection and SQLite refuses to change it inside a
      // transaction: it is lowered around this one transaction, on the connection held for it.
      value = await db.connection().execute(async (conn) => {
        await sql`PRAGMA synchronous = NORMAL`.execute(conn);
        try {
          return await conn.transaction().execute(body);
        } finally {
          await sql`PRAGMA synchronous = FULL`.execute(conn);
        }
      });
    } finally {
      gate?.release();
    }
    if (commit === 'off-thread') await wal();
    return value;
  }
  const pgBody = commit === 'none'
    ? async (trx: Transaction<Database>) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      return body(trx);
    }
    : body;
  const counts = countsFor(db);
  counts.transactions++;
  for (let attempt = 1; ; attempt++) {
    const alone = attempt > CONCURRENT_ATTEMPTS;
    if (alone) counts.serialLane++;
    try {
      if (!alone) {
        return await db.transaction().setIsolationLevel(isolation).execute(async (trx) => {
          await sql`select pg_advisory_xact_lock_shared(${SERIAL_LANE_KEY})`.execute(trx);
          return pgBody(trx);
        });
      }
      return await db.connection().execute(async (conn) => {
        await sql`select pg_advisory_lock(${SERIAL_LANE_KEY})`.execute(conn);
        let sessionLock = true;
        try {
          return await conn.transaction().setIsolationLevel(isolation).execute(async (trx) => {
            await sql`select pg_advisory_xact_lock(${SERIAL_LANE_KEY})`.execute(trx);
            await sql`select pg_advisory_unlock(${SERIAL_LANE_KEY})`.execute(trx);
            sessionLock = false;
            return pgBody(trx);
          });
        } finally {
          if (sessionLock) await sql`select pg_advisory_unlock(${SERIAL_LANE_KEY})`.execute(conn);
        }
      });
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === '40001') counts.serializationFailures++;
      else if (code === '40P01') counts.deadlocks++;
      if (!isRetryableConflict(err) || attempt >= MAX_TX_ATTEMPTS) {
        counts.failed++;
        throw err;
      }
      // Jittered backoff so the transactions that collided do not collide again in lockstep.
      if (!alone) await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
    }
  }
}

/** A write lock shared with another thread writing the same SQLite file (db/queue-writer.ts). */
export interface WriteGate {
  acquire(): Promise<void>;
  release(): void;
  /** Whether the other thread waits for the lock now (it is held here). */
  contended?(): boolean;
}
const writeGates = new WeakMap<object, WriteGate>();

/**
 * Whether another thread's writer waits for the write lock this connection's transaction holds
 * (SQLite with the inbound queue's writer: its acknowledgements wait). A transaction made of
 * independent units (the group commit, services/context.ts) commits early when it does. Always
 * false without a gate (PostgreSQL, no writer thread).
 */
export function writeLockWanted(db: Kysely<Database>): boolean {
  return writeGates.get(db)?.contended?.() ?? false;
}

/** Transactions of `db` take `gate` first (null: no longer). */
export function setWriteGate(db: Kysely<Database>, gate: WriteGate | null): void {
  const counted = gate ? new MainThreadGate(gate) : null;
  if (counted) writeGates.set(db, counted);
  else writeGates.delete(db);
  const driver = driverOf.get(db);
  if (driver) driver.gate = counted;
}

/** MAILAGENT_CHECK_TX=1: run a transaction's callback with its chain marked (see Holding). */
async function checked<T>(driver: ReentrantDriver, chains: AsyncLocalStorage<readonly Holding[]>, fn: () => Promise<T>): Promise<T> {
  const h: Holding = { driver, live: true };
  try {
    return await chains.run([...(chains.getStore() ?? []), h], fn);
  } finally {
    h.live = false;
  }
}

/**
 * Whether concurrent write units are best committed together in one transaction (group
 * commit). SQLite: yes, one fsync per batch instead of one per unit, and writers are serialised
 * anyway. PostgreSQL: no, concurrent transactions on the pool already share WAL flushes, and
 * one transaction would serialise units that can run side by side.
 */
export function batchesCommits(db: Kysely<Database>): boolean {
  return dialectOf(db) === 'sqlite';
}

/**
 * Whether several daemons may be working on this store at once (PostgreSQL): then state that
 * must hold across them (rate windows) lives in the database, not in one process's memory. A
 * SQLite file belongs to one daemon.
 */
export function isSharedStore(db: Kysely<Database>): boolean {
  return dialectOf(db) === 'postgres';
}

const tableMarks = new WeakMap<object, (tables: readonly string[]) => string | null>();

/**
 * SQLite only: a value that moves whenever one of `tables` may have been written — by any
 * statement of this connection that writes one of them (an INSERT/UPDATE/DELETE naming it, or any
 * statement whose target cannot be read off its text: DDL, ROLLBACK, raw SQL; see writeTargets),
 * at once; or by another connection or process, from the next event-loop turn on (see
 * OtherConnections). So a cache of workspaces, agents or webhook endpoints survives the sends
 * and inbound mail that never write those tables. null on PostgreSQL (several daemons write the
 * same store and nothing tells this one: nothing is cached there).
 */
export function tableMark(db: Kysely<Database>, tables: readonly string[]): string | null {
  // null also inside a transaction that has written one of `tables` (see WriteEpochs).
  return tableMarks.get(db)?.(tables) ?? null;
}

/**
 * Per-table write counters of one connection ('*' counts statements that may write any table),
 * and what the open transaction has written so far: a read inside a transaction that wrote a
 * table sees rows that may still be rolled back, so no mark is given for that table until it ends.
 */
class WriteEpochs {
  private readonly byTable = new Map<string, number>();
  private any = 0;
  private readonly targets = new Map<string, string | null>();
  /** Tables written by the open transaction; null outside one. */
  private txWrites: Set<string> | null = null;
  /** Statements that may have written, in all (the checkpointer looks whether it moved). */
  writes = 0;
  /** data_version as read inside the open transaction once it has written (see tableMark). */
  txVersion: number | undefined = undefined;

  holdsWriteLock(): boolean {
    return !!this.txWrites?.size;
  }

  /** Note a statement about to run (called for every statement the connection prepares). */
  note(sql: string): void {
    let target = this.targets.get(sql);
    if (target === undefined) {
      target = writeTargets(sql);
      if (this.targets.size >= 2000) this.targets.clear();
      this.targets.set(sql, target);
    }
    if (target === null) return;
    if (target === BEGIN || target === END) {
      this.txWrites = target === BEGIN ? new Set() : null;
      this.txVersion = undefined;
      return;
    }
    this.writes++;
    if (target === '*' || target === ROLLBACK) this.any++;
    else this.byTable.set(target, (this.byTable.get(target) ?? 0) + 1);
    if (target === ROLLBACK) {
      this.txWrites = null;
      this.txVersion = undefined;
    } else this.txWrites?.add(target);
  }

  mark(tables: readonly string[]): string | null {
    if (this.txWrites && (this.txWrites.has('*') || tables.some((t) => this.txWrites!.has(t)))) return null;
    let m = String(this.any);
    for (const t of tables) m += `:${this.byTable.get(t) ?? 0}`;
    return m;
  }
}

const BEGIN = ' begin';
const END = ' end';
const ROLLBACK = ' rollback';

/**
 * Which table a statement writes: null for statements that write nothing (SELECT, SAVEPOINT,
 * RELEASE, PRAGMA), the table for a plain INSERT/UPDATE/DELETE, BEGIN/END/ROLLBACK for the
 * transaction's bounds, '*' for anything else (`rollback to` undoes writes to any table; DDL,
 * CTEs, raw SQL). Triggers write only the
 * search tables (migration 0011) and no foreign key cascades, so a write to one table changes no
 * other table a cache keeps.
 */
function writeTargets(sql: string): string | null {
  const head = sql.trimStart().slice(0, 200);
  if (/^begin\b/i.test(head)) return BEGIN;
  if (/^(commit|end)\b/i.test(head)) return END;
  // A whole transaction rolled back (not `rollback to savepoint`, which leaves it open: '*').
  if (/^rollback\s*(transaction\s*)?;?\s*$/i.test(head)) return ROLLBACK;
  // PRAGMAs set connection state (synchronous around an off-thread commit) or read; none here
  // changes a row.
  if (/^(select|savepoint|release|pragma)\b/i.test(head)) return null;
  const m = /^(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+(?:"(\w+)"|(\w+))/i.exec(head);
  return m ? (m[1] ?? m[2]).toLowerCase() : '*';
}

/**
 * Whether `db` is a transaction (a service's tx.db): work that needs the database free (waiting
 * for inbound processing, the search index's catch-up) must not wait from inside one. Under
 * MAILAGENT_CHECK_TX=1, the root db handed over from inside a transaction throws (see Holding).
 */
export function inTransactionChain(db: Kysely<Database>): boolean {
  if (db.isTransaction) return true;
  assertOutsideTransaction(db, 'the root db handed to work that must not run inside a transaction');
  return false;
}

/**
 * What other connections (the queue writer's thread, `mailagent admin`, another process) have
 * committed, as tableMark sees it. Two refinements over reading `PRAGMA data_version` per call:
 *
 * - Once per event-loop turn: the first look of a turn (db/shm-watch.ts: a pread of the WAL-index
 *   header, a syscall that costs ~8 µs in some sandboxes, then data_version if it moved) holds for
 *   every request handled in the same turn; it is taken again in the next turn. So a commit by
 *   another connection is seen by every request that arrives after it, bar one read in the very
 *   turn it lands in (the turn's requests were already readable when it began).
 * - Per table where the schema keeps a version (migration 0026: triggers count every row any
 *   connection writes to a cached table): when data_version moved, the versions are read again
 *   and a mark moves only if one of its tables' versions did. The queue writer's commits (request
 *   log, inbound queue: several a second under load) no longer drop the workspace, agent and
 *   endpoint caches. A table without a version falls back to data_version itself.
 */
class OtherConnections {
  private turnVersion: number | undefined;
  private versions = new Map<string, number>();
  private versionsAt: number | undefined;
  private readVersions: BetterSqlite3.Statement | null = null;
  private readonly endTurn = () => {
    this.turnVersion = undefined;
  };

  constructor(private readonly sqlite: BetterSqlite3.Database, private readonly dataVersion: () => number) {}

  mark(tables: readonly string[]): string {
    let dv = this.turnVersion;
    if (dv === undefined) {
      dv = this.turnVersion = this.dataVersion();
      setImmediate(this.endTurn);
    }
    // data_version first, then the versions: a commit landing between the two reads leaves
    // versions newer than `dv`, and the next turn's data_version differs, so they are read again.
    if (this.versionsAt !== dv) {
      this.versions = this.readTableVersions();
      this.versionsAt = dv;
    }
    let out = 'v';
    for (const t of tables) {
      const v = this.versions.get(t);
      if (v === undefined) return String(dv);
      out += `.${v}`;
    }
    return out;
  }

  private readTableVersions(): Map<string, number> {
    try {
      this.readVersions ??= this.sqlite.prepare('select table_name, version from table_versions').raw();
      return new Map(this.readVersions.all() as [string, number][]);
    } catch {
      // Not migrated yet (the daemon opens the file before migrating it), or a bare database.
      this.readVersions = null;
      return new Map();
    }
  }
}

/** The raw connection and write epochs of each SQLite database opened here. */
const sqliteHandles = new WeakMap<object, { sqlite: BetterSqlite3.Database; file: string; epochs: WriteEpochs }>();

/**
 * The daemon's SQLite file: WAL checkpoints leave the main thread (db/checkpointer.ts). The main
 * connection stops checkpointing inside its COMMITs (wal_autocheckpoint=0) and a worker thread's
 * connection checkpoints whenever something was written; if that thread dies, automatic
 * checkpoints come back on the main connection. Stopped (and automatic checkpoints restored) by
 * opened.close(). A no-op on PostgreSQL and in-memory databases. Returns a reader of the thread's
 * V8 heap (/metrics), or null when no thread was started.
 */
export function checkpointOffThread(opened: OpenedDb): (() => Promise<ThreadHeap | null>) | null {
  const h = sqliteHandles.get(opened.db);
  if (!h || h.file === ':memory:') return null;
  const restore = () => {
    if (h.sqlite.open) h.sqlite.pragma('wal_autocheckpoint = 1000');
  };
  const cp = new Checkpointer(h.file, () => h.epochs.writes, restore);
  let closed = false;
  // The thread starts while the rest of the daemon boots; until it is up, the main connection
  // keeps checkpointing as before (a thread that cannot start leaves it so).
  void cp.ready().then(() => {
    if (!closed && h.sqlite.open) h.sqlite.pragma('wal_autocheckpoint = 0');
    // The search index's batches run on the same thread (db/search-index.ts).
    if (!closed) searchThreads.set(opened.db, (limit) => (cp.alive ? cp.indexSearch(limit) : null));
  }, () => undefined);
  const close = opened.close;
  opened.close = async () => {
    closed = true;
    searchThreads.delete(opened.db);
    await cp.close();
    restore();
    await close();
  };
  return () => cp.heap();
}

const searchThreads = new WeakMap<object, (limit: number) => Promise<number> | null>();

/**
 * SQLite with the checkpointer's thread running (checkpointOffThread): a batch of the search
 * index run there, on its own connection (db/search-index.ts). null otherwise, or once the thread
 * has died: the caller then runs the batch on the main connection.
 */
export function searchIndexThread(db: Kysely<Database>): ((limit: number) => Promise<number> | null) | null {
  return searchThreads.get(db) ?? null;
}

/**
 * SQLite: run fn while no other statement can write the file: the write gate (when another
 * thread writes it, setWriteGate) and then the main connection are held, as a transaction holds
 * them, so another connection (a worker thread's) can write in fn without anyone waiting in
 * SQLite's busy handler. The main thread's reads go on (WAL); its writes wait, without blocking.
 */
export async function withWriteLock<T>(db: Kysely<Database>, fn: () => Promise<T>): Promise<T> {
  const gate = writeGates.get(db);
  if (gate) await gate.acquire();
  try {
    return await db.connection().execute(() => fn());
  } finally {
    gate?.release();
  }
}

/** Open a SQLite file (a path) or whatever the spec names. */
export function openDatabase(spec: string | DatabaseSpec): OpenedDb {
  const s: DatabaseSpec = typeof spec === 'string' ? { kind: 'sqlite', file: spec } : spec;
  return s.kind === 'postgres' ? openPostgres(s) : openSqlite(s.file);
}

/** The main connection's page cache, KiB (docs/security.md → resource caps). */
export const SQLITE_CACHE_KIB = 8 * 1024;

/**
 * Every SQLite pragma lives here. synchronous=FULL is set explicitly: better-sqlite3's build
 * defaults WAL databases to NORMAL, and an SMTP 250 / HTTP 201 must mean the row is on disk.
 */
function openSqlite(file: string): OpenedDb {
  if (file !== ':memory:') {
    // 0700 data dir, 0600 database: SQLite gives the -wal/-shm/-journal files the database's mode.
    makePrivateDir(dirname(file));
    createPrivateFile(file);
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) tightenFile(f);
  }
  const sqlite = new BetterSqlite3(file);
  // A new database frees deleted pages in small steps (db/maintenance.ts reclaimSpace); this must
  // be set before the first table exists. Older files are converted by migration 0012.
  if (Number(sqlite.pragma('page_count', { simple: true })) === 0) sqlite.pragma('auto_vacuum = INCREMENTAL');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('temp_store = MEMORY');
  // The page cache is per connection and better-sqlite3 builds SQLite with a 16 MB default, all of
  // it resident once a long ingest has touched that many pages; 8 MB keeps the hot index pages of
  // a busy daemon (bench/README.md → Memory, round 2 session 3).
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  const pragmas = {
    journal_mode: String(sqlite.pragma('journal_mode', { simple: true })),
    synchronous: Number(sqlite.pragma('synchronous', { simple: true })),
    foreign_keys: Number(sqlite.pragma('foreign_keys', { simple: true })),
    busy_timeout: Number(sqlite.pragma('busy_timeout', { simple: true })),
  };
  const epochs = new WriteEpochs();
  const statements = cachingStatements(sqlite, epochs);
  const dialect = new ReentrantSqliteDialect({ database: statements });
  const db = new Kysely<Database>({ dialect });
  if (dialect.driver) driverOf.set(db, dialect.driver);
  sqliteHandles.set(db, { sqlite, file, epochs });
  directRoots.set(db, directRunner(sqlite, statements));
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const readDataVersion = () => dataVersion.get() as number;
  // data_version only when the WAL-index header says something was committed (db/shm-watch.ts).
  const shm = file === ':memory:' ? null : watchShm(file);
  const others = new OtherConnections(sqlite, shm ? () => shm.version(readDataVersion) : readDataVersion);
  tableMarks.set(db, (tables) => {
    const m = epochs.mark(tables);
    if (m === null) return null;
    // Once a transaction has written, this connection holds SQLite's write lock: no other
    // connection can commit until it ends, so data_version is read once for the rest of it (a
    // send's events look up webhook endpoints twice after its first insert).
    if (epochs.holdsWriteLock()) return `${(epochs.txVersion ??= dataVersion.get() as number)}:${m}`;
    return `${others.mark(tables)}:${m}`;
  });
  const wal = file === ':memory:' ? null : walSyncer(`${file}-wal`);
  if (wal) walSyncs.set(db, wal.sync);
  return {
    db, dialect: 'sqlite', file, pragmas,
    close: async () => {
      await db.destroy();
      await wal?.close();
      shm?.release();
    },
  };
}

/**
 * PostgreSQL: a pool per daemon. Durability is PostgreSQL's default synchronous_commit=on, so a
 * 250 / 201 still means committed (and on the replica too when the operator configures
 * synchronous replication). Counts come back as bigint, which pg hands over as strings: parsed
 * here to numbers, as SQLite returns them (no count comes near 2^53).
 */
function openPostgres(spec: Extract<DatabaseSpec, { kind: 'postgres' }>): OpenedDb {
  const pg = loadPg();
  const toNumber = (v: string) => Number(v);
  const pool = new pg.Pool({
    connectionString: spec.url,
    max: spec.poolSize,
    statement_timeout: spec.statementTimeoutMs || undefined,
    // A transaction left open by a stuck request must not hold row locks forever.
    idle_in_transaction_session_timeout: 60_000,
    // A full pool answers an error after this wait instead of queueing requests without bound.
    connectionTimeoutMillis: 30_000,
    application_name: 'mailagent',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC ? toNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client whose server connection dies emits 'error' on the pool; unhandled, it would
  // end the process. The next checkout simply gets a fresh connection.
  pool.on('error', () => {});
  countsKinds = true;
  const dialect = new ReentrantPostgresDialect({ pool });
  const db = new Kysely<Database>({ dialect });
  if (dialect.driver) driverOf.set(db, dialect.driver);
  return { db, dialect: 'postgres', file: null, pragmas: null, close: () => db.destroy() };
}

const walSyncs = new WeakMap<object, () => Promise<void>>();

/**
 * runTransaction with an `off-thread` commit, resolving once committed but before the flush:
 * `durable` resolves when the commit is on disk, or rejects (it may not be); nothing may be
 * acknowledged before. For the group commit (services/context.ts), which writes its next batch
 * while the previous one's flush runs. Without a WAL flush of its own (PostgreSQL, `:memory:`)
 * the commit is durable when this resolves.
 */
export async function runTransactionThenSync<T>(
  db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<{ value: T; durable: Promise<void> }> {
  const wal = walSyncs.get(db);
  const driver = driverOf.get(db);
  if (!wal || (driver && driver.dialect !== 'sqlite')) return { value: await runTransaction(db, fn, 'off-thread'), durable: Promise.resolve() };
  // `none` commits with synchronous=NORMAL and no flush; the flush asked for right after it
  // starts after the commit, so it covers it (walSyncer).
  const value = await runTransaction(db, fn, 'none');
  return { value, durable: wal() };
}

/**
 * fdatasync of the WAL file off the main thread (CommitSync `off-thread`). sync() resolves once
 * a flush that *started after the call* has finished, so everything committed before the call is
 * on disk; calls that arrive while a flush runs share the next one (group commit for fsyncs). A
 * failed flush rejects its callers: their commits may not be durable, and they must not be
 * acknowledged as if they were. The handle is opened on first use (the WAL exists once anything
 * has been committed in WAL mode) and kept: SQLite never deletes the WAL while this connection
 * is open, it only rewinds or truncates it (same file).
 */
function walSyncer(path: string): { sync: () => Promise<void>; close: () => Promise<void> } {
  let handle: Promise<FileHandle> | null = null;
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const flush = async (): Promise<void> => {
    handle ??= openFile(path, 'r');
    try {
      await (await handle).datasync();
    } catch (err) {
      handle = null; // reopen next time (an open that failed, or a handle gone bad)
      throw err;
    }
  };
  const start = (): Promise<void> => {
    const p = flush().finally(() => {
      if (running === p) running = null;
    });
    running = p;
    return p;
  };
  return {
    sync() {
      if (!running) return start();
      // A flush is running: it may have started before the caller's commit. Join the next one.
      queued ??= running.catch(() => {}).then(() => {
        queued = null;
        return start();
      });
      return queued;
    },
    async close() {
      await running?.catch(() => {});
      await queued?.catch(() => {});
      if (handle) await (await handle.catch(() => null))?.close();
    },
  };
}

/** Prepared statements kept per SQL text (kysely's SQLite driver prepares every query anew). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The database as kysely's driver sees it, with `prepare` answered from a small LRU cache (and
 * every statement noted in the connection's write epochs, for tableMark): the
 * same few hundred statements run on every request, and compiling them again each time was ~5%
 * of the inbound pipeline's CPU. A statement still being iterated (`busy`) is never handed out
 * twice; SQLite re-prepares cached statements itself after a schema change (sqlite3_prepare_v2).
 */
function cachingStatements(sqlite: BetterSqlite3.Database, epochs: WriteEpochs): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      // kysely's driver prepares every statement right before running it, synchronously: the
      // epoch moves before the write happens, never after a reader has looked.
      epochs.note(sql);
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
export async function migrationState(db: Kysely<Database>, list: Record<string, Migration> = migrations): Promise<{ applied: string[]; pending: string[] }> {
  const applied = (await hasTable(db, 'kysely_migration'))
    ? (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)).rows.map((r) => r.name)
    : [];
  const unknown = applied.filter((n) => !(n in list));
  if (unknown.length) throw new DatabaseTooNewError(unknown);
  return { applied, pending: Object.keys(list).filter((n) => !applied.includes(n)).sort() };
}

/**
 * Apply the pending migrations (db/migrator.ts: SQLite, each in its own transaction with its
 * record; PostgreSQL, all in one). Resolves with the names applied. On PostgreSQL the "C"
 * collation step runs inside each migration's `up`, in that transaction, so it is part of the
 * same all-or-nothing (before: it ran after the commit, and when it failed every migration was
 * recorded over a schema that could not be used).
 */
export async function migrate(db: Kysely<Database>, list: Record<string, Migration> = migrations): Promise<string[]> {
  await migrationState(db, list);
  const pg = dialectOf(db) === 'postgres';
  const applied = await runMigrations(db, list, pg ? { afterUp: binaryCollation } : {});
  // A database every migration of which was recorded before the step ran inside them (or whose
  // step failed then: a non-"C" default collation with triggers on text columns) is repaired here.
  if (pg) await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7420017)`.execute(trx);
    await binaryCollation(trx);
  });
  return applied;
}

/** The text columns of this schema's tables whose collation is not byte-wise ("C" or "POSIX"). */
export async function nonBinaryTextColumns(db: Kysely<any>): Promise<{ table_name: string; column_name: string }[]> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = current_schema() and c.data_type = 'text'
      and coalesce(c.collation_name, (select datcollate from pg_database where datname = current_database())) not in ('C', 'POSIX')
    order by c.table_name, c.ordinal_position`.execute(db);
  return rows;
}

/**
 * What makes a migrated schema unusable though every migration is recorded, as far as it can be
 * told cheaply: on PostgreSQL, text columns left outside the "C" collation (the collation step
 * did not complete: before it ran inside the migrations' transaction, a failure there left every
 * migration recorded). Checking that each recorded migration's objects really exist would mean
 * restating every migration's DDL; the transaction makes a recorded migration a committed one.
 * `mailagent doctor` reports these; the next `serve` or `init` repairs them (migrate()).
 */
export async function schemaProblems(db: Kysely<Database>): Promise<string[]> {
  if (dialectOf(db) !== 'postgres') return [];
  const cols = await nonBinaryTextColumns(db);
  return cols.length
    ? [`${cols.length} text column(s) not in the "C" collation (${cols.slice(0, 3).map((c) => `${c.table_name}.${c.column_name}`).join(', ')}${cols.length > 3 ? ', …' : ''}): the step after the migrations did not complete`]
    : [];
}

/**
 * Text compares byte-wise, as in SQLite: ids and ISO timestamps are keyset cursors and must sort
 * the same on both engines, and a database created with a linguistic default collation
 * (en_US.UTF-8, Debian's C.UTF-8: case- and punctuation-insensitive first pass) would not. Any
 * text column not already "C" is switched to it (a no-op on a database created with
 * LC_COLLATE=C). PostgreSQL refuses to change the type of a column a trigger names (`UPDATE OF
 * col`, the search triggers of migration 0011): the table's own triggers are dropped and created
 * again from their definitions (pg_get_triggerdef) around its ALTERs. Runs in `trx`, the
 * migrations' transaction (or the repair pass's, under an advisory lock: two daemons starting
 * together do it once).
 */
async function binaryCollation(trx: Kysely<any>): Promise<void> {
  const cols = await nonBinaryTextColumns(trx);
  const byTable = new Map<string, string[]>();
  for (const c of cols) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  for (const [table, columns] of byTable) {
    const { rows: triggers } = await sql<{ name: string; def: string }>`
      select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger
      where tgrelid = quote_ident(${table})::regclass and not tgisinternal order by tgname`.execute(trx);
    for (const t of triggers) await sql`drop trigger ${sql.id(t.name)} on ${sql.id(table)}`.execute(trx);
    for (const c of columns) await sql`alter table ${sql.id(table)} alter column ${sql.id(c)} type text collate "C"`.execute(trx);
    for (const t of triggers) await sql.raw(t.def).execute(trx);
  }
}

/** True when the database already holds a workspace (the data dir is initialised). */
export async function isInitialised(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
