import { makePrivateDir } from '../shared/private-fs.js';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { migrate, migrationState, type OpenedDb } from '../db/open.js';
import { backupDatabase, inspectBackup } from '../db/maintenance.js';
import { describeDrift, fileSchemaDrift, schemaDrift, type SchemaDrift } from '../db/migrator.js';
import { migrations } from '../db/migrations/index.js';

export interface UpgradeResult {
  /** Migrations applied by this start. */
  applied: string[];
  /** The copy taken before applying them, if any. */
  backup: string | null;
  /** An upgrade of a database that had migrations already (not the creation of a new one). */
  upgraded: boolean;
}

/**
 * A SQLite file left half-migrated (db/migrator.ts schemaDrift): the start refuses it before
 * anything touches it (no migration, no new pre-migrate copy that would be half-migrated too and
 * newer than the good one), saying what happened and which copy to restore.
 */
export class HalfMigratedError extends Error {
  constructor(readonly detail: string, readonly fix: string) {
    super(`${detail}. Nothing was changed. To recover: ${fix}`);
    this.name = 'HalfMigratedError';
  }
}

/** A pre-migrate copy in <data dir>/backups, newest first, and whether it is whole. */
interface Copy {
  file: string;
  migrations: string[];
  /** Why it must not be restored (damaged, half-migrated itself), or null. */
  bad: string | null;
}

async function preMigrateCopies(dataDir: string): Promise<Copy[]> {
  const dir = join(dataDir, 'backups');
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((n) => /^pre-migrate-.*\.db$/.test(n)).sort().reverse();
  const out: Copy[] = [];
  for (const n of names) {
    const file = join(dir, n);
    try {
      const info = inspectBackup(file);
      if (info.check !== 'ok') {
        out.push({ file, migrations: info.migrations, bad: `damaged (${info.check})` });
        continue;
      }
      const drift = await fileSchemaDrift(file, migrations);
      out.push({ file, migrations: info.migrations, bad: drift ? `half-migrated too: ${describeDrift(drift)}` : null });
    } catch (err) {
      out.push({ file, migrations: [], bad: (err as Error).message });
    }
  }
  return out;
}

/** The newest pre-migrate copy in <data dir>/backups that is whole (restorable), or null. */
export async function wholePreMigrateCopy(dataDir: string): Promise<string | null> {
  return (await preMigrateCopies(dataDir)).find((c) => !c.bad && c.migrations.every((m) => m in migrations))?.file ?? null;
}

/**
 * What happened to a file whose schema drifted from its recorded migrations, and what to do:
 * the `detail` and `fix` that `serve` (HalfMigratedError) and `doctor` print.
 */
export async function driftAdvice(file: string, dataDir: string, drift: SchemaDrift): Promise<{ detail: string; fix: string }> {
  const detail = `${file} is half-migrated: ${describeDrift(drift)}`;
  if (!drift.applied.length) {
    // No migration recorded: the first start was killed while creating the file. No daemon ever
    // served from it (migrations run before the listeners open), so it holds no mail.
    return { detail, fix: `the database was never completely created and holds no mail: with mailagent stopped, delete ${file} and its -wal and -shm files, then start again` };
  }
  const copies = await preMigrateCopies(dataDir);
  const good = copies.find((c) => !c.bad && c.migrations.every((m) => m in migrations));
  const skipped = copies.filter((c) => c.bad && (!good || c.file > good.file)).map((c) => basename(c.file));
  const not = skipped.length ? ` (not the newer ${skipped.join(', ')}: ${skipped.length > 1 ? 'they are' : 'it is'} half-migrated or damaged)` : '';
  if (!good) {
    return {
      detail,
      fix: `no whole pre-migrate copy is in ${join(dataDir, 'backups')}${not}: with mailagent stopped, restore your newest backup (mailagent restore FILE --data-dir ${dataDir} --yes), then start again`,
    };
  }
  const same = good.migrations.length === drift.applied.length && good.migrations.every((m, i) => m === drift.applied[i]);
  const when = same
    ? 'it was taken at the start of the interrupted upgrade, and no daemon has served from this file since, so it holds everything'
    : `it is from an earlier upgrade (${good.migrations.length} migrations; this file has ${drift.applied.length}): mail stored after it was taken is not in it, so restore a newer backup of yours instead if you have one`;
  return {
    detail,
    fix: `with mailagent stopped, restore the copy taken before the upgrade, ${good.file}${not}: mailagent restore ${good.file} --data-dir ${dataDir} --yes; then start again (each migration now runs in one transaction). ${when[0].toUpperCase()}${when.slice(1)}`,
  };
}

/**
 * Migrations at start (issue #16: upgrades). A database written by a newer mailagent is refused
 * before anything touches it (DatabaseTooNewError names the unknown migrations), and so is a
 * SQLite file left half-migrated by an older mailagent (HalfMigratedError). When migrations
 * are pending on a database that already holds data, a consistent copy is taken first into
 * <data dir>/backups/pre-migrate-<time>.db (config backupBeforeMigrate, default on), so a failed
 * or unwanted upgrade can be undone with `mailagent restore`. Each migration commits whole or
 * not at all (db/migrator.ts): a start killed during one leaves the file as the previous
 * migration left it, and the next start carries on.
 */
export async function migrateWithBackup(opened: OpenedDb, opts: { dataDir: string; backupBeforeMigrate: boolean }): Promise<UpgradeResult> {
  const state = await migrationState(opened.db);
  const file = opened.file !== null && opened.file !== ':memory:' ? opened.file : null;
  if (state.pending.length && file) {
    const drift = await schemaDrift(opened.db, migrations);
    if (drift) {
      const advice = await driftAdvice(file, opts.dataDir, drift);
      throw new HalfMigratedError(advice.detail, advice.fix);
    }
  }
  let backup: string | null = null;
  if (state.pending.length && state.applied.length && opts.backupBeforeMigrate && file) {
    const dir = join(opts.dataDir, 'backups');
    makePrivateDir(dir);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    backup = (await backupDatabase(file, join(dir, `pre-migrate-${stamp}.db`))).file;
  }
  let applied: string[];
  try {
    applied = await migrate(opened.db);
  } catch (err) {
    if (backup && err instanceof Error) err.message += `. The database as it was before this start is kept in ${backup}`;
    throw err;
  }
  return { applied, backup, upgraded: state.applied.length > 0 && applied.length > 0 };
}
