import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The suite runs on PostgreSQL instead of SQLite (MAILAGENT_TEST_DATABASE=postgres, npm run test:postgres). */
export const onPostgres = process.env.MAILAGENT_TEST_DATABASE === 'postgres';
/** The migrated database every test database is copied from. */
export const PG_TEMPLATE = 'mailagent_template';

/**
 * A throwaway PostgreSQL server for tests: Debian's initdb + pg_ctl into a temp dir, on a free
 * port, unix socket in the same dir. initdb and postgres refuse to run as root, so as root they
 * run through `runuser -u postgres --` on a dir that user owns. Nothing is left running: stop()
 * is called by the global teardown (and by the cluster test's own server).
 */
export interface PgServer {
  /** Superuser URL of the `postgres` database (admin statements: CREATE/DROP DATABASE). */
  adminUrl: string;
  port: number;
  dir: string;
  stop(): void;
}

/** Why PostgreSQL cannot run here, or null when it can. */
export function postgresUnavailable(): string | null {
  if (!pgBinDir()) return 'PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin; `apt-get install postgresql`)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no `postgres` user to run the server as';
  return null;
}

export function pgBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start a server. `fsync=off`: this is a disposable test server and the suite creates hundreds of
 * databases; durability is PostgreSQL's own (synchronous_commit stays at its default, on).
 */
export async function startPostgres(opts: { maxConnections?: number } = {}): Promise<PgServer> {
  const bin = pgBinDir();
  if (!bin) throw new Error(postgresUnavailable() ?? 'PostgreSQL not found');
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-pg-'));
  chmodSync(dir, 0o777);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, cmd), ...args] : [join(bin, cmd), ...args];
    execFileSync(full[0], full.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const settings = [
    `-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', `-c max_connections=${opts.maxConnections ?? 400}`,
    '-c fsync=off', '-c full_page_writes=off', '-c shared_buffers=64MB',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Run one admin statement (CREATE/DROP DATABASE cannot run inside a transaction or pool checkout trick). */
export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = '/' + name;
  return u.toString();
}
