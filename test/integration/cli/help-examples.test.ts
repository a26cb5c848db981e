/**
 * A second round of what an outside tester found following the README: the examples `--help`
 * prints, run as written (a bash line each, `mailagent` on PATH) against a real daemon holding
 * several agents; exit codes of bad numbers and header values; ids on a pipe; hints; neutralised
 * control characters in the events views; doctor's exit code with warnings only.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { BIN, spawnCli, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  d = await startDaemon();
  // A directory holding the files the examples name, and `mailagent` on PATH.
  work = join(d.home, 'work');
  const bin = join(d.home, 'bin');
  mkdirSync(work, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mailagent'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mailagent'), 0o755);
  writeFileSync(join(work, 'note.txt'), 'A note.\n');
  writeFileSync(join(work, 'refused.txt'), 'Hello, about your order.\n');
  writeFileSync(join(work, 'report.pdf'), '%PDF-1.4 a tiny report\n');
  env = { ...d.env, PATH: `${bin}:${process.env.PATH}` };
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

function bash(line: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', line], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** The example lines under "Examples:" in `mailagent <command> --help`, as the user reads them. */
async function helpExamples(...command: string[]): Promise<string[]> {
  const r = await d.cli([...command, '--help']);
  expect(r.code).toBe(0);
  const tail = r.stdout.slice(r.stdout.indexOf('\nExamples:\n'));
  return [...tail.matchAll(/^ {2}\$ (.+)$/gm)].map((m) => m[1]);
}

describe('--help examples run as written on a workspace with several agents', () => {
  it('agents create, keys create, send, appeal, drafts create|update|send and messages reschedule', async () => {
    const run = async (line: string) => {
      const r = await bash(line);
      expect(r.code, `${line}\nstdout: ${r.out}\nstderr: ${r.err}`).toBe(0);
      return r;
    };
    // `agents create support --domain mail.example.com` needs a verified domain; the others run.
    for (const line of (await helpExamples('agents', 'create')).filter((l) => !l.includes('--domain'))) await run(line);
    const agents = await d.api('GET', '/v1/agents?limit=100');
    expect(agents.data.map((a: { name: string }) => a.name).sort()).toEqual(['agent', 'billing', 'sarah']);
    expect(agents.data.find((a: { name: string }) => a.name === 'billing').daily_send_limit).toBe(200);

    // Numbers in the examples stay within the free tier's caps (hourly 30, daily 300): a default install runs them.
    for (const cmd of [['agents', 'update'], ['keys', 'create'], ['send'], ['appeal']]) {
      const lines = await helpExamples(...cmd);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) await run(line);
    }

    // The draft and message examples, with their placeholder ids replaced by real ones.
    const created = await helpExamples('drafts', 'create');
    for (const line of created) await run(line);
    const draftId = () => d.api('POST', '/v1/drafts', { agent: 'sarah', to: ['bob@example.com'], subject: 'x', body_text: 'y' }).then((r) => r.id as string);
    for (const cmd of [['drafts', 'update'], ['drafts', 'send']]) {
      for (const line of await helpExamples(...cmd)) await run(line.replace('dft_01j...', await draftId()));
    }
    for (const line of await helpExamples('messages', 'reschedule')) {
      const m = await d.api('POST', '/v1/messages', { agent: 'sarah', to: ['bob@example.com'], subject: 'later', body_text: 'x', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
      await run(line.replace('msg_01j...', m.id));
    }
  }, 120_000);
});

describe('bad values are usage errors (exit 2)', () => {
  it('--limit out of 1..100 and a send limit out of range are refused before any request', async () => {
    const runs = await Promise.all([
      d.cli(['agents', 'list', '--limit', '0']),
      d.cli(['keys', 'list', '--limit', '101']),
      d.cli(['messages', 'list', '--limit', '0']),
      d.cli(['agents', 'create', 'toomany', '--daily-send-limit', '10000001']),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).not.toContain('request req_');
    }
    expect(runs[0].stderr).toContain('--limit must be from 1 to 100');
    expect(runs[3].stderr).toContain('--daily-send-limit must be from 0 to 10000000');
  });

  it('api -H with a line break or another control character: exit 2, the value shown neutralised', async () => {
    const [crlf, esc, name] = await Promise.all([
      d.cli(['api', 'GET', '/v1/agents', '-H', 'X-Evil: a\r\nInjected: b']),
      d.cli(['api', 'GET', '/v1/agents', '-H', 'X-Evil: a\x1b[31mred']),
      d.cli(['api', 'GET', '/v1/agents', '-H', 'X Evil: a']),
    ]);
    for (const r of [crlf, esc, name]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/[\r\x1b]/);
      expect(r.stderr).not.toContain('Headers.append');
    }
    expect(crlf.stderr).toContain('must not contain line breaks or other control characters');
    expect(esc.stderr).toContain('X-Evil: a^[[31mred');
    expect(name.stderr).toContain('the name must be a token');
    const ok = await d.cli(['api', 'GET', '/v1/agents', '-H', 'X-Fine:\tvalue with a tab']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe('create commands on a pipe print the id', () => {
  it('drafts create and agents create: the id alone (like send); --json the object', async () => {
    const [draft, draftJson, agent] = await Promise.all([
      d.cli(['drafts', 'create', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Piped']),
      d.cli(['drafts', 'create', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Json', '--json']),
      d.cli(['agents', 'create', 'piped']),
    ]);
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.stdout).toMatch(/^dft_[0-9a-z]{26}\n$/);
    expect(draftJson.json()).toMatchObject({ subject: 'Json', status: 'draft' });
    expect(agent.stdout).toMatch(/^agt_[0-9a-z]{26}\n$/);
    const shown = await d.cli(['drafts', 'get', draft.stdout.trim(), '--json']);
    expect(shown.json().subject).toBe('Piped');
  });
});

describe('messages get with a received message id', () => {
  it('names `mailagent inbox get` (the API error is unchanged)', async () => {
    const sim = await d.api('POST', '/v1/test/inbound', { agent: 'agent', from: 'alice@example.com', subject: 'hi', body_text: 'hello' });
    const r = await d.cli(['messages', 'get', sim.message_id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${sim.message_id} is a received message: \`mailagent messages get\` shows sent messages (msg_); use \`mailagent inbox get ${sim.message_id}\``);
    expect(r.stderr).toMatch(/\(code [a-z_]+, request req_/);
    const api = await fetch(`${d.url}/v1/messages/${sim.message_id}`, { headers: { authorization: `Bearer ${d.testKey}` } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { message: string } }).error.message).not.toContain('inbox get');
    const sent = await d.cli(['messages', 'get', 'msg_00000000000000000000000000']);
    expect(sent.code).toBe(1);
    expect(sent.stderr).not.toContain('inbox get');
  });
});

describe('events views neutralise control characters like every other command', () => {
  it('events list and events tail show ^[ (not \\u001b) and let no escape sequence through', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    // Over SMTP, as a stranger's mail comes: the simulator refuses a subject with control characters (as a send does).
    const smtp = /SMTP (\S+):(\d+)/.exec(d.stderr())!;
    const transport = nodemailer.createTransport({ host: smtp[1], port: Number(smtp[2]), secure: false, ignoreTLS: true });
    await transport.sendMail({
      envelope: { from: 'mallory@example.com', to: ['agent@local.mailagent.localhost'] },
      raw: 'From: mallory@example.com\r\nTo: agent@local.mailagent.localhost\r\nSubject: Hi \x1b[31mred\x07\r\n\r\nx\r\n',
    });
    transport.close();
    const list = await d.cli(['events', 'list', '--type', 'message.received', '--limit', '1']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('"Hi ^[[31mred^G"');
    const t = spawnCli(['events', 'tail', '--since', since, '--type', 'message.received'], { ...d.env, FORCE_COLOR: '1' });
    try {
      await t.until((o) => o.stdout.includes('mallory@'));
      expect(t.stdout()).toContain('"Hi ^[[31mred^G"');
      expect(t.stdout()).not.toContain('\\u001b');
      expect(t.stdout()).not.toContain('\x1b[31mred');
    } finally {
      await t.interrupt();
    }
  });
});

describe('doctor', () => {
  it('exits 0 with warnings only (no relay on a default install) and says so in --help', async () => {
    const r = await d.cli(['doctor', '--data-dir', d.dataDir], { env: { MAILAGENT_MIN_FREE_DISK_MB: '1' }, timeoutMs: 40_000 });
    expect(r.stdout).toMatch(/^warn {2}relay: no relay configured/m);
    expect(r.stdout).not.toMatch(/^FAIL/m);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const help = await d.cli(['doctor', '--help']);
    expect(help.stdout).toMatch(/Exit codes: 0 every check passed or only warned/);
  }, 60_000);
});

describe('docs match the daemon', () => {
  it('docs/inbound.md shows the wait timeout as the daemon answers it; api-foundation.md the logLevel default of --print-config', async () => {
    const { readFileSync } = await import('node:fs');
    const { ROOT } = await import('../../helpers/daemon.js');
    const res = await fetch(`${d.url}/v1/agents/agent/inbox/wait?timeout=0`, { headers: { authorization: `Bearer ${d.testKey}` } });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toEqual({ timed_out: true });
    expect(readFileSync(join(ROOT, 'docs/inbound.md'), 'utf8')).toContain(JSON.stringify(body).replace('{', '{ ').replace(':', ': ').replace('}', ' }'));

    const printed = await d.cli(['serve', '--print-config', '--data-dir', join(d.home, 'print-config')]);
    expect(printed.code, printed.stderr).toBe(0);
    const level = printed.json().logLevel;
    const foundation = readFileSync(join(ROOT, 'docs/api-foundation.md'), 'utf8');
    expect(foundation).toContain(`| \`logLevel\` | \`--log-level\` | \`MAILAGENT_LOG_LEVEL\` | \`${level}\` |`);
    expect(foundation).not.toMatch(/`spec\/agent-email-api\.md`/);
  });
});

describe('--help examples and the CLI\'s default test key', () => {
  // Not run: commands that never call the API with a key (the daemon, the data dir, local files,
  // shells), and those that wait or stream until interrupted.
  const SKIP = /^(serve|init|admin|backup|restore|doctor|completion|mcp|ui|health|classify|wait|events tail|webhooks listen)( |$)/;

  it('no example fails for want of --live: each one that calls the daemon runs as written without 403 live_mode_required (exit 4)', async () => {
    const { buildProgram } = await import('../../../src/cli/program.js');
    const { examplesOf } = await import('../../../src/cli/context.js');
    type Cmd = ReturnType<typeof buildProgram>;
    const walk = (c: Cmd, path: string[] = []): { cmd: Cmd; path: string[] }[] => [{ cmd: c, path }, ...c.commands.flatMap((s) => walk(s as Cmd, [...path, s.name()]))];
    const lines = walk(buildProgram())
      .filter(({ path }) => path.length && !SKIP.test(path.join(' ')))
      .flatMap(({ cmd }) => examplesOf(cmd))
      .filter((l) => !/--follow|pbpaste/.test(l));
    expect(lines.length).toBeGreaterThan(100);
    // The agents and the suppression the examples name.
    for (const name of ['support', 'sales']) await d.api('POST', '/v1/agents', { name }).catch(() => undefined);
    const failed: string[] = [];
    for (let i = 0; i < lines.length; i += 4) {
      await Promise.all(lines.slice(i, i + 4).map(async (line) => {
        const r = await bash(`timeout 30 ${line.replace(/^mailagent/, 'mailagent')}`);
        if (r.code === 4 || /live_mode_required/.test(r.err + r.out)) failed.push(`${line}\n  exit ${r.code}: ${r.err.trim().split('\n').pop()}`);
      }));
    }
    expect(failed, failed.join('\n')).toEqual([]);
  }, 600_000);

  it('suppression: every example runs as written (add and allow with --live, as their --help says)', async () => {
    for (const name of ['support', 'sales']) await d.api('POST', '/v1/agents', { name }).catch(() => undefined);
    const help = await d.cli(['suppression', 'add', '--help']);
    expect(help.stdout).toContain('Needs a live key (--live)');
    const run = async (line: string) => {
      const r = await bash(line);
      expect(r.code, `${line}\nstdout: ${r.out}\nstderr: ${r.err}`).toBe(0);
      return r.out.trim();
    };
    for (const cmd of ['add', 'get', 'list', 'allowed']) for (const line of await helpExamples('suppression', cmd)) await run(line);
    const entries = await d.api('GET', '/v1/suppression/entries?limit=100', undefined, d.liveKey);
    expect(entries.data.map((e: { address: string }) => e.address)).toContain('bob@example.com');
    // Each allow example prints its entry's id; each unallow example undoes the one its key may undo.
    const ids = { live: '', test: '' };
    for (const line of await helpExamples('suppression', 'allow')) ids[line.includes('--live') ? 'live' : 'test'] = await run(line);
    expect(ids.live).toMatch(/^alw_/);
    expect(ids.test).toMatch(/^alw_/);
    for (const line of await helpExamples('suppression', 'unallow')) await run(line.replace('alw_01j...', ids[line.includes('--live') ? 'live' : 'test']));
  }, 120_000);
});
