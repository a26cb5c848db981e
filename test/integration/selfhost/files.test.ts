import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { migrations } from '../../../src/db/migrations/index.js';
import { BIN, ROOT, isolatedEnv, startDaemon } from '../../helpers/daemon.js';
import { openDatabase } from '../../../src/db/open.js';
import { onPostgres } from '../../helpers/db.js';

/**
 * The data dir, the database and its backups hold mail and webhook secrets: owner-only whatever
 * the umask (docs/self-hosting.md → Files). The live database's own files are never a backup target,
 * a restore keeps the database it replaces, and the start says what it did.
 */
const home = mkdtempSync(join(tmpdir(), 'mailagent-files-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The real CLI under a shell's usual umask 022 (systemd's UMask=0077 would hide the problem). */
function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', 'umask 022; exec "$0" "$@"', process.execPath, BIN, ...args], { cwd: ROOT, env: isolatedEnv(home), encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const mode = (p: string) => statSync(p).mode & 0o777;

describe.skipIf(onPostgres)('files of a data dir', () => {
  const dir = join(home, 'state', 'data');
  const db = join(dir, 'mailagent.db');

  it('init under umask 022: data dir 0700, database 0600; backups 0600 in a new 0700 dir', () => {
    const i = cli(['init', '--data-dir', dir, '--json']);
    expect(i.code, i.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(home, 'state'))).toBe(0o700);
    expect(mode(db)).toBe(0o600);
    const out = join(home, 'copies', 'one.db');
    const b = cli(['backup', out, '--data-dir', dir, '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).created_dir).toBe(join(home, 'copies'));
    const again = cli(['backup', out, '--data-dir', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Created');
    const deeper = cli(['backup', join(home, 'typo', 'x', 'two.db'), '--data-dir', dir]);
    expect(deeper.stderr).toContain(`Created ${join(home, 'typo')} (it did not exist; mode 0700).`);
    expect(mode(out)).toBe(0o600);
    expect(mode(join(home, 'copies'))).toBe(0o700);
  });

  it('refuses to write a backup over any file of the live database (-wal, -shm, -journal, the database, the lock)', () => {
    writeFileSync(`${db}-wal`, 'live wal bytes');
    for (const target of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`, join(dir, 'mailagent.lock')]) {
      const r = cli(['backup', target, '--data-dir', dir]);
      expect(r.code, target).toBe(1);
      expect(r.stderr).toMatch(/is a file of the live database; write the backup elsewhere/);
    }
    expect(readFileSync(`${db}-wal`, 'utf8')).toBe('live wal bytes');
    rmSync(`${db}-wal`);
  });

  it('restore --yes keeps the database it replaces in backups/pre-restore-*.db (0600)', () => {
    const other = join(home, 'other');
    expect(cli(['init', '--data-dir', other, '--json']).code).toBe(0);
    const copy = join(home, 'other-copy.db');
    expect(cli(['backup', copy, '--data-dir', other]).code).toBe(0);
    const before = readFileSync(db);
    const r = cli(['restore', copy, '--data-dir', dir, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const previous = JSON.parse(r.stdout).previous as string;
    expect(previous).toMatch(/backups\/pre-restore-.*\.db$/);
    expect(existsSync(previous)).toBe(true);
    expect(mode(previous)).toBe(0o600);
    expect(mode(db)).toBe(0o600);
    expect(readdirSync(join(dir, 'backups'))).toHaveLength(1);
    // The kept copy is the database as it was (same size; the restored one differs).
    expect(statSync(previous).size).toBe(before.length);
  });
});

describe.skipIf(onPostgres)('what a start says', () => {
  it('logs the migrations an upgrade applied with its pre-migrate copy, and warns when it starts below the low-disk guard', async () => {
    const home2 = mkdtempSync(join(tmpdir(), 'mailagent-upgrade-log-'));
    const dataDir = join(home2, 'data');
    expect(spawnSync(process.execPath, [BIN, 'init', '--data-dir', dataDir, '--json'], { cwd: ROOT, env: isolatedEnv(home2) }).status).toBe(0);
    // As an older mailagent left it: the newest migration not applied yet.
    const o = openDatabase(join(dataDir, 'mailagent.db'));
    const names = Object.keys(migrations).sort();
    const { error } = await new Migrator({ db: o.db, provider: { getMigrations: async () => migrations } }).migrateTo(names[names.length - 2]);
    await o.close();
    expect(error).toBeUndefined();
    const d = await startDaemon({ home: home2, dataDir, args: ['--min-free-disk-mb', '10000000'] });
    try {
      expect(d.stderr()).toMatch(new RegExp(`"migrations":\\["${names[names.length - 1]}"\\].*database migrated; the copy taken before is .*backups/pre-migrate-`));
      await expect.poll(() => d.stderr(), { timeout: 5000 }).toMatch(/low disk space: .* below the .* guard; inbound SMTP answers 452/);
    } finally {
      await d.stop();
    }
  });

  it('a full database reports "database or disk is full", not the failed ROLLBACK after it', async () => {
    const file = join(home, 'full.db');
    const opened = openDatabase(file);
    try {
      await sql`CREATE TABLE t (b BLOB)`.execute(opened.db);
      const pages = Number((await sql<{ page_count: number }>`PRAGMA page_count`.execute(opened.db)).rows[0].page_count);
      await sql.raw(`PRAGMA max_page_count = ${pages + 2}`).execute(opened.db);
      const err = await opened.db.transaction().execute(async (tx) => {
        for (let i = 0; i < 20; i++) await sql`INSERT INTO t VALUES (zeroblob(100000))`.execute(tx);
      }).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/database or disk is full/);
    } finally {
      await opened.close();
    }
  });
});
