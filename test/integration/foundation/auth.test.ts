import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { routes } from '../../../src/contract/routes.js';
import type { RouteDef } from '../../../src/contract/route.js';
import { hashKey } from '../../../src/services/auth.js';
import { MINUTE, HOUR, DAY } from '../../../src/shared/clock.js';

// Spec: Authentication, Scopes.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const code = (r: { body: { error?: { code: string } } }) => r.body.error?.code;

describe('Authorization header', () => {
  it('a missing header is 401 missing_authorization', async () => {
    const r = await t.req('GET', '/v1/me', { key: null });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('authentication_error');
    expect(code(r)).toBe('missing_authorization');
  });

  it('a blank header is 401 missing_authorization', async () => {
    const r = await t.req('GET', '/v1/me', { key: null, headers: { authorization: '   ' } });
    expect(code(r)).toBe('missing_authorization');
  });

  it('accepts Bearer (scheme case-insensitive, RFC 7235)', async () => {
    expect((await t.req('GET', '/v1/me', { key: null, headers: { authorization: `Bearer ${t.liveKey}` } })).status).toBe(200);
    expect((await t.req('GET', '/v1/me', { key: null, headers: { authorization: `bearer ${t.liveKey}` } })).status).toBe(200);
  });

  it('refuses every other scheme, even with a valid key', async () => {
    for (const scheme of ['Basic', 'Token', 'Key', 'ApiKey']) {
      const r = await t.req('GET', '/v1/me', { key: null, headers: { authorization: `${scheme} ${t.liveKey}` } });
      expect(r.status, scheme).toBe(401);
      expect(code(r), scheme).toBe('invalid_api_key');
    }
    const basic = Buffer.from(`${t.liveKey}:`).toString('base64');
    expect(code(await t.req('GET', '/v1/me', { key: null, headers: { authorization: `Basic ${basic}` } }))).toBe('invalid_api_key');
    expect(code(await t.req('GET', '/v1/me', { key: null, headers: { authorization: t.liveKey } }))).toBe('invalid_api_key');
    expect(code(await t.req('GET', '/v1/me', { key: null, headers: { authorization: 'Bearer' } }))).toBe('invalid_api_key');
  });

  it('refuses a key in the query string or in another header', async () => {
    for (const q of ['api_key', 'key', 'access_token']) {
      const r = await t.req('GET', `/v1/me?${q}=${t.liveKey}`, { key: null });
      expect(r.status).toBe(401);
      expect(code(r)).toBe('missing_authorization');
    }
    for (const h of ['x-api-key', 'api-key']) {
      expect(code(await t.req('GET', '/v1/me', { key: null, headers: { [h]: t.liveKey } }))).toBe('missing_authorization');
    }
  });

  it('an unknown key is 401 invalid_api_key, also when well-formed', async () => {
    expect(code(await t.req('GET', '/v1/me', { key: 'mk_live_' + '0'.repeat(32) }))).toBe('invalid_api_key');
    expect(code(await t.req('GET', '/v1/me', { key: 'nonsense' }))).toBe('invalid_api_key');
    expect(code(await t.req('GET', '/v1/me', { key: t.liveKey.toUpperCase() }))).toBe('invalid_api_key');
  });

  it('authentication comes before validation: no key + bad body is still 401', async () => {
    const r = await t.req('POST', '/v1/agents', { key: null, rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(401);
    const r2 = await t.req('POST', '/v1/agents', { key: null, body: { nope: 1 } });
    expect(code(r2)).toBe('missing_authorization');
    const r3 = await t.req('GET', '/v1/agents', { key: null, query: { limit: 0 } });
    expect(code(r3)).toBe('missing_authorization');
  });

  it('stores only the SHA-256 of a key', async () => {
    const rows = await t.ctx.db.selectFrom('api_keys').selectAll().execute();
    const blob = JSON.stringify(rows);
    expect(blob).not.toContain(t.liveKey);
    expect(rows.some((r) => r.key_hash === hashKey(t.liveKey))).toBe(true);
    expect(hashKey(t.liveKey)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('revoked and expired keys', () => {
  it('a revoked key is refused at once with 401 revoked_api_key', async () => {
    const key = await t.makeKey({ scopes: ['read'] });
    const me = await t.req('GET', '/v1/me', { key });
    expect(me.status).toBe(200);
    const del = await t.req('DELETE', `/v1/api-keys/${me.body.api_key.id}`);
    expect(del.status).toBe(200);
    const after = await t.req('GET', '/v1/me', { key });
    expect(after.status).toBe(401);
    expect(code(after)).toBe('revoked_api_key');
    expect(code(await t.req('GET', '/v1/agents', { key }))).toBe('revoked_api_key');
  });

  it('an expired key is 401 expired_api_key once the clock passes expires_at', async () => {
    const expires = new Date(t.clock.now() + HOUR).toISOString();
    const key = await t.makeKey({ scopes: ['read'], expires_at: expires });
    expect((await t.req('GET', '/v1/me', { key })).status).toBe(200);
    t.clock.advance(HOUR - 1);
    expect((await t.req('GET', '/v1/agents', { key })).status).toBe(200);
    t.clock.advance(1);
    const r = await t.req('GET', '/v1/me', { key });
    expect(r.status).toBe(401);
    expect(code(r)).toBe('expired_api_key');
    expect(r.body.error.message).toContain(expires);
  });

  it('keys without expires_at never expire', async () => {
    const key = await t.makeKey({ scopes: [] });
    t.clock.advance(3650 * DAY);
    expect((await t.req('GET', '/v1/me', { key })).status).toBe(200);
  });
});

describe('last_used_at', () => {
  it('is null until first use, then the time of use (refreshed at most once a minute)', async () => {
    const created = await t.req('POST', '/v1/api-keys', { body: { name: 'lu', scopes: ['read'], mode: 'live' } });
    expect(created.body.last_used_at).toBeNull();
    const key = created.body.key as string;
    const list1 = await t.req('GET', '/v1/api-keys', { query: { limit: 100 } });
    expect(list1.body.data.find((k: { id: string }) => k.id === created.body.id).last_used_at).toBeNull();

    const t0 = t.clock.now();
    const me = await t.req('GET', '/v1/me', { key });
    expect(me.body.api_key.last_used_at).toBe(new Date(t0).toISOString());

    t.clock.advance(30_000);
    expect((await t.req('GET', '/v1/me', { key })).body.api_key.last_used_at).toBe(new Date(t0).toISOString());

    t.clock.advance(MINUTE);
    const t2 = t.clock.now();
    expect((await t.req('GET', '/v1/me', { key })).body.api_key.last_used_at).toBe(new Date(t2).toISOString());
    const list2 = await t.req('GET', '/v1/api-keys', { query: { limit: 100 } });
    expect(list2.body.data.find((k: { id: string }) => k.id === created.body.id).last_used_at).toBe(new Date(t2).toISOString());
  });

  it('a refused request (revoked key) does not touch last_used_at', async () => {
    const created = await t.req('POST', '/v1/api-keys', { body: { name: 'lu2', scopes: [], mode: 'live' } });
    await t.req('DELETE', `/v1/api-keys/${created.body.id}`);
    t.clock.advance(2 * MINUTE);
    expect((await t.req('GET', '/v1/me', { key: created.body.key })).status).toBe(401);
    const row = await t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeNull();
  });
});

/** Every scoped route of the table, with a stand-in for each path parameter. */
function scopedRoutes(): { id: string; method: string; url: string; need: string[] }[] {
  const out: { id: string; method: string; url: string; need: string[] }[] = [];
  for (const [id, r] of Object.entries(routes) as [string, RouteDef][]) {
    if (r.scope === null || r.scope === 'public') continue;
    const need = typeof r.scope === 'string' ? [r.scope] : 'anyOf' in r.scope ? r.scope.anyOf : r.scope.allOf;
    out.push({ id, method: r.method, url: '/v1' + r.path.replace(/:([A-Za-z_]+)/g, 'x_$1'), need });
  }
  return out;
}

describe('scopes', () => {
  it('a key with no scopes authenticates (GET /v1/me) but is authorised for nothing', async () => {
    const key = await t.makeKey({ scopes: [] });
    const me = await t.req('GET', '/v1/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.api_key.scopes).toEqual([]);
    const all = scopedRoutes();
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const r of all) {
      const res = await t.req(r.method, r.url, { key, body: r.method === 'GET' ? undefined : {} });
      expect(res.status, `${r.id} ${r.method} ${r.url}`).toBe(403);
      expect(code(res), r.id).toBe('insufficient_scope');
      expect(res.body.error.type).toBe('permission_error');
      for (const s of r.need) expect(res.body.error.message, r.id).toContain(s);
    }
  });

  it('each foundation route needs exactly its scope (spec: Endpoints)', async () => {
    const expected: Record<string, string> = {
      'agents.create': 'manage', 'agents.list': 'read', 'agents.get': 'read', 'agents.update': 'manage',
      'agents.archive': 'manage', 'api_keys.create': 'manage', 'api_keys.list': 'read', 'api_keys.revoke': 'manage',
    };
    for (const [id, scope] of Object.entries(expected)) expect((routes as Record<string, RouteDef>)[id].scope, id).toBe(scope);
    expect(routes['me.get'].scope).toBeNull();
    expect(routes['health.get'].scope).toBe('public');

    const readOnly = await t.makeKey({ scopes: ['read', 'send', 'draft'] });
    const manageOnly = await t.makeKey({ scopes: ['manage', 'send', 'draft'] });
    // read routes
    expect((await t.req('GET', '/v1/agents', { key: readOnly })).status).toBe(200);
    expect((await t.req('GET', '/v1/agents/agent', { key: readOnly })).status).toBe(200);
    expect((await t.req('GET', '/v1/api-keys', { key: readOnly })).status).toBe(200);
    for (const [m, u] of [['GET', '/v1/agents'], ['GET', '/v1/agents/agent'], ['GET', '/v1/api-keys']]) {
      const r = await t.req(m, u, { key: manageOnly });
      expect(r.status, u).toBe(403);
      expect(r.body.error.message).toContain('`read`');
    }
    // manage routes
    const denied = [
      ['POST', '/v1/agents', { name: 'scoped1' }],
      ['PATCH', '/v1/agents/agent', { classify_inbound: true }],
      ['DELETE', '/v1/agents/agent', undefined],
      ['POST', '/v1/api-keys', { name: 'x', scopes: [], mode: 'live' }],
      ['DELETE', `/v1/api-keys/${t.boot.keys.test.id}`, undefined],
    ] as const;
    for (const [m, u, body] of denied) {
      const r = await t.req(m, u, { key: readOnly, body });
      expect(r.status, `${m} ${u}`).toBe(403);
      expect(code(r)).toBe('insufficient_scope');
      expect(r.body.error.message).toContain('`manage`');
    }
    const created = await t.req('POST', '/v1/agents', { key: manageOnly, body: { name: 'scoped1' } });
    expect(created.status).toBe(201);
    expect((await t.req('PATCH', '/v1/agents/scoped1', { key: manageOnly, body: { status: 'paused' } })).status).toBe(200);
    expect((await t.req('DELETE', '/v1/agents/scoped1', { key: manageOnly })).status).toBe(200);
  });

  it('the key mode travels with the request (GET /v1/me)', async () => {
    expect((await t.req('GET', '/v1/me')).body.api_key.mode).toBe('live');
    expect((await t.req('GET', '/v1/me', { key: t.testKey })).body.api_key.mode).toBe('test');
  });
});
