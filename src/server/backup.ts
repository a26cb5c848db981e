import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { backupDatabase, databaseInUse, inspectBackup, restoreDatabase, type BackupResult } from '../db/maintenance.js';
import { migrations } from '../db/migrations/index.js';

/** An operator mistake the CLI reports as a usage-level error (exit 1 with this message). */
export class OpsError extends Error {}

/**
 * `mailagent backup FILE`: a consistent copy of the data dir's database while a daemon may be
 * running on it (SQLite's online backup API, db/maintenance.ts). Mail keeps flowing meanwhile.
 */
export async function backupDataDir(dbFile: string, dest: string): Promise<BackupResult & { migrations: string[] }> {
  if (!existsSync(dbFile)) throw new OpsError(`${dbFile} does not exist: nothing to back up (is --data-dir right?).`);
  const target = resolve(dest);
  if (existsSync(target) && statSync(target).isDirectory()) throw new OpsError(`${target} is a directory; give a file name (for example ${join(target, 'mailagent.db')}).`);
  if (resolve(dbFile) === target) throw new OpsError('the backup file must not be the database itself.');
  mkdirSync(dirname(target), { recursive: true });
  const r = await backupDatabase(dbFile, target);
  return { ...r, migrations: inspectBackup(target).migrations };
}

/**
 * `mailagent restore FILE --data-dir D`: put a backup in place. Refused while anything holds the
 * target database open (a running daemon), when the file is not a mailagent database, or when it
 * comes from a newer mailagent than this one.
 */
export function restoreDataDir(backupFile: string, dataDir: string, dbFile: string, opts: { force: boolean }): { file: string; migrations: string[]; replaced: boolean } {
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
  const replaced = existsSync(dbFile);
  if (replaced && databaseInUse(dbFile)) {
    throw new OpsError(`${dbFile} is in use (a mailagent daemon is running on ${dataDir}?); stop it first (systemctl stop mailagent), then restore.`);
  }
  if (replaced && !opts.force) throw new OpsError(`${dbFile} exists; add --yes to replace it (take a backup of it first if you may need it).`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  restoreDatabase(src, dbFile);
  return { file: dbFile, migrations: info.migrations, replaced };
}
