import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// `mailagent ui` and the link `serve` prints, against a real daemon (no browser needed).
let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
});
afterAll(async () => d?.stop());

const cookieOf = (res: Response) => /mailagent_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];

/** What the link page's Sign in button sends. */
const signIn = (url: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '', redirect: 'manual' });

describe('mailagent ui', () => {
  it('serve printed the inbox URL and a one-time link for the test owner key', async () => {
    const m = /Web inbox: (http:\/\/\S+)\n\s+sign in once with (http:\/\/\S+)/.exec(d.stderr());
    expect(m, d.stderr()).not.toBeNull();
    expect(m![1]).toBe(`${d.url}/`);
    // Opening the link shows its button; the button's POST spends it (docs/web.md).
    expect((await fetch(m![2])).status).toBe(200);
    const res = await signIn(m![2]);
    expect(res.status).toBe(303);
    const me = await fetch(`${d.url}/v1/me`, { headers: { cookie: `mailagent_session=${cookieOf(res)}` } });
    expect(((await me.json()) as { api_key: { mode: string } }).api_key.mode).toBe('test');
  });

  it('a restart on an initialised data dir with stderr not a terminal (a service log) prints no link', async () => {
    const again = await startDaemon({ home: d.home, dataDir: join(d.dataDir, '..', 'second') });
    try {
      // First run of that data dir: the link is printed beside its keys.
      expect(again.stderr()).toMatch(/sign in once with http/);
    } finally {
      await again.stop();
    }
    const restarted = await startDaemon({ home: d.home, dataDir: again.dataDir });
    try {
      expect(restarted.stderr()).toContain('Web inbox: ');
      expect(restarted.stderr()).not.toMatch(/mwl_|sign in once/);
      expect(restarted.stderr()).toContain('`mailagent ui` prints a one-time sign-in link');
    } finally {
      await restarted.stop();
    }
  });

  it('prints only the link on stdout (test key by default, --live for the live one), --json the object', async () => {
    const plain = await d.cli(['ui']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(new RegExp(`^${d.url.replace(/[.]/g, '\\.')}/ui/sign-in/mwl_[\\w-]+$`));
    expect(plain.stderr).toMatch(/one-time link, valid until/);
    const live = await d.cli(['ui', '--live', '--json']);
    expect(live.code).toBe(0);
    const link = live.json<{ object: string; url: string; expires_at: string }>();
    expect(link.object).toBe('web_sign_in_link');
    const res = await signIn(link.url);
    const me = await fetch(`${d.url}/v1/me`, { headers: { cookie: `mailagent_session=${cookieOf(res)}` } });
    expect(((await me.json()) as { api_key: { mode: string } }).api_key.mode).toBe('live');
  });

  it('--help shows examples; a bad key exits 4', async () => {
    const help = await d.cli(['ui', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/mailagent ui --open/);
    const bad = await d.cli(['ui'], { env: { MAILAGENT_API_KEY: 'mk_test_nope' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/invalid_api_key/);
  });
});
