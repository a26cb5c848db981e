import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, startDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { startSink, type Sink, type SinkRequest } from '../../helpers/sink.js';

// End-to-end: the real CLI binary against a real daemon (test/helpers/daemon.ts) and a real
// local HTTP receiver (test/helpers/sink.ts). Signatures are checked here with node:crypto,
// independently of src/contract/webhook-signature.ts.
const ERROR_LINE = /^error: .+ \(code [a-z_]+(, param [^,]+)?, request req_[0-9a-z]+\)$/m;
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;


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

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The X-Mails-Signature v1 values a secret should produce (compat.md), computed independently. */
function mailsSig(secret: string, t: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}
function standardSig(secret: string, id: string, t: string, body: Buffer | string): string {
  return createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${t}.`).update(body).digest('base64');
}

function expectSignedBy(r: SinkRequest, secrets: string[]): void {
  const header = String(r.headers['x-mails-signature']);
  const t = /^t=(\d+),/.exec(header)![1];
  expect(header).toBe(`t=${t},` + secrets.map((s) => `v1=${mailsSig(s, t, r.raw)}`).join(','));
  expect(r.headers['webhook-timestamp']).toBe(t);
  const id = String(r.headers['webhook-id']);
  expect(r.headers['webhook-signature']).toBe(secrets.map((s) => `v1,${standardSig(s, id, t, r.raw)}`).join(' '));
}

describe('webhooks: endpoints, deliveries, replay, rotation and verify', () => {
  let d: TestDaemon;
  let sink: Sink;
  beforeAll(async () => {
    [d, sink] = await Promise.all([startDaemon(), startSink()]);
  });
  afterAll(async () => {
    await Promise.all([d?.stop(), sink?.close()]);
  });
  // Each test starts with no endpoint, so one failing cannot feed the next one's sink.
  afterEach(async () => {
    for (const w of (await api(d, 'GET', '/v1/webhooks?limit=100')).data) await api(d, 'DELETE', `/v1/webhooks/${w.id}`);
  });

  it('create prints the secret once; list, get, update (pause/resume) and delete', async () => {
    const made = await d.cli(['webhooks', 'create', '--url', sink.url, '--type', 'agent.created,agent.paused', '--description', 'crud', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const w = made.json();
    expect(w).toMatchObject({ object: 'webhook_endpoint', url: sink.url, event_types: ['agent.created', 'agent.paused'], description: 'crud', active: true });
    expect(w.signing_secret).toMatch(SECRET);

    // Human: the record and the secret on stdout, the once-only warning on stderr.
    const human = await d.cli(['webhooks', 'create', '--url', sink.url, '--paused']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^signing_secret\twhsec_\S+$/m);
    expect(human.stdout).toMatch(/^state\tpaused$/m);
    expect(human.stderr).toContain('shown only once');
    const secondId = /^id\t(whe_\S+)$/m.exec(human.stdout)![1];

    const list = await d.cli(['webhooks', 'list']);
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual([secondId, w.id]);
    expect(rows[0][3]).toBe('paused');
    expect(rows[1][2]).toBe('agent.created,agent.paused');

    const got = await d.cli(['webhooks', 'get', w.id, '--json']);
    expect(got.json().signing_secret).toBeUndefined();
    expect(got.json().id).toBe(w.id);

    const paused = await d.cli(['webhooks', 'update', w.id, '--paused', '--description', '', '--json']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.json()).toMatchObject({ active: false, description: null });
    const resumed = await d.cli(['webhooks', 'update', w.id, '--active', '--type', '*', '--json']);
    expect(resumed.json()).toMatchObject({ active: true, event_types: ['*'] });

    const [nothing, both, noUrl, typo, refused, noYes] = await Promise.all([
      d.cli(['webhooks', 'update', w.id]),
      d.cli(['webhooks', 'update', w.id, '--active', '--paused']),
      d.cli(['webhooks', 'create']),
      d.cli(['webhooks', 'create', '--url', sink.url, '--type', 'agent.craeted']),
      d.cli(['webhooks', 'create', '--url', 'https://user:secret@example.com/hooks']),
      d.cli(['webhooks', 'delete', secondId]),
    ]);
    expect([nothing.code, both.code, noUrl.code, typo.code]).toEqual([2, 2, 2, 2]);
    expect(typo.stderr).toContain('unknown event type "agent.craeted"');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(ERROR_LINE);
    expect(refused.stderr).toContain('param url');

    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('--yes');
    const del = await d.cli(['webhooks', 'delete', secondId, '--yes', '--json']);
    expect(del.code, del.stderr).toBe(0);
    expect(del.json().id).toBe(secondId);
    const gone = await d.cli(['webhooks', 'get', secondId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('code resource_not_found');
    await d.cli(['webhooks', 'delete', w.id, '--yes']);
  });

  it('test: exit 0 when the receiver answers 2xx, 1 otherwise', async () => {
    const w = (await d.cli(['webhooks', 'create', '--url', sink.url, '--type', 'agent.archived', '--json'])).json();
    sink.reset();
    const ok = await d.cli(['webhooks', 'test', w.id]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('answered 200');
    expect(sink.requests.at(-1)!.headers['x-mails-event-type']).toBe('webhook.test');
    expectSignedBy(sink.requests.at(-1)!, [w.signing_secret]);

    sink.queue({ status: 500, body: 'boom' });
    const bad = await d.cli(['webhooks', 'test', w.id, '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json()).toMatchObject({ ok: false, http_status: 500 });
    expect(bad.stderr).toMatch(/^error: test delivery failed: .*500/m);
    await d.cli(['webhooks', 'delete', w.id, '--yes']);
  });

  it('deliveries: a failed delivery with a retry scheduled reads "failed, retrying" in the table, "failed" in --json', async () => {
    const w = (await d.cli(['webhooks', 'create', '--url', sink.url, '--type', 'agent.created', '--json'])).json();
    sink.reset();
    sink.queue({ status: 503, body: 'later' });
    await api(d, 'POST', '/v1/agents', { name: 'retta' });
    await sink.waitFor(1, 15_000);
    let page: any;
    for (let i = 0; i < 50; i++) {
      page = (await d.cli(['webhooks', 'deliveries', w.id, '--json'])).json();
      if (page.data[0]?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(page.data[0]).toMatchObject({ status: 'failed', http_status: 503, attempt_number: 1 });
    expect(page.data[0].next_retry_at).toEqual(expect.any(String));
    const listed = await d.cli(['webhooks', 'deliveries', w.id]);
    expect(listed.stdout.trim().split('\t')[3]).toBe('failed, retrying');
    await d.cli(['webhooks', 'delete', w.id, '--yes']);
  });

  it('deliveries, delivery, replay, rotate-secret, and verify on what the daemon really sent', async () => {
    const w = (await d.cli(['webhooks', 'create', '--url', sink.url, '--type', 'agent.created', '--json'])).json();
    sink.reset();
    await api(d, 'POST', '/v1/agents', { name: 'nora' });
    const [req] = await sink.waitFor(1, 15_000);
    expect(req.json()).toMatchObject({ type: 'agent.created', data: { agent: { name: 'nora' } } });
    expectSignedBy(req, [w.signing_secret]);

    // deliveries: wait until the daemon has recorded the attempt.
    let page: any;
    for (let i = 0; i < 50; i++) {
      page = (await d.cli(['webhooks', 'deliveries', w.id, '--json'])).json();
      if (page.data[0]?.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ event_id: req.headers['webhook-id'], status: 'succeeded', http_status: 200, attempt_number: 1 });
    const whd = page.data[0].id;
    const filtered = await d.cli(['webhooks', 'deliveries', w.id, '--status', 'dlq', '--json']);
    expect(filtered.json().data).toEqual([]);
    expect((await d.cli(['webhooks', 'deliveries', w.id, '--status', 'done'])).code).toBe(2);
    const listed = await d.cli(['webhooks', 'deliveries', w.id]);
    expect(listed.code, listed.stderr).toBe(0);
    const rowsOut = listed.stdout.trim().split('\t');
    expect(rowsOut.slice(0, 5), listed.stderr).toEqual([whd, req.headers['webhook-id'], 'agent.created', 'succeeded', '1']);

    const one = await d.cli(['webhooks', 'delivery', whd, '--json']);
    expect(one.json().attempts).toHaveLength(1);
    expect(one.json().attempts[0]).toMatchObject({ status: 'succeeded', http_status: 200 });

    // verify (X-Mails-Signature, then Standard Webhooks), the raw body on stdin.
    const header = String(req.headers['x-mails-signature']);
    const valid = await d.cli(['webhooks', 'verify', '--secret', w.signing_secret, '--header', header], { input: req.text });
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stderr).toMatch(/valid X-Mails-Signature \(signed \d+ s ago\)/);
    const std = await d.cli(['webhooks', 'verify', '--secret', w.signing_secret, '--header', `webhook-signature: ${req.headers['webhook-signature']}`,
      '--id', String(req.headers['webhook-id']), '--timestamp', String(req.headers['webhook-timestamp']), '--json'], { input: req.text });
    expect(std.code, std.stderr).toBe(0);
    expect(std.json()).toMatchObject({ valid: true, scheme: 'webhook-signature' });

    const tampered = await d.cli(['webhooks', 'verify', '--secret', w.signing_secret, '--header', header], { input: req.text.replace('nora', 'nore') });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr.trim()).toBe('error: invalid signature: no v1= signature matches this secret and body');
    const newline = await d.cli(['webhooks', 'verify', '--secret', w.signing_secret, '--header', header], { input: req.text + '\n' });
    expect(newline.code).toBe(1);
    expect(newline.stderr).toContain('trailing newline');
    const wrongSecret = await d.cli(['webhooks', 'verify', '--secret', 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '--header', header, '--json'], { input: req.text });
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.json()).toMatchObject({ valid: false, scheme: 'x-mails-signature' });
    expect((await d.cli(['webhooks', 'verify', '--secret', w.signing_secret, '--header', 'v1,abc'], { input: 'x' })).code).toBe(2);

    // replay: a new delivery of the same event, same webhook-id.
    sink.reset();
    const replay = await d.cli(['webhooks', 'replay', whd, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json()).toMatchObject({ delivery_id: whd, event_id: req.headers['webhook-id'] });
    expect(replay.json().scheduled).toHaveLength(1);
    const [again] = await sink.waitFor(1, 15_000);
    expect(again.headers['webhook-id']).toBe(req.headers['webhook-id']);
    expect(again.text).toBe(req.text);

    // rotate-secret: the next delivery carries both signatures, new first; verify accepts either secret.
    const rotated = await d.cli(['webhooks', 'rotate-secret', w.id, '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = rotated.json().signing_secret;
    expect(fresh).toMatch(SECRET);
    expect(fresh).not.toBe(w.signing_secret);
    expect(rotated.json().previous_secret_expires_at).not.toBeNull();
    sink.reset();
    await api(d, 'POST', '/v1/agents', { name: 'otto' });
    const [next] = await sink.waitFor(1, 15_000);
    expectSignedBy(next, [fresh, w.signing_secret]);
    for (const secret of [fresh, w.signing_secret]) {
      const r = await d.cli(['webhooks', 'verify', '--secret', secret, '--header', String(next.headers['x-mails-signature'])], { input: next.text });
      expect(r.code, r.stderr).toBe(0);
    }
    const human = await d.cli(['webhooks', 'rotate-secret', w.id, '--previous-secret-ttl', '0']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('the previous secret no longer signs');
    expect(human.stdout).toMatch(/^signing_secret\twhsec_/m);
    expect((await d.cli(['webhooks', 'rotate-secret', w.id, '--previous-secret-ttl', '-1'])).code).toBe(2);
    await d.cli(['webhooks', 'delete', w.id, '--yes']);
  });

  it('verify checks the time window (--tolerance) and reads --body-file', async () => {
    const secret = 'whsec_' + Buffer.from('0123456789abcdef01234567').toString('base64');
    const body = '{"id":"evt_x","object":"event"}';
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const file = join(d.home, 'body.json');
    writeFileSync(file, body);
    const header = `t=${old},v1=${mailsSig(secret, old, body)}`;
    const late = await d.cli(['webhooks', 'verify', '--secret', secret, '--header', header, '--body-file', file]);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/error: invalid signature: the signature is 36\d\d s old \(more than the 300 s tolerance\)/);
    const wide = await d.cli(['webhooks', 'verify', '--secret', secret, '--header', header, '--body-file', file, '--tolerance', '7200']);
    expect(wide.code, wide.stderr).toBe(0);
    const stdOk = await d.cli(['webhooks', 'verify', '--secret', secret, '--id', 'msg_1', '--timestamp', old, '--tolerance', '7200',
      '--header', `v1,${standardSig(secret, 'msg_1', old, body)}`], { input: body });
    expect(stdOk.code, stdOk.stderr).toBe(0);
    expect((await d.cli(['webhooks', 'verify', '--header', header], { input: body })).code).toBe(2);
  });

  it('has examples in --help', async () => {
    const verbs = ['list', 'create', 'get', 'update', 'delete', 'test', 'deliveries', 'delivery', 'replay', 'rotate-secret', 'listen', 'verify'];
    const helps = await Promise.all(verbs.map((v) => d.cli(['webhooks', v, '--help'])));
    verbs.forEach((verb, i) => {
      expect(helps[i].code).toBe(0);
      expect(helps[i].stdout).toContain(`$ mailagent webhooks ${verb}`);
    });
  });
});

describe('webhooks listen', () => {
  let d: TestDaemon;
  let sink: Sink;
  beforeAll(async () => {
    [d, sink] = await Promise.all([startDaemon(), startSink()]);
  });
  afterAll(async () => {
    await Promise.all([d?.stop(), sink?.close()]);
  });

  it('forwards each event signed with the secret it prints, shows the status, exits 130 on Ctrl-C', async () => {
    const l = spawnCli(['webhooks', 'listen', '--forward-to', sink.url, '--type', 'agent.created', '--json'], d.env);
    try {
      await l.until((o) => o.stderr.includes('Ready!'));
      const secret = /Your webhook signing secret is (whsec_\S+)/.exec(l.stderr())![1];
      expect(secret).toMatch(SECRET);
      expect(l.stderr()).toContain(`Forwarding events to ${sink.url}`);

      sink.queue({ status: 200 }, { status: 500, body: 'nope' });
      await api(d, 'POST', '/v1/agents', { name: 'pia' });
      await api(d, 'POST', '/v1/agents', { name: 'quinn' });
      await api(d, 'PATCH', '/v1/agents/pia', { status: 'paused' }); // filtered out by --type
      const reqs = await sink.waitFor(2, 15_000);
      await l.until((o) => o.stdout.trim().split('\n').length >= 2);

      const ev = await api(d, 'GET', `/v1/events/${reqs[0].headers['webhook-id']}`);
      expect(reqs[0].json()).toEqual(ev); // the body is the event object (key order may differ from the HTTP serialiser's)
      expect(reqs.map((r) => r.json().data.agent.name)).toEqual(['pia', 'quinn']);
      for (const r of reqs) {
        expectSignedBy(r, [secret]);
        expect(r.headers['x-mails-event-type']).toBe('agent.created');
        expect(r.headers['x-mails-event-id']).toBe(r.headers['webhook-id']);
        expect(r.headers['user-agent']).toMatch(/^mailagent\//);
        expect(r.headers['content-type']).toBe('application/json');
      }
      const lines = l.stdout().trim().split('\n').map((s) => JSON.parse(s));
      expect(lines).toMatchObject([
        { event_id: reqs[0].headers['webhook-id'], event_type: 'agent.created', ok: true, http_status: 200, error: null },
        { event_id: reqs[1].headers['webhook-id'], ok: false, http_status: 500, error: 'HTTP 500' },
      ]);

      // The printed secret verifies with the CLI's own verify as well.
      const v = await d.cli(['webhooks', 'verify', '--secret', secret, '--header', String(reqs[0].headers['x-mails-signature'])], { input: reqs[0].text });
      expect(v.code, v.stderr).toBe(0);
      expect(await l.interrupt()).toBe(130);
      expect(sink.requests).toHaveLength(2);
    } finally {
      await l.interrupt();
    }
  });

  it('human lines show → status; --secret reuses a secret; an unreachable target is reported, not fatal', async () => {
    const secret = 'whsec_' + Buffer.from('listen-secret-listen-sec').toString('base64');
    const l = spawnCli(['webhooks', 'listen', '--forward-to', sink.url, '--type', 'agent.created', '--secret', secret], d.env);
    const closed = await freePort();
    const dead = spawnCli(['webhooks', 'listen', '--forward-to', `http://127.0.0.1:${closed}/hooks`, '--type', 'agent.created'], d.env);
    try {
      await l.until((o) => o.stderr.includes('Ready!'));
      await dead.until((o) => o.stderr.includes('Ready!'));
      expect(l.stderr()).toContain(`Your webhook signing secret is ${secret}`);
      sink.reset();
      await api(d, 'POST', '/v1/agents', { name: 'rex' });
      const [r] = await sink.waitFor(1, 15_000);
      expectSignedBy(r, [secret]);
      await l.until((o) => o.stdout.includes('→ 200'));
      expect(l.stdout().trim()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}→ 200 {2}agent\.created {2}evt_[0-9a-z]{26} {2}\d+ ms$/);
      await dead.until((o) => o.stdout.includes('→ ERR'));
      expect(dead.stdout()).toMatch(/→ ERR {2}agent\.created {2}evt_\S+ {2}ECONNREFUSED/);
      expect(await l.interrupt()).toBe(130);
      expect(await dead.interrupt()).toBe(130);
    } finally {
      await l.interrupt();
      await dead.interrupt();
    }
  });

  it('signs with the same saved secret on every run against one daemon; --new-secret replaces it', async () => {
    const secretOf = async (args: string[]) => {
      const l = spawnCli(['webhooks', 'listen', '--forward-to', sink.url, '--type', 'agent.created', ...args], d.env);
      try {
        await l.until((o) => o.stderr.includes('Ready!'));
        return /Your webhook signing secret is (whsec_\S+)/.exec(l.stderr())![1];
      } finally {
        await l.interrupt();
      }
    };
    const first = await secretOf([]);
    expect(await secretOf([])).toBe(first);
    const config = JSON.parse(readFileSync(join(d.env.XDG_CONFIG_HOME!, 'mailagent', 'config.json'), 'utf8'));
    expect(Object.values(config.listen_secrets)).toEqual([first]);
    const renewed = await secretOf(['--new-secret']);
    expect(renewed).toMatch(SECRET);
    expect(renewed).not.toBe(first);
    expect(await secretOf([])).toBe(renewed);
    const both = await d.cli(['webhooks', 'listen', '--forward-to', sink.url, '--secret', renewed, '--new-secret']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--secret and --new-secret');
  });

  it('refuses bad input', async () => {
    const runs = await Promise.all([
      d.cli(['webhooks', 'listen']),
      d.cli(['webhooks', 'listen', '--forward-to', 'ftp://x']),
      d.cli(['webhooks', 'listen', '--forward-to', sink.url, '--secret', 'not-a-secret']),
      d.cli(['webhooks', 'listen', '--forward-to', sink.url, '--type', 'bogus']),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0].stderr).toContain('missing --forward-to');
  });
});
