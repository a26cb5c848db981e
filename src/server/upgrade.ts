import { makePrivateDir } from '../shared/private-fs.js';
import { join } from 'node:path';
import { migrate, migrationState, type OpenedDb } from '../db/open.js';
import { backupDatabase } from '../db/maintenance.js';

export interface UpgradeResult {
  /** Migrations applied by this start. */
  applied: string[];
  /** The copy taken before applying them, if any. */
  backup: string | null;
  /** An upgrade of a database that had migrations already (not the creation of a new one). */
  upgraded: boolean;
}

/**
 * Migrations at start (issue #16: upgrades). A database written by a newer mailagent is refused
 * before anything touches it (DatabaseTooNewError names the unknown migrations). When migrations
 * are pending on a database that already holds data, a consistent copy is taken first into
 * <data dir>/backups/pre-migrate-<time>.db (config backupBeforeMigrate, default on), so a failed
 * or unwanted upgrade can be undone with `mailagent restore`.
 */
export async function migrateWithBackup(opened: OpenedDb, opts: { dataDir: string; backupBeforeMigrate: boolean }): Promise<UpgradeResult> {
  const state = await migrationState(opened.db);
  let backup: string | null = null;
  if (state.pending.length && state.applied.length && opts.backupBeforeMigrate && opened.file !== null && opened.file !== ':memory:') {
    const dir = join(opts.dataDir, 'backups');
    makePrivateDir(dir);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    backup = (await backupDatabase(opened.file, join(dir, `pre-migrate-${stamp}.db`))).file;
  }
  const applied = await migrate(opened.db);
  return { applied, backup, upgraded: state.applied.length > 0 && applied.length > 0 };
}
