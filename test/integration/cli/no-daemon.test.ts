import { createServer } from 'node:net';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, isolatedEnv, runCli, tempHome } from '../../helpers/daemon.js';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('without a daemon', () => {
  it('a refused connection names the URL and says serve may not be running (exit 1)', async () => {
    const port = await closedPort();
    const home = tempHome();
    try {
      const r = await runCli(['whoami', '--base-url', `http://127.0.0.1:${port}`, '--api-key', 'mk_test_00000000000000000000000000000000'], { env: isolatedEnv(home) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`http://127.0.0.1:${port}`);
      expect(r.stderr).toContain('mailagent serve');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('serve --print-config prints the resolved config with secrets redacted', async () => {
    const home = tempHome();
    try {
      const r = await runCli(['serve', '--print-config', '--port', '8123', '--relay', 'smtp://user:hunter2@relay.example:587'], { env: isolatedEnv(home) });
      expect(r.code, r.stderr).toBe(0);
      const c = r.json();
      expect(c.port).toBe(8123);
      expect(c.relay).toBe('smtp://user:****@relay.example:587');
      expect(c.$sources).toMatchObject({ port: 'flag', relay: 'flag', smtpPort: 'default' });
      expect(r.stdout).not.toContain('hunter2');
      expect(existsSync(join(home, 'data', 'mailagent', 'mailagent.db'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('serve with a bad flag value is a usage error naming the field', async () => {
    const home = tempHome();
    try {
      const r = await runCli(['serve', '--print-config', '--port', 'eighty'], { env: isolatedEnv(home) });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/port/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('--help and --version exit 0; no arguments prints help', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mailagent');
    for (const noun of ['init', 'serve', 'whoami', 'agents', 'keys', 'api', 'completion']) expect(help.stdout).toContain(noun);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const none = await runCli([]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('Usage: mailagent');
  });
});
