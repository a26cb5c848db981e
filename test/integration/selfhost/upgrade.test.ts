import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { migrations } from '../../../src/db/migrations/index.js';
import { loadConfig, type ConfigInput } from '../../../src/server/config.js';
import { Daemon, initialiseDataDir } from '../../../src/server/daemon.js';
import { openDatabase, DatabaseTooNewError } from '../../../src/db/open.js';
import { autoVacuumMode, inspectBackup } from '../../../src/db/maintenance.js';
import { runCli, isolatedEnv } from '../../helpers/daemon.js';

let dir = '';
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

async function initialised(over: ConfigInput = {}) {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-upgrade-'));
  const config = loadConfig({ dataDir: join(dir, 'data'), port: 0, smtpPort: 0, logLevel: 'silent', ...over }, {});
  await initialiseDataDir(config, {});
  return config;
}

/**
 * Make the database look as an older mailagent left it: 0012 and every later migration not
 * applied yet (their down(); migrations only ever run in order, so 0012 alone cannot be missing).
 */
async function rollBack0012(file: string) {
  const o = openDatabase(file);
  const { error } = await new Migrator({ db: o.db, provider: { getMigrations: async () => migrations } }).migrateTo('0011_search_and_web');
  if (error) throw error;
  // Files made before 0012 have auto_vacuum=NONE.
  await sql.raw('PRAGMA auto_vacuum = NONE').execute(o.db);
  await sql.raw('VACUUM').execute(o.db);
  expect(await autoVacuumMode(o.db)).toBe(0);
  await o.close();
}

describe('upgrades', () => {
  it('a database from a newer mailagent is refused before anything touches it, with a clear message', async () => {
    const config = await initialised();
    const o = openDatabase(config.dbFile);
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('0099_future', '2030-01-01T00:00:00.000Z')`.execute(o.db);
    await o.close();
    await expect(Daemon.create(config, { quiet: true })).rejects.toBeInstanceOf(DatabaseTooNewError);
    const r = await runCli(['serve', '--data-dir', config.dataDir, '--port', '0', '--smtp-port', '0'], { env: isolatedEnv(dir) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/upgraded by a newer mailagent \(it has migration 0099_future/);
    expect(r.stderr).toMatch(/mailagent restore/);
  });

  it('pending migrations on a database with data: a backup is taken first, then they run', async () => {
    const config = await initialised();
    await rollBack0012(config.dbFile);
    const d = await Daemon.create(config, { quiet: true });
    try {
      expect(d.preMigrateBackup).toMatch(/backups\/pre-migrate-.*\.db$/);
      const info = inspectBackup(d.preMigrateBackup!);
      expect(info.check).toBe('ok');
      expect(info.migrations).not.toContain('0012_retention');
      expect(info.migrations).toContain('0007_sent_recipients');
      // 0012 converted the file to incremental vacuum.
      expect(await autoVacuumMode(d.ctx.db)).toBe(2);
    } finally {
      await d.stop();
    }
  });

  it('no backup when switched off, and none for a fresh data dir', async () => {
    const config = await initialised({ backupBeforeMigrate: false });
    await rollBack0012(config.dbFile);
    const d = await Daemon.create(config, { quiet: true });
    await d.stop();
    expect(d.preMigrateBackup).toBeNull();
    expect(readdirSync(config.dataDir)).not.toContain('backups');
  });
});
