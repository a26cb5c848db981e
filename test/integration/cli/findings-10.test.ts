/**
 * An outside tester's findings following only the docs (round 10): the real CLI against a real
 * `mailagent serve` (test/helpers/daemon.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe('codes and links of an agent with classify_inbound off', () => {
  it('wait --extract code|link and GET /v1/messages/{id} find them (the classifier did not look; the read does)', async () => {
    const made = await d.cli(['agents', 'create', 'quiet', '--no-classify-inbound', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.json().classify_inbound).toBe(false);
    const since = new Date(Date.now() - 1000).toISOString();
    const sim = await d.api('POST', '/v1/test/inbound', {
      agent: 'quiet', from: 'accounts@example.com', subject: 'Your code', body_text: 'Your code is 482913. Or open https://example.com/verify?t=abc',
    });
    const code = await d.cli(['wait', '--agent', 'quiet', '--since', since, '--extract', 'code', '--timeout', '5s']);
    expect(code.code, code.stderr).toBe(0);
    expect(code.stdout.trim()).toBe('482913');
    expect(code.stderr).not.toContain('passed over');
    const link = await d.cli(['wait', '--agent', 'quiet', '--since', since, '--extract', 'link', '--timeout', '5s']);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout.trim()).toBe('https://example.com/verify?t=abc');
    const full = await d.api('GET', `/v1/messages/received/${sim.message_id}`);
    // Intent is still not classified; only the codes and links are read.
    expect(full.classification.intent).toBe('unclassified');
    expect(full.classification.entities).toEqual({ codes: ['482913'], urls: ['https://example.com/verify?t=abc'] });
    const list = await d.api('GET', '/v1/messages/received?agent_id=quiet&limit=1');
    expect(list.data[0].classification.entities.codes).toEqual(['482913']);
  }, 60_000);
});

describe('api -q with a query already in the path', () => {
  it('merges the parameters (one ?), and a #fragment does not swallow them', async () => {
    await d.api('POST', '/v1/agents', { name: 'mergeq' });
    await d.api('DELETE', '/v1/agents/mergeq');
    const r = await d.cli(['api', 'GET', '/v1/agents?limit=100', '-q', 'status=all']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().data.map((a: { name: string }) => a.name)).toContain('mergeq');
    const frag = await d.cli(['api', 'GET', '/v1/agents?limit=100#top', '-q', 'status=archived']);
    expect(frag.code, frag.stderr).toBe(0);
    expect(frag.json().data.map((a: { name: string }) => a.name)).toEqual(['mergeq']);
  });
});

describe('api on an event stream', () => {
  it('prints the events as they arrive (not buffered until an end that never comes)', async () => {
    const t = spawnCli(['api', 'GET', '/v1/events/stream'], d.env);
    try {
      // The stream carries what happens after the CLI connects, and a loaded machine can take
      // seconds to start the CLI: post until one arrives (an event printed only at the end of the
      // stream, which never comes, would never show).
      let arrived = false;
      for (let i = 0; i < 40 && !arrived; i++) {
        await d.api('POST', '/v1/test/inbound', { agent: 'agent', from: 'streamer@example.com', subject: `streamed ${i}`, body_text: 'x' });
        arrived = await t.until((o) => o.stdout.includes('streamer@example.com'), 1000).then(() => true, () => false);
      }
      expect(arrived, t.stdout()).toBe(true);
      expect(t.stdout()).toMatch(/^event: message\.received$/m);
    } finally {
      await t.interrupt();
    }
  }, 60_000);
});

describe('health against something that is not mailagent', () => {
  let other: Server;
  let url: string;
  beforeAll(async () => {
    other = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => other.close(() => r())));

  it('a plain 200 "ok" is not a healthy daemon (exit 1, says why); the daemon is; --url notaurl is exit 2', async () => {
    for (const args of [['health', '--url', url], ['health', '--ready', '--url', url], ['health', '--ready', '--url', url, '--json']]) {
      const r = await d.cli(args);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toContain("not with mailagent's health document");
      expect(r.stdout).not.toContain('{}');
    }
    const [live, ready] = await Promise.all([d.cli(['health', '--url', d.url]), d.cli(['health', '--ready', '--url', d.url, '--json'])]);
    expect(live.code, live.stderr).toBe(0);
    expect(ready.code, ready.stderr).toBe(0);
    expect(ready.json().status).toBe('ready');
    const bad = await d.cli(['health', '--url', 'notaurl']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--url "notaurl" is not an http:// or https:// URL');
  });
});

describe('send without --agent in a workspace with several agents', () => {
  it('is a usage error (exit 2) naming the agents, before any send', async () => {
    await d.api('POST', '/v1/agents', { name: 'second' });
    const r = await d.cli(['send', '--to', 'bob@example.com', '--subject', 'Hi', '--body', 'x']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/missing --agent: this workspace has \d+ live agents \(/);
    expect(r.stderr).toMatch(/\(.*\bsecond\b.*\); say which one sends/);
    expect(r.stderr).toMatch(/\(.*\bagent\b.*\); say which one sends/);
    expect(r.stderr).not.toContain('request req_');
    const sent = await d.api('GET', '/v1/messages?limit=100').catch(() => null);
    if (sent?.data) expect(sent.data.filter((m: { subject: string }) => m.subject === 'Hi')).toHaveLength(0);
  });
});

describe('POST /v1/agents', () => {
  it('reserves postmaster, abuse and mailer-daemon (400 naming RFC 2142)', async () => {
    for (const name of ['postmaster', 'abuse', 'Mailer-Daemon']) {
      const res = await fetch(`${d.url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
      expect(res.status, name).toBe(400);
      const body = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(body.error).toMatchObject({ code: 'invalid_param_value', param: 'name' });
      expect(body.error.message).toContain('is reserved for the mail domain\'s operator (RFC 2142');
    }
  });

  it('at the agent cap, an invalid name is 400 (validation first), a valid one 402', async () => {
    const live = (await d.api('GET', '/v1/agents?limit=100')).data.length as number;
    for (let i = live; i < 10; i++) await d.api('POST', '/v1/agents', { name: `filler${i}` });
    const post = (name: string) => fetch(`${d.url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    const bad = await post('x y');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_param_value');
    const reserved = await post('abuse');
    expect(reserved.status).toBe(400);
    const fine = await post('eleventh');
    expect(fine.status).toBe(402);
    expect(((await fine.json()) as { error: { code: string } }).error.code).toBe('plan_limit_exceeded');
  });
});

describe('bash completion', () => {
  it('--status completes its values, --profile the profile names, agents get <TAB> the agents; no file names there', async () => {
    const { spawnSync } = await import('node:child_process');
    const { ROOT } = await import('../../helpers/daemon.js');
    const { join } = await import('node:path');
    const { env } = await shellEnv();
    const complete = (words: string[]) => {
      const script = `source ${join(ROOT, 'completions/mailagent.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mailagent; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['-c', script], { cwd: d.home, env, encoding: 'utf8' });
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(complete(['mailagent', 'agents', 'list', '--status', ''])).toEqual(['active', 'all', 'archived', 'live', 'paused']);
    expect(complete(['mailagent', 'threads', 'list', '--status', 'o'])).toEqual(['open']);
    expect(complete(['mailagent', '--profile', ''])).toEqual(['default']);
    expect(complete(['mailagent', 'agents', 'get', 'qu'])).toEqual(['quiet']);
    expect(complete(['mailagent', 'admin', 'tier', ''])).toEqual(['free', 'pro', 'scale']);
  }, 60_000);
});

/** `mailagent` on PATH (a wrapper around this build) and the daemon's environment, for a shell's completion script. */
async function shellEnv(): Promise<{ env: NodeJS.ProcessEnv }> {
  const { BIN } = await import('../../helpers/daemon.js');
  const { chmodSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const bin = join(d.home, 'compbin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mailagent'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mailagent'), 0o755);
  // A loaded machine can take more than the scripts' 2 s to start the CLI and ask the daemon.
  return { env: { ...d.env, PATH: `${bin}:${process.env.PATH}`, MAILAGENT_COMPLETION_TIMEOUT: '30' } };
}

/**
 * zsh and fish complete what bash does, from the same daemon: zsh for real (an interactive zsh in
 * a pseudo-terminal through zsh/zpty, compinit, the generated `_mailagent` on $fpath, a line typed
 * with TAB), fish with its own `complete -C`. Skipped, with the reason, where the shell is missing
 * (.ci/run installs both).
 */
const has = async (shell: string) => (await import('node:child_process')).spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('zsh completion', async () => {
  const missing = !(await has('zsh'));
  it.skipIf(missing)(`completes an agent name from the daemon, --status values, --profile names and a command's agent argument${missing ? ' (skipped: no zsh)' : ''}`, async () => {
    const { spawnSync } = await import('node:child_process');
    const { ROOT } = await import('../../helpers/daemon.js');
    const { copyFileSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { env } = await shellEnv();
    const fp = join(d.home, 'zfunc');
    mkdirSync(fp, { recursive: true });
    copyFileSync(join(ROOT, 'completions/mailagent.zsh'), join(fp, '_mailagent'));
    // Type the line, TAB, then end the line with an echo: what zle shows after TAB is the completion.
    const complete = (line: string): string => {
      const script = join(d.home, 'complete.zsh');
      writeFileSync(script, [
        'zmodload zsh/zpty',
        "zpty z 'zsh -f -i'",
        `zpty -w z 'PS1="> "; fpath=(${fp} $fpath); autoload -Uz compinit; compinit -u -D'`,
        `zpty -w -n z ${JSON.stringify(line)}$'\\t'`,
        `zpty -w z $'\\x05'" ; echo END-OF-LINE"`,
        "zpty -r z out '*END-OF-LINE*END-OF-LINE*'",
        'print -r -- "$out"',
        'zpty -d z',
      ].join('\n'));
      const r = spawnSync('zsh', ['-f', script], { cwd: d.home, env, encoding: 'utf8', timeout: 30_000 });
      // Drop terminal escapes and the characters erased with backspace.
      let text = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
      while (/[^\x08]\x08/.test(text)) text = text.replace(/[^\x08]\x08/g, '');
      return text;
    };
    expect(complete('mailagent agents get qu')).toContain('mailagent agents get quiet ');
    expect(complete('mailagent send --agent qu')).toContain('mailagent send --agent quiet ');
    expect(complete('mailagent agents list --status arc')).toContain('mailagent agents list --status archived ');
    expect(complete('mailagent --profile def')).toContain('mailagent --profile default ');
    expect(complete('mailagent events list --type message.bou')).toContain('mailagent events list --type message.bounced ');
  }, 120_000);
});

describe('fish completion', async () => {
  const missing = !(await has('fish'));
  it.skipIf(missing)(`completes an agent name from the daemon, --status values, --profile names and event types${missing ? ' (skipped: no fish)' : ''}`, async () => {
    const { spawnSync } = await import('node:child_process');
    const { ROOT } = await import('../../helpers/daemon.js');
    const { join } = await import('node:path');
    const { env } = await shellEnv();
    const complete = (line: string): string[] => {
      const r = spawnSync('fish', ['--no-config', '-c', `source ${join(ROOT, 'completions/mailagent.fish')}; complete -C ${JSON.stringify(line)}`], { cwd: d.home, env, encoding: 'utf8', timeout: 30_000 });
      return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort();
    };
    expect(complete('mailagent agents get qu')).toEqual(['quiet']);
    expect(complete('mailagent send --agent qu')).toEqual(['quiet']);
    expect(complete('mailagent agents list --status ')).toEqual(['active', 'all', 'archived', 'live', 'paused']);
    expect(complete('mailagent --profile ')).toEqual(['default']);
    expect(complete('mailagent events list --type message.received,message.bou')).toEqual(['message.received,message.bounced']);
    // suppression's --type has values of its own, not event types.
    expect(complete('mailagent suppression add x@example.com --type ')).not.toContain('message.bounced');
  }, 120_000);
});
