import { afterEach, describe, expect, inject, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { migrations } from '../../../src/db/migrations/index.js';
import { loadConfig } from '../../../src/server/config.js';
import { Daemon, initialiseDataDir } from '../../../src/server/daemon.js';
import { openDatabase, migrationState } from '../../../src/db/open.js';
import { fileSchemaDrift, schemaDrift } from '../../../src/db/migrator.js';
import { autoVacuumMode, backupDatabase, inspectBackup } from '../../../src/db/maintenance.js';
import { runDoctor } from '../../../src/server/doctor.js';
import { isolatedEnv, runCli, spawnCli, READY_LINE } from '../../helpers/daemon.js';
import { adminQuery, databaseUrl, onPostgres } from '../../helpers/postgres.js';
import { hasTable } from '../../../src/db/dialect.js';

// A start killed during the migrations (the outside tester: SIGKILL 1.4 s after `serve` on a
// fresh data dir, 3 runs in 10) left a migration's tables without its record; every later start
// failed with `table "…" already exists`, doctor only warned "migrations pending", and each
// failed start wrote a new pre-migrate copy of the broken file. Here real daemons are killed
// inside every migration (MAILAGENT_TEST_MIGRATION_PAUSE, db/migrator.ts) and at random times.

let dir = '';
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); dir = ''; });

const names = Object.keys(migrations).sort();
const serveArgs = (dataDir: string) => ['serve', '--data-dir', dataDir, '--port', '0', '--smtp-port', '0', '--log-level', 'warn'];

/** Start `mailagent serve`, wait until it pauses inside `point`, SIGKILL it. */
async function killInside(dataDir: string, point: string, extra: string[] = []): Promise<void> {
  const d = spawnCli([...serveArgs(dataDir), ...extra], isolatedEnv(dir, { MAILAGENT_TEST_MIGRATION_PAUSE: point }));
  try {
    await d.until(({ stderr }) => stderr.includes(`migration ${point}: paused`), 120_000);
  } finally {
    d.child.kill('SIGKILL');
    await new Promise((r) => (d.child.exitCode !== null || d.child.signalCode !== null ? r(null) : d.child.once('exit', r)));
  }
}

/** Start `mailagent serve` until its ready line, then stop it (Ctrl-C). */
async function startAndStop(dataDir: string, extra: string[] = []): Promise<void> {
  const d = spawnCli([...serveArgs(dataDir), ...extra], isolatedEnv(dir));
  try {
    await d.until(({ stdout, stderr }) => READY_LINE.test(stdout + stderr), 120_000);
  } finally {
    await d.interrupt();
  }
}

async function fileState(file: string) {
  const o = openDatabase(file);
  try {
    const state = await migrationState(o.db);
    const drift = await schemaDrift(o.db, migrations);
    const rows = {
      workspaces: (await sql<{ n: number }>`select count(*) as n from workspaces`.execute(o.db)).rows[0]?.n,
      agents: (await sql<{ n: number }>`select count(*) as n from agents`.execute(o.db)).rows[0]?.n,
      api_keys: (await sql<{ n: number }>`select count(*) as n from api_keys`.execute(o.db)).rows[0]?.n,
    };
    return { ...state, drift, rows, autoVacuum: await autoVacuumMode(o.db) };
  } finally {
    await o.close();
  }
}

/** The database as an older mailagent left it: migrations after `last` not applied (their down()). */
async function rollBackTo(file: string, last: string, autoVacuumNone = false) {
  const o = openDatabase(file);
  const { error } = await new Migrator({ db: o.db, provider: { getMigrations: async () => migrations } }).migrateTo(last);
  if (error) throw error;
  if (autoVacuumNone) {
    // Files made before 0012 have auto_vacuum=NONE.
    await sql.raw('PRAGMA auto_vacuum = NONE').execute(o.db);
    await sql.raw('VACUUM').execute(o.db);
  }
  await o.close();
}

async function initialised() {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-migcrash-'));
  const config = loadConfig({ dataDir: join(dir, 'data'), port: 0, smtpPort: 0, logLevel: 'silent' }, {});
  await initialiseDataDir(config, {});
  return config;
}

describe('a start killed during the migrations', () => {
  it('killed inside every pending migration (and between 0012\'s commit and its VACUUM): each start resumes, and the last comes up with every migration and the data intact', async () => {
    const config = await initialised();
    const before = await fileState(config.dbFile);
    expect(before.rows.api_keys).toBeGreaterThan(0);
    await rollBackTo(config.dbFile, '0011_search_and_web', true);
    const pending = names.filter((n) => n > '0011_search_and_web');
    const points = pending.flatMap((n) => (n === '0012_retention' ? [n, `${n}:after-commit`] : [n]));
    for (const point of points) {
      await killInside(config.dataDir, point);
      const s = await fileState(config.dbFile);
      const name = point.replace(':after-commit', '');
      // Killed inside a migration: it is absent, every one before it is whole; killed after its
      // commit: it is recorded.
      expect(s.applied).toEqual(names.filter((n) => (point.endsWith(':after-commit') ? n <= name : n < name)));
      expect(s.drift).toBeNull();
      // 0012's VACUUM (outside the transaction) was cut off once, and done by the next start.
      if (point === '0012_retention:after-commit') expect(s.autoVacuum).toBe(0);
      if (name > '0012_retention') expect(s.autoVacuum).toBe(2);
      expect(s.rows).toEqual(before.rows);
    }
    await startAndStop(config.dataDir);
    const after = await fileState(config.dbFile);
    expect(after.pending).toEqual([]);
    expect(after.applied).toEqual(names);
    expect(after.drift).toBeNull();
    expect(after.autoVacuum).toBe(2);
    expect(after.rows).toEqual(before.rows);
    // Every pre-migrate copy the starts took is whole: none hides a good one behind a broken one.
    const copies = readdirSync(join(config.dataDir, 'backups')).filter((n) => n.startsWith('pre-migrate-'));
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) {
      const f = join(config.dataDir, 'backups', c);
      expect(inspectBackup(f).check).toBe('ok');
      expect(await fileSchemaDrift(f, migrations)).toBeNull();
    }
  }, 600_000);

  it('a fresh data dir killed at random times during its first starts (the tester\'s repro) comes up whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-migcrash-'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    for (const ms of [400, 900, 1400, 1900, 2600]) {
      const d = spawnCli(serveArgs(dataDir), isolatedEnv(dir));
      await new Promise((r) => setTimeout(r, ms));
      d.child.kill('SIGKILL');
      await new Promise((r) => (d.child.exitCode !== null || d.child.signalCode !== null ? r(null) : d.child.once('exit', r)));
      const file = join(dataDir, 'mailagent.db');
      if (readdirSync(dataDir).includes('mailagent.db')) expect((await fileState(file).catch(() => null))?.drift ?? null).toBeNull();
    }
    await startAndStop(dataDir);
    const s = await fileState(join(dataDir, 'mailagent.db'));
    expect(s.applied).toEqual(names);
    expect(s.drift).toBeNull();
    expect(s.rows.workspaces).toBe(1);
  }, 600_000);
});

describe('a file left half-migrated by an older mailagent', () => {
  it('doctor fails naming the whole pre-migrate copy; serve refuses it without writing another copy; restore refuses the broken copy and takes the good one', async () => {
    const config = await initialised();
    await rollBackTo(config.dbFile, '0017_inbound_queue');
    const backups = join(config.dataDir, 'backups');
    mkdirSync(backups, { mode: 0o700 });
    // The older binary's upgrade: its copy first (whole), then 0018 cut off before its record
    // (statements autocommitted one by one), then a second failed start's copy of the broken file.
    const good = join(backups, 'pre-migrate-2026-01-01T00-00-00-000Z.db');
    await backupDatabase(config.dbFile, good);
    const o = openDatabase(config.dbFile);
    await migrations['0018_blob_chunks'].up(o.db);
    await o.close();
    const bad = join(backups, 'pre-migrate-2026-01-02T00-00-00-000Z.db');
    await backupDatabase(config.dbFile, bad);

    const env = isolatedEnv(dir);
    const doctor = await runCli(['doctor', '--data-dir', config.dataDir, '--port', '0', '--smtp-port', '0'], { env, timeoutMs: 60_000 });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+database: .*mailagent\.db is half-migrated: migration 0018_blob_chunks was interrupted half-way and is not recorded \(it already made table blob_chunks/);
    expect(doctor.stdout).toContain(`mailagent restore ${good} --data-dir ${config.dataDir} --yes`);
    expect(doctor.stdout).toMatch(/not the newer pre-migrate-2026-01-02T00-00-00-000Z\.db/);
    expect(doctor.stdout).toMatch(/taken at the start of the interrupted upgrade/);

    const serve = await runCli(serveArgs(config.dataDir), { env, timeoutMs: 60_000 });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/half-migrated: migration 0018_blob_chunks was interrupted.*Nothing was changed/);
    expect(serve.stderr).toContain(`mailagent restore ${good}`);
    expect(readdirSync(backups).sort()).toEqual([good, bad].map((f) => f.slice(backups.length + 1)).sort()); // no third copy

    const wrong = await runCli(['restore', bad, '--data-dir', config.dataDir, '--yes'], { env, timeoutMs: 60_000 });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/is half-migrated itself .*Restore .*pre-migrate-2026-01-01T00-00-00-000Z\.db instead/);
    const right = await runCli(['restore', good, '--data-dir', config.dataDir, '--yes'], { env, timeoutMs: 60_000 });
    expect(right.code).toBe(0);

    const d = await Daemon.create(config, { quiet: true });
    await d.stop();
    const s = await fileState(config.dbFile);
    expect(s.applied).toEqual(names);
    expect(s.drift).toBeNull();
  }, 300_000);

  it('a file whose first creation was cut off (nothing recorded): doctor says it holds no mail and what to delete', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-migcrash-'));
    const config = loadConfig({ dataDir: join(dir, 'data'), port: 0, smtpPort: 0, logLevel: 'silent', minFreeDiskMb: 0 }, {});
    mkdirSync(config.dataDir);
    const o = openDatabase(config.dbFile);
    await migrations['0001_foundation'].up(o.db);
    await o.close();
    const checks = await runDoctor(config, { freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now(), timeoutMs: 2000 });
    expect(checks.find((c) => c.check === 'database')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/half-migrated: migration 0001_foundation was interrupted/),
      fix: expect.stringMatching(/never completely created and holds no mail: .*delete .*mailagent\.db and its -wal and -shm files/),
    });
    await expect(Daemon.create(config, { quiet: true })).rejects.toThrow(/0001_foundation was interrupted/);
  }, 120_000);
});

describe.skipIf(!onPostgres)('PostgreSQL: a daemon killed during the migrations', () => {
  it('the pending migrations are one transaction: killed inside one, none is recorded or created; the next start applies them all', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-migcrash-'));
    const name = `migcrash_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await adminQuery(inject('pgAdminUrl'), `create database ${name} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
    const url = databaseUrl(inject('pgAdminUrl'), name);
    const spec = { kind: 'postgres' as const, url, poolSize: 2, statementTimeoutMs: 0 };
    try {
      const dataDir = join(dir, 'data');
      await killInside(dataDir, '0018_blob_chunks', ['--database', url]);
      // The server ends the dead connection's transaction: nothing of it stays.
      let o = openDatabase(spec);
      try {
        for (let i = 0; i < 100 && (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${name} and state like 'idle in transaction%'`.execute(o.db)).rows[0].n > 0; i++) await new Promise((r) => setTimeout(r, 100));
        expect((await migrationState(o.db)).applied).toEqual([]);
        expect(await hasTable(o.db, 'workspaces')).toBe(false);
      } finally {
        await o.close();
      }
      await startAndStop(dataDir, ['--database', url]);
      o = openDatabase(spec);
      try {
        expect((await migrationState(o.db)).applied).toEqual(names);
      } finally {
        await o.close();
      }
    } finally {
      await adminQuery(inject('pgAdminUrl'), `drop database if exists ${name} with (force)`);
    }
  }, 300_000);
});
