import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BIN, ROOT, isolatedEnv, startDaemon, tempHome, type TestDaemon } from '../../helpers/daemon.js';

/**
 * docs/self-hosting.md, run. Every command line of its ```sh blocks is either executed here (with
 * /var/lib/mailagent, /etc/mailagent and /var/backups/mailagent mapped into a temp dir, the
 * ports onto free ones, and `sudo`/`sudo -u mailagent` dropped) or listed in NOT_RUN, whose
 * system-administration effects the test reproduces (a directory made, the daemon started or
 * stopped as systemd would). A new command in the doc fails this test until it is one or the other.
 */
const NOT_RUN: [RegExp, string][] = [
  [/^sudo apt-get /, 'installs system packages'],
  [/^git clone /, 'fetches the sources (the test runs this checkout)'],
  [/^(cd mailagent && git pull && )?npm ci && npm pack\b/, 'builds the package file (the test runs this checkout\'s build)'],
  [/^sudo npm install -g /, 'installs mailagent system-wide (the test runs this checkout\'s bin/mailagent)'],
  [/^sudo useradd /, 'creates a system user'],
  [/^sudo install -d /, 'creates a directory owned by the service user (the test makes it)'],
  [/^sudo install -m 0644 contrib\/systemd\//, 'installs the unit (contrib.test.ts runs systemd-analyze verify on it)'],
  [/^sudo certbot /, 'needs a public DNS name and port 80'],
  [/^sudo cp \/etc\/letsencrypt\//, 'needs a certbot certificate (the self-signed one below is made instead)'],
  [/^sudo (chown|chmod) /, 'changes ownership to the service user'],
  [/^sudo systemctl /, 'drives systemd (the test starts and stops the daemon itself)'],
];

interface Cmd { text: string; line: number }

/** Commands of the ```sh blocks: heredocs and `\` continuations joined, comments and blanks dropped. */
function commands(md: string): Cmd[] {
  const out: Cmd[] = [];
  const lines = md.split('\n');
  let inSh = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^```sh\s*$/.test(l)) { inSh = true; continue; }
    if (/^```/.test(l)) { inSh = false; continue; }
    if (!inSh || !l.trim() || l.trim().startsWith('#')) continue;
    let text = l;
    const start = i + 1;
    const here = /<<'?(\w+)'?/.exec(l);
    if (here) {
      while (++i < lines.length && lines[i] !== here[1]) text += '\n' + lines[i];
      text += '\n' + here[1];
    }
    while (text.endsWith('\\')) text = text.slice(0, -1) + ' ' + lines[++i].trim();
    out.push({ text, line: start });
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

describe('docs/self-hosting.md', () => {
  it('every command in it runs (or is declared a system-administration step the test reproduces)', async () => {
    const md = readFileSync(join(ROOT, 'docs', 'self-hosting.md'), 'utf8');
    const cmds = commands(md);
    expect(cmds.length).toBeGreaterThan(15);
    const home = tempHome();
    const root = join(home, 'vm');
    const map: [string, string][] = [
      ['/var/lib/mailagent', join(root, 'var-lib-mailagent')],
      ['/etc/mailagent', join(root, 'etc-mailagent')],
      ['/var/backups/mailagent', join(root, 'var-backups-mailagent')],
    ];
    const shim = join(home, 'bin');
    mkdirSync(shim, { recursive: true });
    writeFileSync(join(shim, 'mailagent'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(shim, 'mailagent'), 0o755);
    const metricsPort = await freePort();
    const env = isolatedEnv(home, { PATH: `${shim}:${process.env.PATH}`, MAILAGENT_PORT: '0', MAILAGENT_SMTP_PORT: '0' });
    let daemon: TestDaemon | null = null;
    const ran: string[] = [];
    const skipped: string[] = [];
    const start = async () => {
      daemon = await startDaemon({ home, dataDir: map[0][1], env: { MAILAGENT_METRICS_LISTEN: `127.0.0.1:${metricsPort}` }, timeoutMs: 60_000 });
    };
    try {
      for (const c of cmds) {
        const rule = NOT_RUN.find(([re]) => re.test(c.text));
        if (rule) {
          skipped.push(c.text);
          // Reproduce what the step does to the machine.
          const dir = /^sudo install -d .* (\S+)$/.exec(c.text)?.[1];
          if (dir) mkdirSync(map.reduce((s, [a, b]) => s.replace(a, b), dir), { recursive: true });
          if (/systemctl (enable --now|start) mailagent/.test(c.text)) await start();
          if (/systemctl stop mailagent/.test(c.text)) { await daemon!.stop({ keep: true }); daemon = null; }
          continue;
        }
        let text = c.text.replace(/^sudo -u mailagent /, '').replace(/^sudo /, '');
        for (const [a, b] of map) text = text.replaceAll(a, b);
        text = text.replaceAll('127.0.0.1:9464', `127.0.0.1:${metricsPort}`);
        if (daemon) {
          const d = daemon as TestDaemon;
          text = text.replaceAll('http://127.0.0.1:7420', d.url);
          const smtp = /SMTP \S+:(\d+)/.exec(d.stderr())![1];
          text = text.replaceAll('127.0.0.1:2525', `127.0.0.1:${smtp}`);
        }
        const r = spawnSync('bash', ['-o', 'pipefail', '-c', text], { env, cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
        expect(r.status, `docs/self-hosting.md:${c.line}: ${text}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
        ran.push(c.text);
        // What each kind of step must have produced.
        if (/ init /.test(text)) expect(existsSync(join(map[0][1], 'mailagent.db'))).toBe(true);
        if (/--print-config/.test(text)) expect(JSON.parse(r.stdout)).toMatchObject({ tlsCert: join(map[1][1], 'tls', 'fullchain.pem'), retentionMessagesDays: 90 });
        if (/health --ready/.test(text)) expect(r.stdout + r.stderr).toMatch(/ready/);
        if (/\/metrics/.test(text)) expect(r.stdout).toMatch(/^# TYPE mailagent_messages_received_total counter$/m);
        if (/s_client/.test(text)) expect(r.stdout + r.stderr).toMatch(/CONNECTION ESTABLISHED|Protocol version: TLS/);
        if (/ backup /.test(text)) expect(r.stderr + r.stdout).toMatch(/integrity ok/);
        if (/ doctor /.test(text)) expect(r.stdout).toMatch(/^ok {4}data dir/m);
      }
      expect(ran.some((t) => t.includes('mailagent restore'))).toBe(true);
      expect(ran.filter((t) => /mailagent /.test(t)).length).toBeGreaterThanOrEqual(9);
      expect(skipped.length).toBeGreaterThan(0);
      expect(daemon).not.toBeNull(); // restarted after the restore, as `systemctl start` would
    } finally {
      await (daemon as TestDaemon | null)?.stop({ keep: true });
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});
