import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from 'nodemailer';
import { inject } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startDaemon, isolatedEnv, type TestDaemon } from '../../helpers/daemon.js';
import { adminQuery, databaseUrl, onPostgres, postgresUnavailable, startPostgres, type PgServer } from '../../helpers/postgres.js';
import { startSink, type Sink } from '../../helpers/sink.js';

/**
 * Two daemons on one PostgreSQL (docs/scale-out.md): the real binary twice, `--database` to the
 * same database, each with its own HTTP and SMTP port. Runs whenever PostgreSQL is installed (it
 * starts its own server unless the whole run is on PostgreSQL); skipped with the reason otherwise.
 */
const missing = postgresUnavailable();
const D = 'local.mailagent.localhost';

let server: PgServer | null = null;
let url: string;
let home: string;
let a: TestDaemon;
let b: TestDaemon;
let keys: { live: string; test: string };
let sink: Sink;
/** The daemons' environment: one database; a webhook lease short enough for a test run. */
let env: Record<string, string>;
const LEASE_SECONDS = 20;
/** When the first webhook endpoint was made (events from then on are delivered to it). */
let hookSince = '';

const smtpPort = (d: TestDaemon) => Number(/SMTP [^\s:]+:(\d+)/.exec(d.stderr())![1]);

async function post(d: TestDaemon, path: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  const res = await fetch(d.url + path, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as any };
}

async function smtpSend(d: TestDaemon, subject: string): Promise<void> {
  const t = createTransport({ host: '127.0.0.1', port: smtpPort(d), secure: false, ignoreTLS: true });
  try {
    await t.sendMail({ from: 'alice@example.org', to: `agent@${D}`, subject, text: `Hello from ${subject}` });
  } finally {
    t.close();
  }
}

/**
 * The subjects of the live received list on `d`, once it holds all of `wanted` (or after 30 s).
 * A 250 means the message is durably queued; it is listed once processed (authentication,
 * classification), which is asynchronous: wait for it rather than race it.
 */
async function receivedSubjects(d: TestDaemon, wanted: string[]): Promise<string[]> {
  let subjects: string[] = [];
  for (const stop = Date.now() + 30_000; Date.now() < stop; await new Promise((r) => setTimeout(r, 200))) {
    subjects = (await d.api('GET', '/v1/messages/received?limit=50', undefined, keys.live)).data.map((m: any) => m.subject);
    if (wanted.every((w) => subjects.includes(w))) break;
  }
  return subjects;
}

/** Read an SSE stream until `until` says stop; returns the events seen. */
async function readStream(d: TestDaemon, key: string, until: (events: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const events: any[] = [];
  try {
    const res = await fetch(d.url + '/v1/events/stream', { headers: { authorization: `Bearer ${key}` }, signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
      let i: number;
      while ((i = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, i);
        text = text.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data) events.push(JSON.parse(data.slice(6)));
      }
      if (until(events)) break;
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return events;
}

describe.skipIf(missing !== null)(`two daemons on one PostgreSQL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    let admin: string;
    if (onPostgres) admin = inject('pgAdminUrl');
    else {
      server = await startPostgres({ maxConnections: 100 });
      admin = server.adminUrl;
    }
    await adminQuery(admin, 'create database cluster_test');
    url = databaseUrl(admin, 'cluster_test');
    home = mkdtempSync(join(tmpdir(), 'mailagent-cluster-'));
    // `mailagent init --database`: the schema and the first workspace, once for the cluster.
    const init = await runCli(['init', '--database', url, '--json'], { env: isolatedEnv(home), timeoutMs: 60_000 });
    expect(init.code, init.stderr).toBe(0);
    const boot = init.json();
    keys = { live: boot.keys.live.key, test: boot.keys.test.key };
    const again = await runCli(['init', '--database', url], { env: isolatedEnv(home), timeoutMs: 60_000 });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already initialised');
    env = { MAILAGENT_DATABASE_URL: url, MAILAGENT_WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS) };
    [a, b] = await Promise.all([
      startDaemon({ home, dataDir: join(home, 'a'), env, timeoutMs: 60_000 }),
      startDaemon({ home, dataDir: join(home, 'b'), env, timeoutMs: 60_000 }),
    ]);
    sink = await startSink();
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await sink?.close();
    if (home) rmSync(home, { recursive: true, force: true });
    if (server) server.stop();
    else if (onPostgres) await adminQuery(inject('pgAdminUrl'), 'drop database if exists cluster_test with (force)');
  }, 60_000);

  it('both serve the same workspace; mail over SMTP to either is seen through the other', async () => {
    expect((await a.api('GET', '/v1/me', undefined, keys.test)).workspace.id).toBe((await b.api('GET', '/v1/me', undefined, keys.test)).workspace.id);
    await smtpSend(a, 'via A');
    await smtpSend(b, 'via B');
    for (const d of [a, b]) expect(await receivedSubjects(d, ['via A', 'via B'])).toEqual(expect.arrayContaining(['via A', 'via B']));
  }, 60_000);

  it('the live stream on B shows events caused on A, in order; inbox/wait on B wakes on mail ingested by A', async () => {
    // Mail from an outside sender over plain SMTP fails SPF here: message.received.unauthenticated.
    const inbound = (e: any) => String(e.type).startsWith('message.received');
    const seen = readStream(b, keys.live, (evs) => evs.some(inbound));
    await new Promise((r) => setTimeout(r, 500)); // the stream is open
    const waiting = fetch(`${b.url}/v1/agents/agent/inbox/wait?timeout=20&since=${encodeURIComponent(new Date().toISOString())}`, { headers: { authorization: `Bearer ${keys.live}` } });
    await new Promise((r) => setTimeout(r, 300));
    await smtpSend(a, 'stream via A');
    const events = await seen;
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort());
    expect(events.some(inbound)).toBe(true);
    const w = await (await waiting).json() as any;
    expect(w.timed_out).toBe(false);
    expect(w.message.subject).toBe('stream via A');
  }, 60_000);

  it('50 concurrent sends with one Idempotency-Key, split across both daemons, make one message', async () => {
    const body = { agent: 'agent', to: `agent@${D}`, subject: 'once', body_text: 'exactly once' };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post(i % 2 ? b : a, '/v1/messages', body, keys.test, { 'idempotency-key': 'cluster-once' })));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    // The others replayed the same message or were told it is in progress (409).
    for (const r of results) expect([201, 409]).toContain(r.status);
    const sent = await a.api('GET', '/v1/messages?limit=100', undefined, keys.test);
    expect(sent.data.filter((m: any) => m.subject === 'once')).toHaveLength(1);
  }, 120_000);

  it('the burst limit (100 per 10 s per key) holds across both daemons together', async () => {
    // An unknown agent: each request takes its burst slot, then fails fast (404), so the 110
    // requests surely fall in one 10 s window even on a slow machine.
    const body = { agent: 'nobody', to: `agent@${D}`, subject: 'burst', body_text: 'x' };
    const results = await Promise.all(Array.from({ length: 110 }, (_, i) => post(i % 2 ? b : a, '/v1/messages', body, keys.live)));
    expect(results.filter((r) => r.status === 404)).toHaveLength(100);
    const limited = results.filter((r) => r.body?.error?.code === 'rate_limit_exceeded');
    expect(limited).toHaveLength(10);
  }, 120_000);

  it('webhooks: every event is delivered once although both daemons run the delivery worker', async () => {
    const ep = await post(a, '/v1/webhooks', { url: sink.url, event_types: ['message.received', 'message.received.unauthenticated'] }, keys.live);
    expect(ep.status, JSON.stringify(ep.body)).toBe(201);
    hookSince = ep.body.created_at;
    for (let i = 0; i < 6; i++) await smtpSend(i % 2 ? b : a, `hook ${i}`);
    await sink.waitFor(6, 30_000);
    await new Promise((r) => setTimeout(r, 2500)); // time for a duplicate to show up, if any
    const ids = sink.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  }, 90_000);

  it('SIGKILL of A in the middle of a webhook delivery: B delivers the event once A\'s lease has run out, never both at once', async () => {
    const hold = await startSink();
    try {
      hold.queue({ hang: true }); // the first POST is held open: A is "mid-delivery" when it dies
      const ep = await post(a, '/v1/webhooks', { url: hold.url, event_types: ['agent.created'] }, keys.live);
      expect(ep.status, JSON.stringify(ep.body)).toBe(201);
      // Only A's delivery worker runs while B is stopped, so A is the one that claims the delivery.
      b.child.kill('SIGSTOP');
      let resumed = false;
      try {
        const agent = await post(a, '/v1/agents', { name: 'leased' }, keys.live);
        expect(agent.status, JSON.stringify(agent.body)).toBe(201);
        await hold.waitFor(1, 30_000);
        const gone = new Promise((r) => a.child.once('exit', r));
        a.child.kill('SIGKILL');
        await gone;
        b.child.kill('SIGCONT');
        resumed = true;
      } finally {
        if (!resumed) b.child.kill('SIGCONT');
      }
      // B takes the delivery over once A's lease (LEASE_SECONDS) has run out, and only then.
      const [first, second] = await hold.waitFor(2, (LEASE_SECONDS + 30) * 1000);
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.json().type).toBe('agent.created');
      // Correctness, not speed: an attempt before the lease ran out would be a second attempt of the same step.
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual((LEASE_SECONDS - 1) * 1000);
      await new Promise((r) => setTimeout(r, 2500)); // time for a duplicate to show up, if any
      expect(hold.requests).toHaveLength(2);
      const list = await b.api('GET', `/v1/webhooks/${ep.body.id}/deliveries`, undefined, keys.live);
      expect(list.data).toHaveLength(1);
      // A died before recording its attempt: B's is the first recorded, and it succeeded.
      expect(list.data[0]).toMatchObject({ status: 'succeeded', attempt_number: 1 });
    } finally {
      await hold.close();
    }
    // A again (a new process on the same database) for the tests below.
    a = await startDaemon({ home, dataDir: join(home, 'a2'), env, timeoutMs: 60_000 });
  }, 180_000);

  it('SIGKILL of A mid-load: B keeps serving, and what A had committed is there', async () => {
    const sends = Array.from({ length: 20 }, (_, i) => post(a, '/v1/messages', { agent: 'agent', to: `agent@${D}`, subject: `load ${i}`, body_text: 'x' }, keys.test).catch(() => null));
    await new Promise((r) => setTimeout(r, 150));
    a.child.kill('SIGKILL');
    const answered = (await Promise.all(sends)).filter((r) => r && r.status === 201).map((r) => r!.body.id as string);
    await smtpSend(b, 'after the kill');
    const list = await b.api('GET', '/v1/messages?limit=100', undefined, keys.test);
    const onB = new Set(list.data.map((m: any) => m.id));
    // Every send A acknowledged (201) was committed: B sees it.
    for (const id of answered) expect(onB.has(id)).toBe(true);
    expect(await receivedSubjects(b, ['after the kill'])).toContain('after the kill');
    // Every received-mail event since the first endpoint was made went to it exactly once, across both kills.
    const expected: string[] = [];
    for (const type of ['message.received', 'message.received.unauthenticated']) {
      const evs = await b.api('GET', `/v1/events?limit=100&event_type=${type}`, undefined, keys.live);
      expected.push(...evs.data.filter((e: any) => e.created_at >= hookSince).map((e: any) => e.id));
    }
    await sink.waitFor(expected.length, 60_000);
    await new Promise((r) => setTimeout(r, 2500)); // time for a duplicate to show up, if any
    const hooked = sink.requests.map((r) => r.json().id as string);
    expect(hooked.length).toBe(new Set(hooked).size);
    expect([...hooked].sort()).toEqual([...expected].sort());
  }, 90_000);
});
