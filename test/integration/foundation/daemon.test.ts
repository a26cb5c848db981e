import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { Daemon } from '../../../src/server/daemon.js';
import { loadConfig } from '../../../src/server/config.js';

// Issue "The daemon"; DESIGN.md "Daemon": open DB → migrate → bootstrap → listen; stop drains.
const dirs: string[] = [];
const daemons: Daemon[] = [];
function config() {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-daemon-'));
  dirs.push(dir);
  return loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {}, '9.9.9-test');
}
async function create(c: ReturnType<typeof config>) {
  const d = await Daemon.create(c, { quiet: true });
  daemons.push(d);
  return d;
}
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Let pending I/O callbacks run (no timers: ordering, not timing). */
const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('Daemon.create', () => {
  it('bootstraps an empty data dir once; a second create finds it initialised', async () => {
    const c = config();
    const first = await create(c);
    expect(first.bootstrapped).not.toBeNull();
    const boot = first.bootstrapped!;
    expect(boot.workspace).toMatchObject({ slug: 'local', tier: 'free', tier_status: 'active' });
    expect(boot.agent.email).toBe('agent@local.mailagent.localhost');
    expect(boot.keys.live.key).toMatch(/^mk_live_[0-9a-f]{32}$/);
    expect(boot.keys.test.key).toMatch(/^mk_test_[0-9a-f]{32}$/);
    expect(boot.keys.live.scopes).toEqual(['send', 'read', 'manage', 'draft']);
    await first.stop();

    const second = await create(c);
    expect(second.bootstrapped).toBeNull();
    const ws = await second.ctx.db.selectFrom('workspaces').selectAll().execute();
    expect(ws.length).toBe(1);
    const r = await second.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${boot.keys.test.key}` } });
    expect(r.statusCode).toBe(200);
  });

  it('migrates before anything listens and reports the pragmas', async () => {
    const d = await create(config());
    const tables = (await d.ctx.db.introspection.getTables()).map((t) => t.name);
    expect(tables).toContain('api_keys');
  });
});

describe('start and stop', () => {
  it('listens on port 0 and serves GET /v1/health over real HTTP, without a key', async () => {
    const d = await create(config());
    const addr = await d.start();
    expect(addr.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(addr.http).not.toMatch(/:0$/);
    const res = await fetch(`${addr.http}/v1/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { status: string; version: string };
    expect(body).toMatchObject({ status: 'ok', version: '9.9.9-test' });
    const me = await fetch(`${addr.http}/api/v1/me`, { headers: { authorization: `Bearer ${d.bootstrapped!.keys.live.key}` } });
    expect(me.status).toBe(200);
    const denied = await fetch(`${addr.http}/v1/me`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { request_id: string } }).error.request_id).toBe(denied.headers.get('x-request-id'));
  });

  it('stop() finishes an in-flight request, refuses new connections, then closes the database', async () => {
    const d = await create(config());
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => { entered = r; });
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    d.app.get('/v1/test-slow', async () => {
      entered();
      await held;
      const row = await d.ctx.db.selectFrom('workspaces').select('slug').executeTakeFirstOrThrow();
      return { slug: row.slug };
    });
    const { http } = await d.start();
    const pending = fetch(`${http}/v1/test-slow`);
    await inHandler;

    let stopped = false;
    const stopping = d.stop().then(() => { stopped = true; });
    await turns();
    expect(stopped).toBe(false);
    await expect(fetch(`${http}/v1/health`)).rejects.toThrow();

    release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slug: 'local' });
    await stopping;
    expect(stopped).toBe(true);
    await expect(d.ctx.db.selectFrom('workspaces').selectAll().execute()).rejects.toThrow();
    // stop() is idempotent.
    await d.stop();
  });

  it('a request that arrives on a busy connection during shutdown gets a 503 envelope', async () => {
    const d = await create(config());
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => { entered = r; });
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    d.app.get('/v1/test-slow', async () => {
      entered();
      await held;
      return { ok: true };
    });
    const { http } = await d.start();
    const url = new URL(http);
    const sock = connect(Number(url.port), url.hostname);
    let raw = '';
    sock.setEncoding('utf8');
    sock.on('data', (chunk) => { raw += chunk; });
    const ended = new Promise<void>((r) => sock.on('close', () => r()));
    await new Promise<void>((r) => sock.on('connect', () => r()));
    sock.write(`GET /v1/test-slow HTTP/1.1\r\nHost: x\r\n\r\n`);
    await inHandler;
    const stopping = d.stop();
    await turns();
    // Pipelined behind the held request, on the same (busy) connection.
    sock.write(`GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n`);
    await turns();
    release();
    await stopping;
    await ended;
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses.length).toBe(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(responses[1].toLowerCase()).toContain('x-request-id: req_');
    expect(responses[1].toLowerCase()).toContain('connection: close');
    expect(responses[1]).toContain('"code":"service_unavailable"');
  });

  it('a port already in use fails start() and leaves nothing running', async () => {
    const a = await create(config());
    const { http } = await a.start();
    const c = loadConfig({ dataDir: dirs[dirs.length - 1] + '-b', port: Number(new URL(http).port), smtpPort: 0, logLevel: 'silent' }, {});
    dirs.push(c.dataDir);
    const b = await create(c);
    await expect(b.start()).rejects.toThrow(/EADDRINUSE|address already in use/i);
    await expect(b.ctx.db.selectFrom('workspaces').selectAll().execute()).rejects.toThrow();
    expect((await fetch(`${http}/v1/health`)).status).toBe(200);
  });
});
