import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;
beforeAll(async () => { d = await startDaemon(); });
afterAll(async () => { await d.stop(); });

const api = async (path: string, token: string, init: RequestInit = {}) => {
  const r = await fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  return { status: r.status, body: (await r.json()) as any };
};

it('mailagent admin connect-app approves an app on the data dir of a running daemon', async () => {
  const r = await d.cli(['admin', 'connect-app', '--name', 'CRM sync', '--access', 'send', '--data-dir', d.dataDir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const c = r.json();
  expect(c).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'send read', grant: { app_name: 'CRM sync', access: 'send', status: 'active' } });
  expect(c.access_token).toMatch(/^moa_/);

  // The running daemon accepts the token at once, with the approved scopes only.
  expect((await api('/v1/agents', c.access_token)).status).toBe(200);
  const mk = await api('/v1/agents', c.access_token, { method: 'POST', body: JSON.stringify({ name: 'nope' }) });
  expect(mk.status).toBe(403);
  expect(mk.body.error.code).toBe('insufficient_scope');

  // The app renews over HTTP (public route, no key).
  const tok = await fetch(`${d.url}/v1/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(c.refresh_token)}`,
  });
  expect(tok.status).toBe(200);
  const renewed = (await tok.json()) as any;
  expect((await api('/v1/me', renewed.access_token)).body.api_key.id).toBe(c.grant.id);

  // The operator sees and revokes it with an unbound manage key.
  const grants = await api('/v1/oauth/grants', d.liveKey);
  expect(grants.body.data.map((g: any) => g.id)).toContain(c.grant.id);
  expect((await api(`/v1/oauth/grants/${c.grant.id}`, d.liveKey, { method: 'DELETE' })).status).toBe(200);
  expect((await api('/v1/agents', renewed.access_token)).body.error.code).toBe('invalid_access_token');
});

it('prints the tokens for a human, defaults to full access, and refuses bad input with exit 2', async () => {
  const r = await d.cli(['admin', 'connect-app', '--name', 'Notebook', '--data-dir', d.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/moa_[A-Za-z0-9_-]{43}/);
  expect(r.stdout).toMatch(/mor_[A-Za-z0-9_-]{43}/);
  expect(r.stdout).toContain('full_access');
  expect(r.stderr).toContain('only this once');

  expect((await d.cli(['admin', 'connect-app', '--name', 'x', '--access', 'admin', '--data-dir', d.dataDir])).code).toBe(2);
  expect((await d.cli(['admin', 'connect-app', '--data-dir', d.dataDir])).code).toBe(2);
  expect((await d.cli(['admin', 'connect-app', '--name', ' ', '--data-dir', d.dataDir])).code).toBe(2);
});
