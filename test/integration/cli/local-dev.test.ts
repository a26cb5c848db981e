/**
 * Issue #11, local development: the first hour of a developer, end to end — the real CLI
 * against a real `mailagent serve`, real SMTP from loopback.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, isolatedEnv, startDaemon, tempHome, type TestDaemon } from '../../helpers/daemon.js';
import { idJustBefore } from '../../helpers/ids.js';
import { onPostgres } from '../../helpers/postgres.js';

let d: TestDaemon;
const AGENT = 'agent@local.mailagent.localhost';

beforeAll(async () => {
  d = await startDaemon({ args: ['--log-level', 'info'] });
  await d.cli(['agents', 'create', 'sarah']);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

function smtpTransport() {
  const m = /SMTP (\S+):(\d+)/.exec(d.stderr())!;
  return nodemailer.createTransport({ host: m[1], port: Number(m[2]), secure: false, ignoreTLS: true });
}

describe('sending from the shell', () => {
  it('send without --agent among several agents is a usage error naming them; --at takes +2h like --send-at', async () => {
    const noAgent = await d.cli(['send', '--to', 'bob@example.com', '--subject', 's', '--body', 'b']);
    // Several agents and no --agent: the CLI refuses it as the usage error it is (exit 2), naming them.
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toMatch(/^error: missing --agent: this workspace has \d+ live agents \(/m);
    const later = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Later', '--body', 'b', '--at', '+2h', '--json']);
    expect(later.code, later.stderr).toBe(0);
    expect(later.json()).toMatchObject({ status: 'scheduled' });
    const bad = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 's', '--body', 'b', '--at', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--at');
    // A time in the past would be sent at once by the API (spec): the CLI refuses it, sending nothing.
    const before = (await d.api('GET', '/v1/messages?limit=100')).data.length;
    const past = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Typo', '--body', 'b', '--at', '2020-05-01T09:00:00Z']);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--at 2020-05-01T09:00:00Z is in the past/);
    expect((await d.api('GET', '/v1/messages?limit=100')).data.length).toBe(before);
  });

  it('empty stdin is refused unless --body "" says so', async () => {
    const empty = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Blank'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/stdin is empty.*--body ""/);
    const onPurpose = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Blank', '--body', ''], { input: '' });
    expect(onPurpose.code, onPurpose.stderr).toBe(0);
  });

  it('a test send the cold screen would refuse warns on stderr (not with --quiet)', async () => {
    const cold = ['send', '--agent', 'agent', '--to', 'ceo@bigcorp.example', '--subject', 'Quick question about your growth',
      '--body', 'Hi, I came across your company and wanted to reach out. We help companies increase your revenue by 3x. Do you have 15 minutes for a quick call next week?'];
    const r = await d.cli(cold);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^msg_[0-9a-z]+\n$/);
    expect(r.stderr).toMatch(/warning: a live key would be refused: cold_email_prohibited/);
    const q = await d.cli(['--quiet', ...cold]);
    expect(q.stderr).toBe('');
  });

  it('messages get writes tags and attachments out; send --json lists the attachment', async () => {
    const file = join(d.home, 'report.csv');
    writeFileSync(file, 'a,b\n1,2\n');
    const s = await d.cli(['send', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Report', '--body', 'attached', '--attach', file, '--tag', 'kind=report', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.json().attachments).toEqual([expect.objectContaining({ filename: 'report.csv', content_type: 'text/csv', size: 8 })]);
    const g = await d.cli(['messages', 'get', s.json().id]);
    expect(g.stdout).not.toContain('[object Object]');
    expect(g.stdout).toMatch(/^tags\tkind=report$/m);
    expect(g.stdout).toMatch(/^attachment 1\treport\.csv {2}text\/csv {2}8 bytes$/m);
  });
});

describe('receiving during development', () => {
  it('mail from the developer\'s own app over SMTP (loopback, unsigned, no SPF) is message.received, and logged', async () => {
    const info = await smtpTransport().sendMail({ from: 'app@my-app.test', to: AGENT, subject: 'Sign up', html: '<p>Welcome! <a href="https://my-app.test/verify?t=abc123">Verify your address</a></p>' });
    const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
    const m = await d.api('GET', `/v1/messages/received/${id}`);
    expect([m.spf_pass, m.dkim_pass, m.trusted_network]).toEqual([null, null, '127.0.0.0/8']);
    const ev = await d.api('GET', `/v1/events?event_type=message.received&limit=5`, undefined, d.liveKey);
    expect(ev.data.some((e: { source_message_id?: string }) => e.source_message_id === id)).toBe(true);
    // The link lives only in href: it is found, and wait --extract link prints it.
    const link = await d.cli(['--live', 'wait', '--agent', 'agent', '--since', idJustBefore(id), '--extract', 'link', '--timeout', '5s']);
    expect(link.stdout.trim(), link.stderr).toBe('https://my-app.test/verify?t=abc123');
    // One info line per received message on the daemon's stderr (JSON: not a terminal).
    await new Promise((r) => setTimeout(r, 200));
    expect(d.stderr()).toMatch(new RegExp(`"id":"${id}".*"msg":"mail received"`));
  });

  it('wait --extract code prints the code, passing over mail without one; exit 1 when none arrives; codes show in the human view', async () => {
    // From now on: the earlier tests' mail (already read back by them) is older than this instant.
    const t0 = new Date().toISOString();
    // Mail without a code first, in the same window: passed over, not the answer.
    await d.cli(['inbound', 'simulate', '--agent', 'agent', '--from', 'carol@example.com', '--subject', 'Hello', '--body', 'Just saying hello.']);
    await d.cli(['inbound', 'simulate', '--agent', 'agent', '--from', 'alice@example.com', '--subject', 'Your code', '--body', 'Your code is 482913']);
    const code = await d.cli(['wait', '--agent', 'agent', '--since', t0, '--extract', 'code', '--timeout', '5s']);
    expect(code.stdout, code.stderr).toBe('482913\n');
    expect(code.stderr).toMatch(/passed over rcv_\w+ from carol@example\.com \(no one-time code\)/);
    const human = await d.cli(['wait', '--agent', 'agent', '--since', t0, '--from', 'alice@example.com', '--timeout', '5s']);
    expect(human.stdout).toMatch(/^codes\t482913$/m);
    await d.cli(['inbound', 'simulate', '--agent', 'sarah', '--from', 'bob@example.com', '--subject', 'Lunch', '--body', 'Lunch on Friday?']);
    const none = await d.cli(['wait', '--agent', 'sarah', '--since', '-1m', '--extract', 'code', '--timeout', '3s']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/timed out after 3 s: no mail to sarah \(passed over 1 without a one-time code\)/);
  });

  it('held plus-address mail: the SMTP reply says so, and wait --address says it was held and why', async () => {
    const to = 'agent+signup@local.mailagent.localhost';
    const info = await smtpTransport().sendMail({ from: 'no-reply@accounts.google.com', to, subject: 'Your Google verification code', text: 'Your verification code is 482913.' });
    expect(info.response).toMatch(/held, not delivered \(held_code: a sign-in code/);
    const w = await d.cli(['--live', 'wait', '--agent', 'agent', '--address', to, '--since', '-1m', '--timeout', '20s']);
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/a message to agent\+signup@local\.mailagent\.localhost from no-reply@accounts\.google\.com was held, not delivered: held_code/);
  });

  it('threads list is ordered by last activity', async () => {
    const a = await d.cli(['send', '--agent', 'agent', '--to', 'x@example.com', '--subject', 'Older thread', '--body', 'b', '--json']);
    await d.cli(['send', '--agent', 'agent', '--to', 'y@example.com', '--subject', 'Newer thread', '--body', 'b']);
    await d.cli(['inbound', 'simulate', '--agent', 'agent', '--from', 'x@example.com', '--subject', 'Re: Older thread', '--body', 'reply', '--in-reply-to', a.json().id]);
    const list = await d.cli(['threads', 'list', '--json']);
    const subjects = list.json().data.map((t: { subject: string }) => t.subject);
    expect(subjects.indexOf('Older thread')).toBeLessThan(subjects.indexOf('Newer thread'));
  });
});

describe('the daemon and its data directory', () => {
  it('a second daemon on the same data directory exits 1 naming the first; a port clash prints one friendly line', async () => {
    const same = await runCli(['serve', '--port', '0', '--smtp-port', '0', '--data-dir', d.dataDir], { env: d.env, timeoutMs: 30_000 });
    expect(same.code).toBe(1);
    expect(same.stderr).toMatch(new RegExp(`another mailagent \\(PID ${d.child.pid}, API http://127\\.0\\.0\\.1:\\d+`));
    const port = new URL(d.url).port;
    const clash = await runCli(['serve', '--port', port, '--smtp-port', '0', '--data-dir', join(d.home, 'other')], { env: d.env, timeoutMs: 30_000 });
    expect(clash.code).toBe(1);
    expect(clash.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: cannot listen on 127\.0\.0\.1:\d+ for HTTP: the port is in use by another mailagent/)]);
  });

  it('a daemon on a fresh data directory never replaces an existing profile; admin keys create makes a working key', async () => {
    const before = JSON.parse(readFileSync(join(d.env.XDG_CONFIG_HOME!, 'mailagent', 'config.json'), 'utf8'));
    const other = await startDaemon({ home: d.home, dataDir: join(d.home, 'second'), env: { XDG_CONFIG_HOME: d.env.XDG_CONFIG_HOME } });
    try {
      expect(other.stderr()).toMatch(/Profile "default" already exists and was kept; saved these keys as profile "default-2"/);
      const after = JSON.parse(readFileSync(join(d.env.XDG_CONFIG_HOME!, 'mailagent', 'config.json'), 'utf8'));
      expect(after.profiles.default).toEqual(before.profiles.default);
      // A profile names where its keys live: the data dir, or on PostgreSQL the database (no data_dir).
      if (onPostgres) {
        expect(after.profiles['default-2'].database).toMatch(/^postgres(ql)?:\/\//);
        expect(after.profiles['default-2'].data_dir).toBeUndefined();
      } else expect(after.profiles['default-2'].data_dir).toBe(join(d.home, 'second'));
    } finally {
      await other.stop({ keep: true });
    }
    const made = await runCli(['admin', 'keys', 'create', '--name', 'recovery', '--mode', 'live', '--data-dir', d.dataDir, '--json'], { env: d.env });
    expect(made.code, made.stderr).toBe(0);
    const key = made.json().key as string;
    expect(key).toMatch(/^mk_live_[0-9a-f]{32}$/);
    const me = await d.api('GET', '/v1/me', undefined, key);
    expect(me.api_key).toMatchObject({ name: 'recovery', mode: 'live' });
  });

  it('serve --print-config output is a config file serve accepts', async () => {
    const home = tempHome();
    const env = isolatedEnv(home);
    const printed = await runCli(['serve', '--print-config', '--smtp-port', '2999', '--trusted-networks', '10.0.0.0/8'], { env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.json().$sources).toMatchObject({ smtpPort: 'flag', trustedNetworks: 'flag', port: 'default' });
    const file = join(home, 'printed.json');
    writeFileSync(file, printed.stdout);
    const again = await runCli(['serve', '--print-config', '--config', file], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ smtpPort: 2999, trustedNetworks: '10.0.0.0/8', $sources: { smtpPort: 'file' } });
    const broken = join(home, 'broken.json');
    writeFileSync(broken, '{');
    const bad = await runCli(['serve', '--print-config', '--config', broken], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: config: \/.*broken\.json is not valid JSON/m);
    expect(bad.stderr).not.toContain('config: config:');
    expect(existsSync(join(home, 'data', 'mailagent', 'mailagent.db'))).toBe(false);
  });
});
