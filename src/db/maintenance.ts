import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { createPrivateFile, PRIVATE_FILE_MODE } from '../shared/private-fs.js';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Database } from './schema.js';
import { dialectOf } from './dialect.js';
import { runTransaction } from './open.js';

/**
 * The SQLite-specific operations an operator needs (space reclaim, file size, online backup,
 * restore, "is this file in use"), kept behind plain functions, each with its PostgreSQL
 * counterpart (implemented here where it takes a Kysely) or "not applicable":
 *   databaseSize      → pg_database_size() (free and WAL: 0, the server manages both)
 *   reclaimSpace      → not applicable, returns 0 (autovacuum returns space to the table; VACUUM FULL is an offline job)
 *   backupDatabase    → pg_dump / pg_basebackup (outside mailagent; the CLI refuses and says so)
 *   restoreDatabase   → pg_restore (outside mailagent; the CLI refuses and says so)
 *   databaseInUse     → not applicable (a server, many clients by design)
 *   checkWritable     → the same heartbeat write works unchanged
 */

export interface DatabaseSize {
  /** Bytes of the main file (page_count × page_size). */
  bytes: number;
  /** Bytes on the freelist: deleted data not yet returned to the filesystem. */
  freeBytes: number;
  /** Bytes of the write-ahead log beside it. */
  walBytes: number;
}

export async function databaseSize(db: Kysely<Database>, file: string | null): Promise<DatabaseSize> {
  if (dialectOf(db) === 'postgres') {
    const { rows } = await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(db);
    return { bytes: Number(rows[0].bytes), freeBytes: 0, walBytes: 0 };
  }
  const one = async (pragma: string) => Number(Object.values((await sql.raw(`PRAGMA ${pragma}`).execute(db)).rows[0] as object)[0]);
  const pageSize = await one('page_size');
  const bytes = (await one('page_count')) * pageSize;
  const freeBytes = (await one('freelist_count')) * pageSize;
  let walBytes = 0;
  if (file && file !== ':memory:') {
    try {
      walBytes = statSync(file + '-wal').size;
    } catch {
      /* no WAL file right now */
    }
  }
  return { bytes, freeBytes, walBytes };
}

/**
 * Pages one reclaimSpace step frees by default (256 KiB with 4 KiB pages). An incremental vacuum
 * moves the pages at the end of the file into the freed ones, on the calling thread, in one
 * transaction of one statement per page (no event-loop turn between them): measured 26–51 ms for
 * 2,000 pages and 4–8 ms (outliers far more under load) for 256, so a step of 64 keeps each turn
 * of the main thread short; the retention worker pauses between steps.
 */
export const VACUUM_STEP_PAGES = 64;

/**
 * Return up to maxPages free pages to the filesystem (the database runs with
 * auto_vacuum=INCREMENTAL, set by migration 0012). Each call is one short write transaction, so
 * the retention worker calls it in small steps between which SMTP and the API write freely; its
 * commit is flushed off the main thread (CommitSync 'off-thread'). Resolves with the pages freed.
 * A database still in auto_vacuum=NONE frees nothing.
 */
export async function reclaimSpace(db: Kysely<Database>, maxPages: number): Promise<number> {
  if (dialectOf(db) === 'postgres') return 0; // autovacuum's job
  const before = Number(Object.values((await sql.raw('PRAGMA freelist_count').execute(db)).rows[0] as object)[0]);
  if (before === 0) return 0;
  // One page per statement: the driver steps a statement once (better-sqlite3 `run()`), and
  // SQLite's incremental_vacuum frees one page per step whatever its argument — so
  // `incremental_vacuum(N)` through the driver freed a single page per call.
  const pages = Math.min(before, Math.max(1, Math.floor(maxPages)));
  await runTransaction(db, async (trx) => {
    for (let i = 0; i < pages; i++) await sql.raw('PRAGMA incremental_vacuum(1)').execute(trx);
  }, 'off-thread');
  const after = Number(Object.values((await sql.raw('PRAGMA freelist_count').execute(db)).rows[0] as object)[0]);
  return Math.max(0, before - after);
}

/** 0 none, 1 full, 2 incremental (PRAGMA auto_vacuum); null on PostgreSQL (no such mode). */
export async function autoVacuumMode(db: Kysely<Database>): Promise<number | null> {
  if (dialectOf(db) === 'postgres') return null;
  return Number(Object.values((await sql.raw('PRAGMA auto_vacuum').execute(db)).rows[0] as object)[0]);
}

/**
 * Readiness: can the database take a write right now? One tiny upsert (a committed transaction,
 * so a full disk, a read-only file or a lock held too long all fail it).
 */
export async function checkWritable(db: Kysely<Database>, at: string): Promise<void> {
  await db.insertInto('instance_settings').values({ name: 'readiness_heartbeat', value: at, created_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: at }))
    .execute();
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  /** 'ok' from PRAGMA quick_check on the copy. */
  check: string;
}

/**
 * A consistent copy of a live database with SQLite's online backup API (better-sqlite3's
 * backup()), without stopping writers. The first step copies 100 pages; later steps copy the
 * whole remainder at once: a step runs in one read transaction (in WAL mode, readers never
 * block writers), so the copy is a snapshot and cannot be restarted for ever by a steady write
 * load, which many small steps would be (SQLite restarts a backup when another connection
 * writes between steps). The copy is checked (quick_check) before this resolves.
 */
export async function backupDatabase(srcFile: string, destFile: string): Promise<BackupResult> {
  if (!existsSync(srcFile)) throw new Error(`${srcFile} does not exist`);
  const src = new BetterSqlite3(srcFile, { fileMustExist: true });
  const tmp = `${destFile}.partial-${process.pid}`;
  try {
    createPrivateFile(tmp); // a backup holds everything the database does: owner-only (0600)
    src.pragma('busy_timeout = 5000');
    const r = await src.backup(tmp, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
    const copy = new BetterSqlite3(tmp);
    let check: string;
    try {
      // The copy is a plain file: a rollback journal, not WAL, so it is one self-contained file.
      copy.pragma('journal_mode = DELETE');
      check = String(copy.pragma('quick_check', { simple: true }));
    } finally {
      copy.close();
    }
    if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${check}`);
    fsyncFile(tmp);
    renameSync(tmp, destFile);
    return { file: destFile, bytes: statSync(destFile).size, pages: r.totalPages, check };
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    src.close();
  }
}

/**
 * Is another process holding this database open? A daemon keeps its connection open for its
 * whole life; asking for an exclusive lock (locking_mode=EXCLUSIVE + BEGIN EXCLUSIVE, no busy
 * wait) fails while any other connection has the file open in WAL mode.
 */
export function databaseInUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const probe = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('COMMIT');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY' || (err as { code?: string }).code === 'SQLITE_LOCKED') return true;
    throw err;
  } finally {
    probe.close();
  }
}

export interface BackupInfo {
  /** Migrations applied in the backup, in order. */
  migrations: string[];
  check: string;
}

/** Open a backup read-only and say what it is (mailagent's migrations table, quick_check). */
export function inspectBackup(file: string): BackupInfo {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const check = String(db.pragma('quick_check', { simple: true }));
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
    const migrations = hasTable ? (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((r) => r.name) : [];
    return { migrations, check };
  } finally {
    db.close();
  }
}

/**
 * Put a backup in place as destFile. The caller has checked that nothing uses destFile. The copy
 * is written beside it and renamed over it (atomic on one filesystem); the old WAL and
 * shared-memory files belong to the replaced database and are removed first, or SQLite would
 * replay the old log onto the restored file.
 */
export function restoreDatabase(backupFile: string, destFile: string): void {
  const tmp = `${destFile}.restoring-${process.pid}`;
  createPrivateFile(tmp);
  copyFileSync(backupFile, tmp);
  chmodSync(tmp, PRIVATE_FILE_MODE); // copyFile may carry the backup's own mode
  fsyncFile(tmp);
  rmSync(destFile + '-wal', { force: true });
  rmSync(destFile + '-shm', { force: true });
  rmSync(destFile + '-journal', { force: true });
  renameSync(tmp, destFile);
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
