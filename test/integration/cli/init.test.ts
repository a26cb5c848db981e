import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, startDaemon, tempHome, type TestDaemon } from '../../helpers/daemon.js';

describe('init, then serve on the initialised data dir', () => {
  const home = tempHome();
  const env = isolatedEnv(home);
  const dataDir = join(home, 'data-dir');
  let d: TestDaemon | undefined;
  afterAll(async () => {
    await d?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('init --json prints exactly one object and saves the profile', async () => {
    const r = await runCli(['init', '--data-dir', dataDir, '--workspace', 'acme', '--display-name', 'Acme', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.json(); // the whole of stdout is one JSON document
    expect(Object.keys(out).sort()).toEqual(['agent', 'keys', 'workspace']);
    expect(out.workspace).toMatchObject({ slug: 'acme', display_name: 'Acme', tier: 'free', tier_status: 'active' });
    expect(out.agent.email).toBe('agent@acme.mailagent.localhost');
    expect(out.keys.live).toMatchObject({ mode: 'live', scopes: ['send', 'read', 'manage', 'draft'] });
    expect(out.keys.test.key).toMatch(/^mk_test_/);
    const file = join(env.XDG_CONFIG_HOME!, 'mailagent', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')).profiles.default;
    expect(saved).toMatchObject({ live_key: out.keys.live.key, test_key: out.keys.test.key });
  });

  it('a second init on the same data dir refuses with exit 1, naming the directory', async () => {
    const r = await runCli(['init', '--data-dir', dataDir], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(dataDir);
    expect(r.stderr).toMatch(/already initialised/);
  });

  it('a bad workspace slug is a usage error', async () => {
    const r = await runCli(['init', '--data-dir', join(home, 'other'), '--workspace', 'API'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workspace');
  });

  it('serve on the initialised dir prints no keys and the init keys work', async () => {
    d = await startDaemon({ home, dataDir });
    expect(d.stderr()).not.toMatch(/mk_(live|test)_/);
    const who = await d.cli(['whoami', '--json']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.json().workspace.slug).toBe('acme');
  });
});

