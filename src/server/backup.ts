import { existsSync, statSync } from 'node:fs';
import { makePrivateDir } from '../shared/private-fs.js';
import { dirname, join, resolve } from 'node:path';
import { backupDatabase, databaseInUse, inspectBackup, restoreDatabase, type BackupResult } from '../db/maintenance.js';
import { migrations } from '../db/migrations/index.js';
import { runningDaemon } from './data-lock.js';
import { describeDrift, fileSchemaDrift } from '../db/migrator.js';
import { wholePreMigrateCopy } from './upgrade.js';

/** An operator mistake the CLI reports as a usage-level error (exit 1 with this message). */
export class OpsError extends Error {}

/**
 * `mailagent backup FILE`: a consistent copy of the data dir's database while a daemon may be
 * running on it (SQLite's online backup API, db/maintenance.ts). Mail keeps flowing meanwhile.
 */
export async function backupDataDir(dbFile: string, dest: string): Promise<BackupResult & { migrations: string[]; createdDir: string | null }> {
  if (!existsSync(dbFile)) throw new OpsError(`${dbFile} does not exist: nothing to back up (is --data-dir right?).`);
  const target = resolve(dest);
  if (existsSync(target) && statSync(target).isDirectory()) throw new OpsError(`${target} is a directory; give a file name (for example ${join(target, 'mailagent.db')}).`);
  // Every file of the live database: writing a backup over its WAL or shared-memory file would
  // corrupt the database a daemon is using (the copy replaces the target atomically).
  const live = resolve(dbFile);
  const own = [live, `${live}-wal`, `${live}-shm`, `${live}-journal`, join(dirname(live), 'mailagent.lock')];
  if (own.includes(target)) throw new OpsError(`${target} is a file of the live database; write the backup elsewhere, for example ${join(dirname(live), 'backups', 'mailagent-copy.db')}.`);
  // Missing directories are made (0700), and said: a mistyped path must not pass unseen.
  const createdDir = makePrivateDir(dirname(target)) ?? null;
  const r = await backupDatabase(dbFile, target);
  return { ...r, migrations: inspectBackup(target).migrations, createdDir };
}

/**
 * `mailagent restore FILE --data-dir D`: put a backup in place. Refused while anything holds the
 * target database open (a running daemon), when the file is not a mailagent database, or when it
 * comes from a newer mailagent than this one.
 */
export async function restoreDataDir(backupFile: string, dataDir: string, dbFile: string, opts: { force: boolean }): Promise<{ file: string; migrations: string[]; replaced: boolean; previous: string | null }> {
  const src = resolve(backupFile);
  if (!existsSync(src)) throw new OpsError(`${src} does not exist.`);
  let info: ReturnType<typeof inspectBackup>;
  try {
    info = inspectBackup(src);
  } catch (err) {
    throw new OpsError(`${src} is not an SQLite database (${(err as Error).message}).`);
  }
  if (info.check !== 'ok') throw new OpsError(`${src} is damaged: ${info.check}.`);
  if (!info.migrations.length) throw new OpsError(`${src} is not a mailagent database (no migrations table).`);
  const unknown = info.migrations.filter((m) => !(m in migrations));
  if (unknown.length) throw new OpsError(`${src} comes from a newer mailagent (migrations ${unknown.join(', ')}); restore it with that version.`);
  // A copy taken from a half-migrated file (by a start of an older mailagent that failed on it)
  // would fail every start once restored.
  const drift = await fileSchemaDrift(src, migrations);
  if (drift) {
    const good = await wholePreMigrateCopy(dataDir);
    throw new OpsError(`${src} is half-migrated itself (${describeDrift(drift)}); it would fail every start. `
      + (good ? `Restore ${good} instead (the newest whole pre-migrate copy).` : 'Restore an older copy (the one taken before the interrupted upgrade, or your own newest backup).'));
  }
  const replaced = existsSync(dbFile);
  if (replaced && databaseInUse(dbFile)) {
    // Name the daemon when its lock says which (serve and doctor do); a guess only when no lock does.
    const holder = runningDaemon(dataDir);
    const who = holder ? `mailagent PID ${holder.pid}${holder.api ? ` (API ${holder.api})` : ''} is running on ${dataDir}` : `another process has it open; a mailagent daemon on ${dataDir}?`;
    throw new OpsError(`${dbFile} is in use (${who}); stop it first (systemctl stop mailagent), then restore.`);
  }
  if (replaced && !opts.force) throw new OpsError(`${dbFile} exists; add --yes to replace it (a copy of it is kept in ${join(dataDir, 'backups')}/pre-restore-<time>.db).`);
  makePrivateDir(dataDir);
  // The database being replaced is kept, as a start keeps one before migrating: a restore of the
  // wrong file must be undoable (<data dir>/backups/pre-restore-<time>.db).
  let previous: string | null = null;
  if (replaced) {
    const dir = join(dataDir, 'backups');
    makePrivateDir(dir);
    previous = (await backupDatabase(dbFile, join(dir, `pre-restore-${new Date().toISOString().replace(/[:.]/g, '-')}.db`))).file;
  }
  restoreDatabase(src, dbFile);
  return { file: dbFile, migrations: info.migrations, replaced, previous };
}
