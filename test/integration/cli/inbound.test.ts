import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// End-to-end: `mailagent inbox|inbound|wait` (the real binary) against a real daemon.
const ERROR_LINE = /^error: .+ \(code [a-z_]+(, param [^,]+)?, request req_[0-9a-z]+\)$/m;
const AGENT = 'agent@local.mailagent.localhost';

let d: TestDaemon;
beforeAll(async () => { d = await startDaemon(); });
afterAll(async () => { await d?.stop(); });

const api = (method: string, path: string, body?: unknown, key?: string) => d.api(method, path, body, key);

const simulate = (body: Record<string, unknown>) => api('POST', '/v1/test/inbound', { agent: 'agent', from: 'setup@example.com', ...body });

/** A CLI process we watch while it runs; stdout kept as bytes. */
interface Running {
  child: ChildProcess;
  stdout(): Buffer;
  stderr(): string;
  exited: Promise<number | null>;
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv = d.env): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, stdout: () => Buffer.concat(out), stderr: () => err, exited };
}

/** Resolves once `test()` holds, checking every 20 ms (rejects with `what` after timeoutMs). */
async function until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('inbound simulate', () => {
  it('prints the id, event type, quarantined flag and classification', async () => {
    const r = await d.cli(['inbound', 'simulate', '--agent', 'agent', '--from', 'bob@example.com', '--from-name', 'Bob',
      '--subject', 'Your code', '--body', 'Your verification code is 481516.']);
    expect(r.code, r.stderr).toBe(0);
    const rec = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('\t')));
    expect(rec.message_id).toMatch(/^rcv_/);
    expect(rec.event_type).toBe('message.received');
    expect(rec.quarantined).toMatch(/^(yes|no)$/);
    expect(rec.intent).toBeTruthy();
    expect(rec.classifier_model).toBeTruthy();
    const stored = await api('GET', `/v1/messages/received/${rec.message_id}`);
    expect(stored.from).toEqual({ address: 'bob@example.com', name: 'Bob' });
    expect(stored.body_text).toContain('481516');
    expect(stored.classification.intent).toBe(rec.intent);
  });

  it('--json prints the whole answer; --spf/--dkim fail → unauthenticated; body from stdin; --to a plus address', async () => {
    const r = await d.cli(['inbound', 'simulate', '--agent', AGENT, '--from', 'spoof@example.com', '--subject', 'Piped',
      '--spf', 'fail', '--dkim', 'fail', '--to', 'agent+news@local.mailagent.localhost', '--json'], { input: 'body from stdin\n' });
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(j).toMatchObject({ event_type: 'message.received.unauthenticated', test_mode: true });
    expect(j.classification).toHaveProperty('injection_score');
    const stored = await api('GET', `/v1/messages/received/${j.message_id}`);
    expect(stored.body_text).toBe('body from stdin\n');
    expect(stored.delivered_to).toBe('agent+news@local.mailagent.localhost');
    expect([stored.spf_pass, stored.dkim_pass]).toEqual([false, false]);
  });

  it('--body-file, and --in-reply-to threads the message', async () => {
    const first = await simulate({ subject: 'Thread start', body_text: 'one' });
    const file = join(d.home, 'body.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'two, from a file');
    const r = await d.cli(['inbound', 'simulate', '--agent', 'agent', '--from', 'setup@example.com', '--subject', 'Re: Thread start',
      '--body-file', file, '--in-reply-to', first.message_id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().thread_id).toBe(first.thread_id);
  });

  it('refuses a live key (exit 4), a missing flag (exit 2), a bad --spf (exit 2), an unknown agent (exit 1)', async () => {
    const sim = ['inbound', 'simulate', '--agent'];
    const [live, missing, badSpf, unknown, badFrom] = await Promise.all([
      d.cli(['--live', ...sim, 'agent', '--from', 'a@example.com', '--subject', 's', '--body', 'b']),
      d.cli([...sim, 'agent', '--subject', 's', '--body', 'b']),
      d.cli([...sim, 'agent', '--from', 'a@example.com', '--subject', 's', '--body', 'b', '--spf', 'maybe']),
      d.cli([...sim, 'nobody', '--from', 'a@example.com', '--subject', 's', '--body', 'b']),
      d.cli([...sim, 'agent', '--from', 'not-an-address', '--subject', 's', '--body', 'b']),
    ]);
    expect(live.code).toBe(4);
    expect(live.stderr).toMatch(ERROR_LINE);
    expect(live.stderr).toContain('test_mode_required');

    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --from');

    expect(badSpf.code).toBe(2);
    expect(badSpf.stderr).toContain('--spf');

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(ERROR_LINE);
    expect(unknown.stderr).toContain('agent_not_found');

    expect(badFrom.code).toBe(1);
    expect(badFrom.stderr).toContain('param from');
  });
});

describe('inbox list / get / raw', () => {
  let agentB: { id: string; email: string };
  let rcvB: string;

  beforeAll(async () => {
    agentB = await api('POST', '/v1/agents', { name: 'inboxb' });
    rcvB = (await simulate({ agent: 'inboxb', from: 'carol@example.com', from_name: 'Carol', subject: 'For B only', body_text: 'Hi B\nsecond line' })).message_id;
  });

  it('lists newest first as tab-separated lines when piped, filtered by --agent and --thread', async () => {
    const thread = (await api('GET', `/v1/messages/received/${rcvB}`)).thread_id;
    const [r, all, byThread] = await Promise.all([
      d.cli(['inbox', 'list', '--agent', 'inboxb']),
      d.cli(['inbox', 'list', '--json']),
      d.cli(['inbox', 'list', '--thread', thread, '--json']),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows).toHaveLength(1);
    expect(rows[0].slice(0, 3)).toEqual([rcvB, 'carol@example.com', 'For B only']);
    expect(rows[0][4]).toContain('test');

    const ids = all.json().data.map((m: { id: string }) => m.id);
    expect(ids).toContain(rcvB);
    expect([...ids].sort().reverse()).toEqual(ids);

    expect(byThread.json().data.map((m: { id: string }) => m.id)).toEqual([rcvB]);
  });

  it('pages with --limit and --cursor', async () => {
    const p1 = (await d.cli(['inbox', 'list', '--limit', '1', '--json'])).json();
    expect(p1.data).toHaveLength(1);
    expect(p1.has_more).toBe(true);
    const [p2, human, bad] = await Promise.all([
      d.cli(['inbox', 'list', '--limit', '1', '--cursor', p1.next_cursor]),
      d.cli(['inbox', 'list', '--limit', '1']),
      d.cli(['inbox', 'list', '--limit', '0']),
    ]);
    expect(p2.code, p2.stderr).toBe(0);
    expect(p2.stdout.split('\t')[0]).not.toBe(p1.data[0].id);
    expect(human.stderr).toContain('more results: add --cursor');
    expect(bad.code).toBe(2);
  });

  it('get shows a header block and the text body; --json the full object', async () => {
    const [r, jr] = await Promise.all([d.cli(['inbox', 'get', rcvB]), d.cli(['inbox', 'get', rcvB, '--json'])]);
    expect(r.code, r.stderr).toBe(0);
    const [head, body] = r.stdout.split('\n\n');
    const rec = Object.fromEntries(head.split('\n').map((l) => l.split('\t')));
    expect(rec).toMatchObject({ id: rcvB, from: 'Carol <carol@example.com>', to: agentB.email, subject: 'For B only', mode: 'test', source: 'simulator' });
    expect(rec.auth).toBe('spf not checked, dkim not checked, dmarc not checked');
    expect(body.trim()).toBe('Hi B\nsecond line');

    const j = jr.json();
    expect(j).toMatchObject({ id: rcvB, object: 'received_message', body_text: 'Hi B\nsecond line' });
    expect(j.raw_url).toContain(`/v1/messages/${rcvB}/raw`);
  });

  it('unknown ids: exit 1 with the error line; no key: exit 4', async () => {
    const [r, raw, badKey] = await Promise.all([
      d.cli(['inbox', 'get', 'rcv_00000000000000000000000000']),
      d.cli(['inbox', 'raw', 'rcv_00000000000000000000000000']),
      d.cli(['--api-key', 'mk_test_nope', 'inbox', 'list']),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(ERROR_LINE);
    expect(raw.code).toBe(1);
    expect(raw.stderr).toMatch(ERROR_LINE);
    expect(raw.stdout).toBe('');
    expect(badKey.code).toBe(4);
  });

  it('raw writes the original bytes unchanged (8-bit, invalid UTF-8, CRLF) to stdout and to --output', async () => {
    const smtp = /SMTP (\S+):(\d+)/.exec(d.stderr());
    expect(smtp, d.stderr()).not.toBeNull();
    const raw = Buffer.concat([
      Buffer.from('From: =?iso-8859-1?q?Ren=E9?= <rene@example.com>\r\nTo: agent@local.mailagent.localhost\r\n' +
        'Subject: Caf\xe9 8-bit\r\nMessage-ID: <raw-test-1@example.com>\r\nMIME-Version: 1.0\r\n' +
        'Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n', 'latin1'),
      Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0xff, 0xfe, 0x80, 0x0d, 0x0a]), // "Café" in latin-1 and bytes that are not UTF-8
      Buffer.from('trailing  spaces  \r\n', 'latin1'),
    ]);
    const transport = nodemailer.createTransport({ host: smtp![1], port: Number(smtp![2]), secure: false, ignoreTLS: true });
    const info = await transport.sendMail({ envelope: { from: 'rene@example.com', to: [AGENT] }, raw });
    transport.close();
    const id = /rcv_[0-9a-z]+/.exec(info.response)![0];

    // From loopback (a trusted network) the receiving MTA prepends its Authentication-Results
    // line, as MTAs do; every byte of the message itself follows unchanged.
    const viaApiRaw = Buffer.from(await (await fetch(`${d.url}/v1/messages/${id}/raw`, { headers: { authorization: `Bearer ${d.testKey}` } })).arrayBuffer());
    const firstLine = viaApiRaw.subarray(0, viaApiRaw.indexOf('\r\n') + 2);
    expect(firstLine.toString('latin1')).toMatch(/^Authentication-Results: [^\r\n]*x-trusted-network=pass/);
    expect(viaApiRaw.subarray(firstLine.length).equals(raw)).toBe(true);
    const stored = viaApiRaw;

    const file = join(d.home, 'out.eml');
    const p = spawnCli(['inbox', 'raw', id]);
    const [code, r] = await Promise.all([p.exited, d.cli(['inbox', 'raw', id, '--output', file])]);
    expect(code, p.stderr()).toBe(0);
    expect(p.stdout().equals(stored)).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(file).equals(stored)).toBe(true);
    const j = await d.cli(['inbox', 'raw', id, '--output', file, '--json']);
    expect(j.json()).toEqual({ id, output: file, size: stored.length });
  });
});

describe('wait', () => {
  it('prints a message that arrives while it waits (--json: the received message)', async () => {
    const p = spawnCli(['wait', '--agent', 'agent', '--address', 'agent+signup@local.mailagent.localhost', '--timeout', '30s', '--json']);
    // The wait's default start is "when the daemon gets the request", which the test cannot see:
    // deliver until the waiter answers, and check it returned one of ours.
    const sent: string[] = [];
    const exited = p.exited.then((code) => ({ code }));
    let result: { code: number | null } | undefined;
    void exited.then((r) => (result = r));
    for (let i = 0; !result && i < 100; i++) {
      sent.push((await simulate({ to: 'agent+signup@local.mailagent.localhost', subject: `code ${i}`, body_text: `Your code is ${100000 + i}` })).message_id);
      // Other mail to the agent must not satisfy a wait on the plus address.
      await simulate({ subject: `noise ${i}`, body_text: 'not for the waiter' });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await exited).code, p.stderr()).toBe(0);
    const m = JSON.parse(p.stdout().toString('utf8'));
    expect(sent).toContain(m.id);
    expect(m.delivered_to).toBe('agent+signup@local.mailagent.localhost');
    expect(m.body_text).toMatch(/^Your code is 1000\d\d$/);
  });

  it('--since returns mail that already arrived; human view shows the body', async () => {
    const before = await simulate({ subject: 'Already here', body_text: 'early bird' });
    const newer = await simulate({ subject: 'Newer', body_text: 'second' });
    const [r, t] = await Promise.all([
      d.cli(['wait', '--agent', 'agent', '--since', before.message_id, '--timeout', '0']),
      d.cli(['wait', '--agent', 'agent', '--since', '2000-01-01T00:00:00Z', '--timeout', '0', '--json']),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`id\t${newer.message_id}`);
    expect(r.stdout.trim().endsWith('second')).toBe(true);
    expect(t.code, t.stderr).toBe(0);
    expect(t.json().object).toBe('received_message');
  });

  it('times out with exit 1 and a clear stderr line; durations 1s and 0', async () => {
    const last = (await simulate({ subject: 'latest', body_text: 'x' })).message_id;
    const [r, z] = await Promise.all([
      d.cli(['wait', '--agent', 'agent', '--since', last, '--timeout', '1s']),
      d.cli(['wait', '--agent', 'agent', '--address', 'agent+none@local.mailagent.localhost', '--timeout', '0', '--json']),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('error: timed out after 1 s: no mail to agent');
    expect(z.code).toBe(1);
    expect(z.stderr).toContain('timed out after 0 s: no mail to agent+none@local.mailagent.localhost');
  });

  it('bad flags are usage errors (exit 2); API refusals keep their codes', async () => {
    const usage = [['--timeout', '5x'], ['--timeout', '-1'], ['--timeout', '1.5m'], ['--since', 'yesterday']];
    const [noAgent, unknown, foreign, ...bad] = await Promise.all([
      d.cli(['wait']),
      d.cli(['wait', '--agent', 'nobody', '--timeout', '0']),
      d.cli(['wait', '--agent', 'agent', '--address', 'someone@example.com', '--timeout', '0']),
      ...usage.map((args) => d.cli(['wait', '--agent', 'agent', ...args])),
    ]);
    bad.forEach((r, i) => expect(r.code, usage[i].join(' ')).toBe(2));
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('missing --agent');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(ERROR_LINE);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('param address');
  });

  describe('through a proxy that records waits and shortens them to 1 s', () => {
    let proxy: Server;
    let proxyUrl: string;
    const waits: URLSearchParams[] = [];

    beforeAll(async () => {
      // A real local HTTP proxy in front of the real daemon: each long-poll becomes 1 s long so
      // chaining past the daemon's 60 s cap can be watched without waiting minutes.
      proxy = createServer((req, res) => {
        const u = new URL(req.url!, d.url);
        if (u.pathname.endsWith('/inbox/wait')) {
          waits.push(new URLSearchParams(u.searchParams));
          u.searchParams.set('timeout', String(Math.min(1, Number(u.searchParams.get('timeout') ?? 30))));
        }
        const up = httpRequest(d.url + u.pathname + u.search, { method: req.method, headers: req.headers }, (ur) => {
          res.writeHead(ur.statusCode!, ur.headers);
          ur.pipe(res);
        });
        req.on('aborted', () => up.destroy());
        res.on('close', () => up.destroy());
        up.on('error', () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(async () => { await new Promise((r) => proxy.close(r)); });

    it('a timeout over 60 s chains waits from one starting point: nothing older, nothing missed', async () => {
      const old = (await simulate({ subject: 'before the wait', body_text: 'old' })).message_id;
      waits.length = 0;
      const p = spawnCli(['wait', '--agent', 'agent', '--timeout', '5m', '--json'], { ...d.env, MAILAGENT_BASE_URL: proxyUrl });
      await until(() => waits.length >= 3 || p.child.exitCode !== null, 'three chained waits');
      const fresh = (await simulate({ subject: 'after the wait began', body_text: 'new' })).message_id;
      expect(await p.exited, p.stderr()).toBe(0);
      expect(JSON.parse(p.stdout().toString('utf8')).id).toBe(fresh);
      // Every wait asked for the daemon's maximum and started after the newest message at launch.
      expect(new Set(waits.map((w) => w.get('since')))).toEqual(new Set([old]));
      expect(waits.every((w) => w.get('timeout') === '60')).toBe(true);
    });

    it('a timeout over 60 s with --since keeps that --since on every wait', async () => {
      const since = '2999-01-01T00:00:00Z';
      waits.length = 0;
      const p = spawnCli(['wait', '--agent', 'agent', '--since', since, '--timeout', '90'], { ...d.env, MAILAGENT_BASE_URL: proxyUrl });
      await until(() => waits.length >= 2, 'two chained waits');
      p.child.kill('SIGINT');
      expect(await p.exited).toBe(130);
      // The one time parser normalises the time (…:00Z → …:00.000Z); every wait keeps the same one.
      expect(waits.every((w) => w.get('since') === new Date(since).toISOString())).toBe(true);
    });

    it('Ctrl-C ends a wait at once with exit 130', async () => {
      waits.length = 0;
      const p = spawnCli(['wait', '--agent', 'agent', '--timeout', '30'], { ...d.env, MAILAGENT_BASE_URL: proxyUrl });
      await until(() => waits.length >= 1, 'the wait request');
      p.child.kill('SIGINT');
      expect(await p.exited).toBe(130);
      expect(p.stdout().length).toBe(0);
      expect(waits[0].get('timeout')).toBe('30');
      expect(waits[0].has('since')).toBe(false);
    });
  });
});
