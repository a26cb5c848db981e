import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isolatedEnv, runCli, startDaemon, tempHome, type TestDaemon } from '../../helpers/daemon.js';
import { adminQuery, databaseUrl, onPostgres, postgresUnavailable, startPostgres, type PgServer } from '../../helpers/postgres.js';

/**
 * `mailagent init --database postgres://…` as a new user runs it, on a machine that also has the
 * default SQLite data dir (an outside tester's finding: the profile init saved was bound to that
 * unrelated data dir, so a SQLite `serve` there re-pointed the PostgreSQL keys at itself — 401 —
 * and a PostgreSQL `serve` re-pointed the SQLite profile). The real binary, a real PostgreSQL.
 */
const missing = postgresUnavailable();

describe.skipIf(missing !== null)(`init --database: the profile belongs to that database${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let server: PgServer | null = null;
  let url = '';
  const home = tempHome();
  const env = isolatedEnv(home);
  const file = join(env.XDG_CONFIG_HOME!, 'mailagent', 'config.json');
  const profiles = () => JSON.parse(readFileSync(file, 'utf8')).profiles as Record<string, Record<string, string | undefined>>;
  let d: TestDaemon | undefined;

  beforeAll(async () => {
    let admin: string;
    if (onPostgres) admin = inject('pgAdminUrl');
    else {
      server = await startPostgres();
      admin = server.adminUrl;
    }
    await adminQuery(admin, 'drop database if exists init_database_test with (force)');
    await adminQuery(admin, 'create database init_database_test');
    url = databaseUrl(admin, 'init_database_test');
  }, 120_000);

  afterAll(async () => {
    await d?.stop({ keep: true });
    rmSync(home, { recursive: true, force: true });
    if (server) server.stop();
    else if (onPostgres) await adminQuery(inject('pgAdminUrl'), 'drop database if exists init_database_test with (force)');
  }, 60_000);

  it('init with the default SQLite data dir, then init --database: each profile names its own data', async () => {
    const lite = await runCli(['init', '--workspace', 'lite'], { env, timeoutMs: 60_000 });
    expect(lite.code, lite.stderr).toBe(0);
    const pg = await runCli(['init', '--database', url, '--workspace', 'pgws'], { env, timeoutMs: 60_000 });
    expect(pg.code, pg.stderr).toBe(0);
    // It says what it initialised and how to serve it, never echoing the password-bearing URL.
    expect(pg.stderr).toMatch(/Initialised postgres:\/\/\S+\/init_database_test\./);
    expect(pg.stderr).toContain('Next: mailagent serve --database <the same URL>');
    expect(pg.stderr).toContain('profile "default-2"');
    const p = profiles();
    expect(p.default.data_dir).toBe(join(home, 'data', 'mailagent'));
    expect(p['default-2'].data_dir).toBeUndefined();
    expect(p['default-2'].database).toMatch(/^postgres:\/\/[^:@/]+@[^/]+:\d+\/init_database_test$/);
  }, 120_000);

  it('serve --database re-points only the PostgreSQL profile; the SQLite one keeps its URL', async () => {
    const before = profiles().default.base_url;
    d = await startDaemon({ home, env: { MAILAGENT_DATABASE_URL: url }, timeoutMs: 60_000 });
    expect(d.stderr()).toMatch(/Profile "default-2" in \S+ now points at this daemon/);
    expect(d.stderr()).not.toMatch(/Profile "default" in/);
    expect(profiles().default.base_url).toBe(before);
    expect(profiles()['default-2'].base_url).toBe(d.url);
    const who = await runCli(['--profile', 'default-2', 'whoami', '--json'], { env });
    expect(who.code, who.stderr).toBe(0);
    expect(who.json().workspace.slug).toBe('pgws');
    await d.stop({ keep: true });
    d = undefined;
  }, 120_000);

  it('serve on the SQLite data dir re-points only the SQLite profile; the PostgreSQL keys still reach PostgreSQL', async () => {
    const pgUrl = profiles()['default-2'].base_url;
    d = await startDaemon({ home, timeoutMs: 60_000 });
    expect(d.stderr()).toMatch(/Profile "default" in \S+ now points at this daemon/);
    expect(d.stderr()).not.toMatch(/Profile "default-2"/);
    expect(profiles()['default-2'].base_url).toBe(pgUrl);
    const who = await runCli(['whoami', '--json'], { env });
    expect(who.code, who.stderr).toBe(0);
    expect(who.json().workspace.slug).toBe('lite');
  }, 120_000);
});
