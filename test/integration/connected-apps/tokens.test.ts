import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { connectApp } from '../../../src/services/connected-apps.js';
import { DAY, MINUTE, SECOND } from '../../../src/shared/clock.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

const approve = (access?: 'read' | 'send' | 'full_access', name = 'Inbox helper') =>
  connectApp(t.ctx, { name, access, createdBy: 'operator' });
const refresh = (refresh_token: string) =>
  t.req('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'refresh_token', refresh_token } });
const grantRow = (id: string) => t.ctx.db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('issuing and using an access token', () => {
  it('approval returns a grant and tokens once; only hashes are stored; the token acts in live mode', async () => {
    const c = await approve();
    expect(c.grant).toMatchObject({ object: 'oauth_grant', app_name: 'Inbox helper', access: 'full_access', scopes: ['send', 'read', 'manage'], status: 'active', last_used_at: null, revoked_at: null });
    expect(c.grant.id).toMatch(/^grt_/);
    expect(c).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'send read manage' });
    expect(c.access_token).toMatch(/^moa_[A-Za-z0-9_-]{43}$/);
    expect(c.refresh_token).toMatch(/^mor_[A-Za-z0-9_-]{43}$/);
    // Stored as SHA-256 only: no table holds either plaintext.
    const dump = JSON.stringify([
      await t.ctx.db.selectFrom('oauth_grants').selectAll().execute(),
      await t.ctx.db.selectFrom('oauth_access_tokens').selectAll().execute(),
      await t.ctx.db.selectFrom('logs').selectAll().execute(),
    ]);
    expect(dump).not.toContain(c.access_token.slice(4));
    expect(dump).not.toContain(c.refresh_token.slice(4));

    const me = await t.req('GET', '/v1/me', { key: c.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.api_key).toMatchObject({ id: c.grant.id, name: 'Inbox helper', mode: 'live', scopes: ['send', 'read', 'manage'], agent_id: null });
    expect(me.body.workspace.id).toBe(t.boot.workspace.id);
    const agents = await t.req('GET', '/api/v1/agents', { key: c.access_token });
    expect(agents.status).toBe(200);
    expect(agents.body.data.map((a: any) => a.name)).toContain('agent');
    // A live send between two local agents (sign-ins act in live mode).
    const s = await t.req('POST', '/v1/messages', { key: c.access_token, body: { agent: 'agent', to: 'agent@local.mailagent.localhost', subject: 'Status update from the helper', body_text: 'All tasks for today are complete.' } });
    expect(s.status, s.text).toBe(201);
    expect((await t.req('GET', `/v1/messages/${s.body.id}`, { key: c.access_token })).body.test_mode).toBe(false);
  });

  it('an unknown or malformed moa_ token is 401 invalid_access_token', async () => {
    for (const token of ['moa_unknown', `moa_${'A'.repeat(43)}`]) {
      const r = await t.req('GET', '/v1/agents', { key: token });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_access_token' });
    }
  });

  it('last_used_at is written at most once a minute', async () => {
    const c = await approve('read', 'Counter');
    await t.req('GET', '/v1/agents', { key: c.access_token });
    const first = (await grantRow(c.grant.id)).last_used_at;
    expect(first).not.toBeNull();
    t.clock.advance(30 * SECOND);
    await t.req('GET', '/v1/agents', { key: c.access_token });
    expect((await grantRow(c.grant.id)).last_used_at).toBe(first);
    t.clock.advance(31 * SECOND);
    await t.req('GET', '/v1/agents', { key: c.access_token });
    expect(Date.parse((await grantRow(c.grant.id)).last_used_at!)).toBe(Date.parse(first!) + 61 * SECOND);
  });
});

describe('scopes per approved access', () => {
  it('read → read only', async () => {
    const c = await approve('read', 'Reader');
    expect(c.scope).toBe('read');
    expect((await t.req('GET', '/v1/messages', { key: c.access_token })).status).toBe(200);
    expect((await t.req('GET', '/v1/drafts', { key: c.access_token })).status).toBe(200); // draft routes accept read
    const send = await t.req('POST', '/v1/messages', { key: c.access_token, body: { agent: 'agent', to: 'agent@local.mailagent.localhost', subject: 'x', body_text: 'y' } });
    expect(send.status).toBe(403);
    expect(send.body.error.code).toBe('insufficient_scope');
    expect((await t.req('POST', '/v1/agents', { key: c.access_token, body: { name: 'nope' } })).body.error.code).toBe('insufficient_scope');
  });

  it('send → send and read; no manage', async () => {
    const c = await approve('send', 'Sender');
    expect(c.grant.scopes).toEqual(['send', 'read']);
    expect(c.scope).toBe('send read');
    const d = await t.req('POST', '/v1/drafts', { key: c.access_token, body: { agent: 'agent', to: ['agent@local.mailagent.localhost'], subject: 'Draft from app', body_text: 'Draft body text.' } });
    expect(d.status, d.text).toBe(201);
    expect((await t.req('GET', '/v1/events', { key: c.access_token })).status).toBe(200);
    const mk = await t.req('POST', '/v1/agents', { key: c.access_token, body: { name: 'nope' } });
    expect(mk.status).toBe(403);
    expect(mk.body.error.code).toBe('insufficient_scope');
  });

  it('full_access (the default) → send, read, manage', async () => {
    const c = await approve(undefined, 'Full');
    expect(c.grant.access).toBe('full_access');
    const a = await t.req('POST', '/v1/agents', { key: c.access_token, body: { name: 'made-by-app' } });
    expect(a.status, a.text).toBe(201);
  });
});

describe('POST /v1/oauth/token', () => {
  it('renews an expired access token and rotates the refresh token on every use', async () => {
    const c = await approve('send', 'Renewer');
    t.clock.advance(59 * MINUTE);
    expect((await t.req('GET', '/v1/agents', { key: c.access_token })).status).toBe(200);
    t.clock.advance(1 * MINUTE);
    const expired = await t.req('GET', '/v1/agents', { key: c.access_token });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('invalid_access_token');

    const r = await refresh(c.refresh_token);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'send read' });
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body.access_token).not.toBe(c.access_token);
    expect(r.body.refresh_token).not.toBe(c.refresh_token);
    expect((await t.req('GET', '/v1/agents', { key: r.body.access_token })).status).toBe(200);

    // The used refresh token is spent.
    const again = await refresh(c.refresh_token);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_access_token');
    // The new one works (also from /api/v1 and as the form encoding OAuth clients send).
    const form = await t.req('POST', '/api/v1/oauth/token', {
      key: null, rawBody: `grant_type=refresh_token&refresh_token=${r.body.refresh_token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status, form.text).toBe(200);
    // Tokens issued before a refresh stay valid until their own hour ends.
    expect((await t.req('GET', '/v1/agents', { key: r.body.access_token })).status).toBe(200);
  });

  it('malformed input is 400 with the param named; no key is needed', async () => {
    const c = await approve('read', 'Malformed');
    const cases: [unknown, string, string][] = [
      [{ grant_type: 'password', refresh_token: c.refresh_token }, 'invalid_param_value', 'grant_type'],
      [{ grant_type: 'refresh_token', refresh_token: 'abc' }, 'invalid_param_value', 'refresh_token'],
      [{ grant_type: 'refresh_token', refresh_token: c.access_token }, 'invalid_param_value', 'refresh_token'],
      [{ grant_type: 'refresh_token' }, 'missing_field', 'refresh_token'],
      [{ grant_type: 'refresh_token', refresh_token: c.refresh_token, extra: 1 }, 'invalid_field', 'extra'],
    ];
    for (const [body, code, param] of cases) {
      const r = await t.req('POST', '/v1/oauth/token', { key: null, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatchObject({ code, param });
    }
    const unknown = await refresh(`mor_${'B'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_access_token');
    // None of that spent the real refresh token.
    expect((await refresh(c.refresh_token)).status).toBe(200);
  });

  it('an app used at least once in 60 days stays connected; idle for 60 days it is disconnected', async () => {
    const c = await approve('read', 'Sometimes');
    let token = c.refresh_token;
    for (let i = 0; i < 3; i++) {
      t.clock.advance(59 * DAY);
      const r = await refresh(token);
      expect(r.status, `round ${i}`).toBe(200);
      token = r.body.refresh_token;
    }
    t.clock.advance(60 * DAY);
    const idle = await refresh(token);
    expect(idle.status).toBe(401);
    expect(idle.body.error.code).toBe('invalid_access_token');
    const list = await t.req('GET', '/v1/oauth/grants', { query: { limit: 100 } });
    const g = list.body.data.find((x: any) => x.id === c.grant.id);
    expect(g).toMatchObject({ status: 'expired', revoked_at: null });
    expect(Date.parse(g.expires_at)).toBeLessThanOrEqual(t.clock.now());
  });

  it('an app used through API calls (not only refreshes) stays connected', async () => {
    const c = await approve('read', 'Busy');
    let access = c.access_token;
    let refreshToken = c.refresh_token;
    // Each API call moves last_used_at; the connection's end moves with it.
    for (let i = 0; i < 2; i++) {
      t.clock.advance(50 * MINUTE);
      expect((await t.req('GET', '/v1/agents', { key: access })).status).toBe(200);
      const grant = (await t.req('GET', '/v1/oauth/grants', { query: { limit: 100 } })).body.data.find((x: any) => x.id === c.grant.id);
      expect(Date.parse(grant.expires_at)).toBe(t.clock.now() + 60 * DAY);
      const r = await refresh(refreshToken);
      access = r.body.access_token;
      refreshToken = r.body.refresh_token;
    }
  });
});
