import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, spawnCli, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// End-to-end: the real CLI binary against a real daemon (test/helpers/daemon.ts).
const ERROR_LINE = /^error: .+ \(code [a-z_]+(, param [^,]+)?, request req_[0-9a-z]+\)$/m;


const ndjson = (s: string) => s.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; type: string; agent_id: string | null });

async function api(d: TestDaemon, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(d.url + path, {
    method,
    headers: { authorization: `Bearer ${d.testKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An agent.created event per call (the cheapest event to cause). */
async function createAgent(d: TestDaemon, name: string): Promise<{ id: string; name: string }> {
  return api(d, 'POST', '/v1/agents', { name });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('events list / get / redeliver', () => {
  let d: TestDaemon;
  let first: { id: string };
  beforeAll(async () => {
    d = await startDaemon();
    await createAgent(d, 'ella');
    await createAgent(d, 'finn');
    const page = await api(d, 'GET', '/v1/events?event_type=agent.created');
    first = page.data.find((e: any) => e.data.agent.name === 'ella');
  });
  afterAll(async () => { await d?.stop(); });

  it('lists events as the API page, filtered by type and agent', async () => {
    const all = await d.cli(['events', 'list', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.json()).toMatchObject({ has_more: false });
    const types = all.json().data.map((e: any) => e.type);
    expect(types.filter((t: string) => t === 'agent.created').length).toBeGreaterThanOrEqual(2);

    const finn = await d.cli(['events', 'list', '--type', 'agent.created', '--agent', 'finn', '--json']);
    expect(finn.code, finn.stderr).toBe(0);
    expect(finn.json().data.map((e: any) => e.data.agent.name)).toEqual(['finn']);

    // Piped, no --json: tab-separated rows (ID, TYPE, AGENT, MODE, SUMMARY, CREATED).
    const human = await d.cli(['events', 'list', '--type', 'agent.created', '--agent', 'ella']);
    expect(human.code, human.stderr).toBe(0);
    const row = human.stdout.trim().split('\t');
    expect(row[0]).toBe(first.id);
    expect(row[1]).toBe('agent.created');
    expect(row[4]).toContain('ella@local.mailagent.localhost');
  });

  it('--since takes an event id (strictly after it) or a time', async () => {
    const after = await d.cli(['events', 'list', '--type', 'agent.created', '--since', first.id, '--json']);
    expect(after.code, after.stderr).toBe(0);
    const names = after.json().data.map((e: any) => e.data.agent.name);
    expect(names).toContain('finn');
    expect(names).not.toContain('ella');

    const byDate = await d.cli(['events', 'list', '--since', '2000-01-01', '--limit', '1', '--json']);
    expect(byDate.code, byDate.stderr).toBe(0);
    expect(byDate.json().data).toHaveLength(1);
    expect(byDate.json().has_more).toBe(true);
    expect(byDate.stderr).toBe(''); // --json: the cursor is in the page, no hint

    const more = await d.cli(['events', 'list', '--limit', '1']);
    expect(more.stderr).toMatch(/more results: add --cursor \S+/);

    // The CLI's one time parser refuses it before any request: a usage error naming the flag.
    const bad = await d.cli(['events', 'list', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since "yesterday" is not a time');
    const relative = await d.cli(['events', 'list', '--since', '-1h', '--json']);
    expect(relative.code, relative.stderr).toBe(0);
  });

  it('gets one event; unknown ids, types and bad flags fail with the right exit codes', async () => {
    const got = await d.cli(['events', 'get', first.id, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.json()).toEqual(await api(d, 'GET', `/v1/events/${first.id}`));

    const human = await d.cli(['events', 'get', first.id]);
    expect(human.stdout).toMatch(new RegExp(`^id\\t${first.id}$`, 'm'));
    expect(human.stdout).toMatch(/^type\tagent\.created$/m);
    expect(human.stdout).toContain('"name": "ella"');

    const missing = await d.cli(['events', 'get', 'evt_00000000000000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(ERROR_LINE);
    expect(missing.stderr).toContain('code resource_not_found');

    const typo = await d.cli(['events', 'list', '--type', 'message.recieved']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown event type "message.recieved"');

    const limit = await d.cli(['events', 'list', '--limit', '0']);
    expect(limit.code).toBe(2);

    const noKey = await d.cli(['events', 'list', '--api-key', 'mk_test_00000000000000000000000000000000']);
    expect(noKey.code).toBe(4);
  });

  it('redeliver says when no endpoint wants the event', async () => {
    const r = await d.cli(['events', 'redeliver', first.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ event_id: first.id, webhook_endpoint_ids: [] });
  });

  it('has examples in --help', async () => {
    const verbs = ['list', 'get', 'tail', 'redeliver'];
    const helps = await Promise.all(verbs.map((v) => d.cli(['events', v, '--help'])));
    verbs.forEach((verb, i) => {
      expect(helps[i].code).toBe(0);
      expect(helps[i].stdout).toContain(`$ mailagent events ${verb}`);
    });
  });
});

describe('events tail', () => {
  let d: TestDaemon;
  beforeAll(async () => { d = await startDaemon(); });
  afterAll(async () => { await d?.stop(); });

  it('prints Ready! on stderr, NDJSON events on stdout, filters by type and agent, and exits 130 on Ctrl-C', async () => {
    await createAgent(d, 'gus');
    const all = spawnCli(['events', 'tail', '--json'], d.env);
    const gusOnly = spawnCli(['events', 'tail', '--json', '--agent', 'gus', '--type', 'agent.paused,agent.resumed'], d.env);
    await all.until((o) => o.stderr.includes('Ready!'));
    await gusOnly.until((o) => o.stderr.includes('Ready!'));
    expect(all.stderr()).toContain(`Tailing events from ${d.url}/v1/events/stream`);

    const hal = await createAgent(d, 'hal');
    await api(d, 'PATCH', '/v1/agents/gus', { status: 'paused' });
    await api(d, 'PATCH', '/v1/agents/hal', { status: 'paused' });
    await api(d, 'PATCH', '/v1/agents/gus', { status: 'active' });

    await all.until((o) => ndjson(o.stdout).length >= 4);
    await gusOnly.until((o) => ndjson(o.stdout).length >= 2);
    const seen = ndjson(all.stdout());
    expect(seen.map((e) => e.type)).toEqual(['agent.created', 'agent.paused', 'agent.paused', 'agent.resumed']);
    expect(seen[0].agent_id).toBe(hal.id);
    // Each line is the event object unchanged.
    expect(seen[1]).toEqual(await api(d, 'GET', `/v1/events/${seen[1].id}`));

    const gus = ndjson(gusOnly.stdout());
    expect(gus.map((e) => e.type)).toEqual(['agent.paused', 'agent.resumed']);
    expect(new Set(gus.map((e) => e.agent_id)).size).toBe(1);
    expect(gus[0].agent_id).not.toBe(hal.id);

    expect(await all.interrupt()).toBe(130);
    expect(await gusOnly.interrupt()).toBe(130);
    expect(all.stderr()).not.toMatch(/^error:/m);
  });

  it('human lines: time, type, id, agent name and a summary; --since replays after an id', async () => {
    const before = await api(d, 'GET', '/v1/events?event_type=agent.created&agent_id=gus');
    const gusEvent = before.data[0];
    const t = spawnCli(['events', 'tail', '--since', gusEvent.id, '--type', 'agent.created'], d.env);
    await t.until((o) => o.stdout.includes('hal@'));
    await createAgent(d, 'ivy');
    await t.until((o) => o.stdout.includes('ivy@'));
    const lines = t.stdout().trim().split('\n');
    expect(lines).toHaveLength(2); // hal (replayed), ivy (live); not gus itself
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}agent\.created {2}evt_[0-9a-z]{26} {2}ivy {2}\[test\] {2}ivy@local\.mailagent\.localhost \(active\)$/);
    expect(t.stdout() + t.stderr()).not.toContain('\x1b['); // not a TTY: no colour
    expect(await t.interrupt()).toBe(130);
  });

  it('stops quietly (exit 0) when the reader of its stdout goes away: tail | head -1', async () => {
    const sh = spawn('bash', ['-c', `"${process.execPath}" "${BIN}" events tail --json --type agent.created | head -1; echo "status \${PIPESTATUS[*]}"`], { cwd: ROOT, env: d.env });
    let out = '';
    let err = '';
    sh.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    sh.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    let exited = false;
    const done = new Promise((r) => sh.on('exit', r)).then(() => (exited = true));
    for (let i = 0; i < 300 && !err.includes('Ready!'); i++) await new Promise((r) => setTimeout(r, 100));
    // head exits after the first line; the tail notices on its next write. Events go on until
    // the pipeline has ended (a loaded machine may connect the stream late: fixed counts raced).
    for (let i = 0; !exited && i < 40; i++) {
      await createAgent(d, `pipe${i}`);
      await Promise.race([done, new Promise((r) => setTimeout(r, 250))]);
    }
    await done;
    expect(out.split('\n')[0]).toContain('"type":"agent.created"');
    expect(out).toContain('status 0 0');
    expect(err).not.toContain('EPIPE');
  });

  it('refuses bad input before streaming', async () => {
    const closed = await freePort();
    const [typo, unknownAgent, badSince, noDaemon] = await Promise.all([
      d.cli(['events', 'tail', '--type', 'nope']),
      d.cli(['events', 'tail', '--agent', 'nobody']),
      d.cli(['events', 'tail', '--since', 'evt_nope']),
      d.cli(['events', 'tail'], { env: { MAILAGENT_BASE_URL: `http://127.0.0.1:${closed}` } }),
    ]);
    // Nothing to reconnect to yet: the first connection failing is an error, not a retry loop.
    expect(noDaemon.code).toBe(1);
    expect(noDaemon.stderr).toContain(`could not connect to http://127.0.0.1:${closed}`);
    expect(noDaemon.stderr).not.toContain('Ready!');
    expect(typo.code).toBe(2);
    expect(unknownAgent.code).toBe(1);
    expect(unknownAgent.stderr).toMatch(ERROR_LINE);
    expect(badSince.code).toBe(1);
    expect(badSince.stderr).toContain('param since');
  });
});

describe('events tail across a daemon restart', () => {
  it('reconnects with Last-Event-ID: what happened meanwhile arrives once, nothing twice', async () => {
    const port = await freePort();
    const d1 = await startDaemon({ args: ['--port', String(port)] });
    let d2: TestDaemon | null = null;
    const t = spawnCli(['events', 'tail', '--json', '--type', 'agent.created'], d1.env);
    try {
      await t.until((o) => o.stderr.includes('Ready!'));
      await createAgent(d1, 'jan');
      await t.until((o) => ndjson(o.stdout).length === 1);

      await d1.stop({ keep: true });
      await t.until((o) => /connection lost \(.+\); reconnecting in \d+ s \(Last-Event-ID evt_/.test(o.stderr));
      d2 = await startDaemon({ home: d1.home, dataDir: d1.dataDir, args: ['--port', String(port)] });
      // Created as soon as the daemon is back: before or after the tail reconnects, it must arrive once.
      await createAgent(d2, 'kim');
      await createAgent(d2, 'lou');
      await t.until((o) => ndjson(o.stdout).length >= 3);
      await createAgent(d2, 'max');
      await t.until((o) => ndjson(o.stdout).length >= 4);

      const names = ndjson(t.stdout()).map((e: any) => e.data.agent.name);
      expect(names).toEqual(['jan', 'kim', 'lou', 'max']);
      expect(t.stderr()).toMatch(/Reconnected, resuming after evt_/);
      expect(await t.interrupt()).toBe(130);
    } finally {
      await t.interrupt();
      await d1.stop();
      await d2?.stop();
      const { rmSync } = await import('node:fs');
      rmSync(d1.home, { recursive: true, force: true });
    }
  }, 60_000);
});
