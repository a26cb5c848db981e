import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';
import { loadDataDirConfig } from './admin.js';

const DATA_DIR_HELP = 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)';

export function register(program: Command): void {
  const backup = program
    .command('backup')
    .description('Copy the database to FILE, consistently, while the daemon keeps running (SQLite online backup)')
    .argument('<file>', 'where to write the copy (a new file; replaced atomically if it exists)')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(run(backupAction));
  examples(backup, [
    'mailagent backup /var/backups/mailagent/mailagent-$(date +%F).db',
    'mailagent backup ./copy.db --data-dir ./data --json',
  ]);

  const restore = program
    .command('restore')
    .description('Put a backup in place as the data dir\'s database (refused while a daemon uses it)')
    .argument('<file>', 'a file written by `mailagent backup` (or a pre-migrate backup from <data dir>/backups)')
    .requiredOption('--data-dir <dir>', 'the data directory to restore into (created if missing)')
    .option('--yes', 'replace an existing database without asking (a copy of it is kept in <data dir>/backups/pre-restore-<time>.db)')
    .action(run(restoreAction));
  examples(restore, [
    'mailagent restore /var/backups/mailagent/mailagent-2026-11-24.db --data-dir /var/lib/mailagent --yes',
    'mailagent restore ./copy.db --data-dir ./data-restored',
  ]);
}

async function backupAction(ctx: CommandContext, file: string, opts: { dataDir?: string }): Promise<void> {
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  if (config.database.kind === 'postgres') {
    throw new CliError('this data dir uses PostgreSQL; `mailagent backup` copies SQLite files only. Back PostgreSQL up with its own tools, '
      + 'e.g. pg_dump --format=custom --file=mailagent.dump "$MAILAGENT_DATABASE_URL" (or pg_basebackup for the whole server); daemons may keep running.');
  }
  const { backupDataDir, OpsError } = await import('../../server/backup.js');
  try {
    const r = await backupDataDir(config.dbFile, file);
    ctx.out.result({ file: r.file, bytes: r.bytes, pages: r.pages, check: r.check, migrations: r.migrations, source: config.dbFile, created_dir: r.createdDir }, () => {
      if (r.createdDir) ctx.out.stderr.write(`Created ${r.createdDir} (it did not exist; mode 0700).\n`);
      ctx.out.success(`Backed up ${config.dbFile} to ${r.file} (${(r.bytes / 1024 / 1024).toFixed(1)} MiB, integrity ${r.check}).`);
    });
  } catch (err) {
    if (err instanceof OpsError) throw new CliError(err.message);
    throw err;
  }
}

async function restoreAction(ctx: CommandContext, file: string, opts: { dataDir: string; yes?: boolean }): Promise<void> {
  if (!opts.dataDir.trim()) throw new UsageError('--data-dir must not be empty.');
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  if (config.database.kind === 'postgres') {
    throw new CliError('this data dir uses PostgreSQL; `mailagent restore` restores SQLite files only. Stop every daemon, then restore with PostgreSQL\'s tools, '
      + 'e.g. pg_restore --clean --if-exists --dbname "$MAILAGENT_DATABASE_URL" mailagent.dump (a dump from pg_dump --format=custom).');
  }
  const { restoreDataDir, OpsError } = await import('../../server/backup.js');
  const { existsSync } = await import('node:fs');
  let force = Boolean(opts.yes);
  if (!force && existsSync(config.dbFile)) force = await ctx.confirm(`Replace ${config.dbFile} with ${file}?`, opts.yes);
  if (existsSync(config.dbFile) && !force) return;
  try {
    const r = await restoreDataDir(file, config.dataDir, config.dbFile, { force });
    ctx.out.result({ file: r.file, replaced: r.replaced, previous: r.previous, migrations: r.migrations }, () => {
      if (r.previous) ctx.out.info(`The database it replaced is kept as ${r.previous}.`);
      ctx.out.success(`Restored ${file} into ${r.file}. Start the daemon on it: mailagent serve --data-dir ${config.dataDir}`);
    });
  } catch (err) {
    if (err instanceof OpsError) throw new CliError(err.message);
    throw err;
  }
}
