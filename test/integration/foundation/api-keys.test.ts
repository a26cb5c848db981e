import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { API_KEY_PATTERN } from '../../../src/contract/api-keys.js';
import { HOUR, DAY } from '../../../src/shared/clock.js';

// Spec: API keys (resource, endpoints, state table), Authentication rule 5, live_mode_required.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const code = (r: { body: { error?: { code: string } } }) => r.body.error?.code;
const iso = (ms: number) => new Date(ms).toISOString();

describe('POST /v1/api-keys', () => {
  it('returns the plaintext once, with prefix, mode, scopes and no binding', async () => {
    const r = await t.req('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['send', 'read'], mode: 'live' } });
    expect(r.status).toBe(201);
    expect(r.body.key).toMatch(API_KEY_PATTERN);
    expect(r.body.key.startsWith('mk_live_')).toBe(true);
    expect(r.body.id).toMatch(/^key_/);
    expect(r.body.key.startsWith(r.body.prefix)).toBe(true);
    expect(r.body.prefix.length).toBeGreaterThanOrEqual(8);
    expect(r.body.prefix.length).toBeLessThan(r.body.key.length);
    expect(r.body).toMatchObject({ name: 'ci', mode: 'live', scopes: ['send', 'read'], agent_id: null, expires_at: null, revoked_at: null, last_used_at: null });
    expect(r.body.created_at).toBe(iso(t.clock.now()));

    const test = await t.req('POST', '/v1/api-keys', { body: { name: 'ci-test', scopes: ['read'], mode: 'test' } });
    expect(test.body.key).toMatch(/^mk_test_[0-9a-f]{32}$/);

    // The plaintext appears nowhere afterwards.
    const list = await t.req('GET', '/v1/api-keys', { query: { limit: 100 } });
    expect(list.text).not.toContain(r.body.key);
    expect(list.text).not.toContain(test.body.key);
    for (const k of list.body.data) expect(k).not.toHaveProperty('key');
    const me = await t.req('GET', '/v1/me', { key: r.body.key });
    expect(me.text).not.toContain(r.body.key);
    expect(me.body.api_key.prefix).toBe(r.body.prefix);
  });

  it('validates the body: required fields, scope and mode values, unknown fields', async () => {
    const cases: [unknown, string, string][] = [
      // name, scopes and mode are optional (documented defaults), but present ones are validated.
      [{ name: '', scopes: [], mode: 'live' }, 'invalid_param_value', 'name'],
      [{ name: '', scopes: [], mode: 'live' }, 'invalid_param_value', 'name'],
      [{ name: 'x', scopes: ['admin'], mode: 'live' }, 'invalid_param_value', 'scopes[0]'],
      [{ name: 'x', scopes: ['read', 'billing'], mode: 'live' }, 'invalid_param_value', 'scopes[1]'],
      [{ name: 'x', scopes: 'read', mode: 'live' }, 'invalid_param_value', 'scopes'],
      [{ name: 'x', scopes: ['read', 'read'], mode: 'live' }, 'invalid_param_value', 'scopes'],
      [{ name: 'x', scopes: [], mode: 'prod' }, 'invalid_param_value', 'mode'],
      [{ name: 'x', scopes: [], mode: 'live', expires_at: 'tomorrow' }, 'invalid_param_value', 'expires_at'],
      [{ name: 'x', scopes: [], mode: 'live', owner: 'me' }, 'invalid_field', 'owner'],
      [{ name: 'evil\u001b[2J', scopes: [], mode: 'live' }, 'invalid_param_value', 'name'],
    ];
    for (const [body, c, param] of cases) {
      const r = await t.req('POST', '/v1/api-keys', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(code(r), JSON.stringify(body)).toBe(c);
      expect(r.body.error.param, JSON.stringify(body)).toBe(param);
    }
  });

  it('expires_at in the past (or now) is 400 invalid_param_value, param expires_at', async () => {
    for (const at of [iso(t.clock.now() - 1000), iso(t.clock.now())]) {
      const r = await t.req('POST', '/v1/api-keys', { body: { name: 'x', scopes: [], mode: 'live', expires_at: at } });
      expect(r.status).toBe(400);
      expect(code(r)).toBe('invalid_param_value');
      expect(r.body.error.param).toBe('expires_at');
    }
    const ok = await t.req('POST', '/v1/api-keys', { body: { name: 'x', scopes: [], mode: 'live', expires_at: '2999-01-01T00:00:00Z' } });
    expect(ok.status).toBe(201);
    expect(ok.body.expires_at).toBe('2999-01-01T00:00:00.000Z');
  });

  it('binds a key to an agent by id or by name', async () => {
    const byName = await t.req('POST', '/v1/api-keys', { body: { name: 'b', scopes: ['read'], mode: 'live', agent_id: 'agent' } });
    expect(byName.status).toBe(201);
    expect(byName.body.agent_id).toBe(t.boot.agent.id);
    const byId = await t.req('POST', '/v1/api-keys', { body: { name: 'b', scopes: ['read'], mode: 'live', agent_id: t.boot.agent.id } });
    expect(byId.body.agent_id).toBe(t.boot.agent.id);
    const missing = await t.req('POST', '/v1/api-keys', { body: { name: 'b', scopes: ['read'], mode: 'live', agent_id: 'nobody' } });
    expect(missing.status).toBe(404);
    expect(code(missing)).toBe('agent_not_found');
    expect(missing.body.error.param).toBe('agent_id');
  });

  it('binding to an archived agent is 409 agent_archived', async () => {
    await t.req('POST', '/v1/agents', { body: { name: 'gone-soon' } });
    await t.req('DELETE', '/v1/agents/gone-soon');
    const r = await t.req('POST', '/v1/api-keys', { body: { name: 'b', scopes: ['read'], mode: 'live', agent_id: 'gone-soon' } });
    expect(r.status).toBe(409);
    expect(code(r)).toBe('agent_archived');
  });
});

describe('a key never exceeds its maker (spec: Authentication rule 5)', () => {
  it('no scope the maker lacks', async () => {
    const maker = await t.makeKey({ scopes: ['manage', 'read'] });
    const r = await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read', 'send'], mode: 'live' } });
    expect(r.status).toBe(403);
    expect(code(r)).toBe('insufficient_scope');
    expect(r.body.error.message).toContain('send');
    expect((await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read'], mode: 'live' } })).status).toBe(201);
    expect((await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: [], mode: 'live' } })).status).toBe(201);
  });

  it('a test key makes test keys only', async () => {
    const r = await t.req('POST', '/v1/api-keys', { key: t.testKey, body: { name: 'x', scopes: ['read'], mode: 'live' } });
    expect(r.status).toBe(403);
    expect(code(r)).toBe('insufficient_scope');
    const ok = await t.req('POST', '/v1/api-keys', { key: t.testKey, body: { name: 'x', scopes: ['read'], mode: 'test' } });
    expect(ok.status).toBe(201);
    expect(ok.body.mode).toBe('test');
    // A live key may make test keys.
    expect((await t.req('POST', '/v1/api-keys', { body: { name: 'x', scopes: ['read'], mode: 'test' } })).body.mode).toBe('test');
  });

  it('a bound maker keeps its binding: another agent is 403, its own is fine, none means its own', async () => {
    const other = await t.req('POST', '/v1/agents', { body: { name: 'other-agent' } });
    const bound = await t.makeKey({ scopes: ['manage', 'read'], agent_id: t.boot.agent.id });
    for (const ref of [other.body.id, 'other-agent', 'no-such-agent']) {
      const r = await t.req('POST', '/v1/api-keys', { key: bound, body: { name: 'x', scopes: ['read'], mode: 'live', agent_id: ref } });
      expect(r.status, ref).toBe(403);
      expect(code(r), ref).toBe('insufficient_scope');
    }
    const same = await t.req('POST', '/v1/api-keys', { key: bound, body: { name: 'x', scopes: ['read'], mode: 'live', agent_id: 'agent' } });
    expect(same.status).toBe(201);
    expect(same.body.agent_id).toBe(t.boot.agent.id);
    const implicit = await t.req('POST', '/v1/api-keys', { key: bound, body: { name: 'x', scopes: ['read'], mode: 'live' } });
    expect(implicit.body.agent_id).toBe(t.boot.agent.id);
    const nullBinding = await t.req('POST', '/v1/api-keys', { key: bound, body: { name: 'x', scopes: ['read'], mode: 'live', agent_id: null } });
    expect(nullBinding.body.agent_id).toBe(t.boot.agent.id);
  });

  it('a key bound to an archived agent cannot make keys (409 agent_archived)', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'archived-maker' } });
    const bound = await t.makeKey({ scopes: ['manage', 'read'], agent_id: a.body.id });
    await t.req('DELETE', `/v1/agents/${a.body.id}`);
    for (const body of [{ name: 'x', scopes: [], mode: 'live' }, { name: 'x', scopes: [], mode: 'live', agent_id: a.body.id }]) {
      const r = await t.req('POST', '/v1/api-keys', { key: bound, body });
      expect(r.status).toBe(409);
      expect(code(r)).toBe('agent_archived');
    }
  });

  it('expires_at no later than the maker’s; none inherits the maker’s', async () => {
    const makerExpiry = iso(t.clock.now() + DAY);
    const maker = await t.makeKey({ scopes: ['manage', 'read'], expires_at: makerExpiry });
    const later = await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read'], mode: 'live', expires_at: iso(t.clock.now() + 2 * DAY) } });
    expect(later.status).toBe(403);
    expect(code(later)).toBe('insufficient_scope');
    const same = await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read'], mode: 'live', expires_at: makerExpiry } });
    expect(same.status).toBe(201);
    const sooner = await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read'], mode: 'live', expires_at: iso(t.clock.now() + HOUR) } });
    expect(sooner.body.expires_at).toBe(iso(t.clock.now() + HOUR));
    const inherit = await t.req('POST', '/v1/api-keys', { key: maker, body: { name: 'x', scopes: ['read'], mode: 'live' } });
    expect(inherit.body.expires_at).toBe(makerExpiry);
  });
});

describe('GET /v1/api-keys', () => {
  it('lists newest first and pages with an opaque cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.req('POST', '/v1/api-keys', { body: { name: `page-${i}`, scopes: [], mode: 'live' } });
      ids.push(r.body.id);
    }
    const first = await t.req('GET', '/v1/api-keys', { query: { limit: 2 } });
    expect(first.body.data.map((k: { id: string }) => k.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    expect(typeof first.body.next_cursor).toBe('string');
    // Opaque: not the id, not a number.
    expect(first.body.next_cursor).not.toContain('key_');
    expect(first.body.next_cursor).not.toMatch(/^\d+$/);
    const second = await t.req('GET', '/v1/api-keys', { query: { limit: 2, cursor: first.body.next_cursor } });
    expect(second.body.data.map((k: { id: string }) => k.id)).toEqual([ids[2], ids[1]]);

    // Walking every page visits every key once, newest first, and the last page has no next_cursor.
    const all: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const r = await t.req('GET', '/v1/api-keys', { query: { limit: 3, cursor } });
      all.push(...r.body.data.map((k: { id: string }) => k.id));
      pages++;
      if (!r.body.has_more) {
        expect(r.body).not.toHaveProperty('next_cursor');
        break;
      }
      cursor = r.body.next_cursor;
    }
    const rows = await t.ctx.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').execute();
    expect(all).toEqual(rows.map((r) => r.id));
    expect(new Set(all).size).toBe(all.length);
    expect(pages).toBe(Math.ceil(rows.length / 3));
  });

  it('default page size is 25; limit 100 is the largest', async () => {
    const total = (await t.ctx.db.selectFrom('api_keys').select('id').execute()).length;
    for (let i = total; i < 30; i++) await t.req('POST', '/v1/api-keys', { body: { name: `fill-${i}`, scopes: [], mode: 'test' } });
    const def = await t.req('GET', '/v1/api-keys');
    expect(def.body.data.length).toBe(25);
    expect(def.body.has_more).toBe(true);
    const max = await t.req('GET', '/v1/api-keys', { query: { limit: 100 } });
    expect(max.status).toBe(200);
    expect(max.body.has_more).toBe(false);
    expect(max.body).not.toHaveProperty('next_cursor');
    const one = await t.req('GET', '/v1/api-keys', { query: { limit: 1 } });
    expect(one.body.data.length).toBe(1);
  });

  it('a limit outside 1..100 or not an integer is 400 invalid_param_value, param limit', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '', '1e1', '0x10', ' 5']) {
      const r = await t.req('GET', `/v1/api-keys?limit=${limit}`);
      expect(r.status, limit).toBe(400);
      expect(code(r), limit).toBe('invalid_param_value');
      expect(r.body.error.param, limit).toBe('limit');
    }
  });

  it('a cursor that was not handed out is 400 invalid_param_value, param cursor', async () => {
    const good = (await t.req('GET', '/v1/api-keys', { query: { limit: 1 } })).body.next_cursor as string;
    for (const cursor of ['garbage', 'key_01abc', Buffer.from('c2:key_x').toString('base64url'), '!!!', good + '*', good + '=', 'x'.repeat(600)]) {
      const r = await t.req('GET', '/v1/api-keys', { query: { cursor } });
      expect(r.status, cursor).toBe(400);
      expect(code(r), cursor).toBe('invalid_param_value');
      expect(r.body.error.param, cursor).toBe('cursor');
    }
    const empty = await t.req('GET', '/v1/api-keys?cursor=');
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('cursor');
  });

  it('an unknown query parameter is 400 invalid_field', async () => {
    const r = await t.req('GET', '/v1/api-keys', { query: { order: 'asc' } });
    expect(r.status).toBe(400);
    expect(code(r)).toBe('invalid_field');
    expect(r.body.error.param).toBe('order');
  });

  it('an agent-bound key lists only keys bound to its agent', async () => {
    const a2 = await t.req('POST', '/v1/agents', { body: { name: 'lister-two' } });
    const boundKey = await t.makeKey({ scopes: ['read', 'manage'], agent_id: t.boot.agent.id, name: 'bound-lister' });
    const otherBound = await t.req('POST', '/v1/api-keys', { body: { name: 'other-bound', scopes: [], mode: 'live', agent_id: a2.body.id } });
    const r = await t.req('GET', '/v1/api-keys', { key: boundKey, query: { limit: 100 } });
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const k of r.body.data) expect(k.agent_id).toBe(t.boot.agent.id);
    const ids = r.body.data.map((k: { id: string }) => k.id);
    expect(ids).not.toContain(otherBound.body.id);
    expect(ids).not.toContain(t.boot.keys.live.id);
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes at once; revoking again returns the same revoked_at', async () => {
    const k = await t.req('POST', '/v1/api-keys', { body: { name: 'rev', scopes: ['read'], mode: 'live' } });
    const at = t.clock.now();
    const r1 = await t.req('DELETE', `/v1/api-keys/${k.body.id}`);
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ id: k.body.id, revoked_at: iso(at) });
    t.clock.advance(HOUR);
    const r2 = await t.req('DELETE', `/v1/api-keys/${k.body.id}`);
    expect(r2.status).toBe(200);
    expect(r2.body).toEqual({ id: k.body.id, revoked_at: iso(at) });
    const list = await t.req('GET', '/v1/api-keys', { query: { limit: 100 } });
    expect(list.body.data.find((x: { id: string }) => x.id === k.body.id).revoked_at).toBe(iso(at));
    expect(code(await t.req('GET', '/v1/me', { key: k.body.key }))).toBe('revoked_api_key');
  });

  it('accepts Content-Type: application/json with an empty body (compat.md)', async () => {
    const k = await t.req('POST', '/v1/api-keys', { body: { name: 'rev2', scopes: [], mode: 'live' } });
    const r = await t.req('DELETE', `/v1/api-keys/${k.body.id}`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(k.body.id);
    const r2 = await t.req('DELETE', `/api/v1/api-keys/${k.body.id}`, { rawBody: '', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(r2.status).toBe(200);
  });

  it('an unknown id is 404 resource_not_found', async () => {
    const r = await t.req('DELETE', '/v1/api-keys/key_nope');
    expect(r.status).toBe(404);
    expect(code(r)).toBe('resource_not_found');
  });

  it('a test key revoking a live key is 403 live_mode_required (also when already revoked); test keys it may revoke', async () => {
    const live = await t.req('POST', '/v1/api-keys', { body: { name: 'live-target', scopes: [], mode: 'live' } });
    const r = await t.req('DELETE', `/v1/api-keys/${live.body.id}`, { key: t.testKey });
    expect(r.status).toBe(403);
    expect(code(r)).toBe('live_mode_required');
    expect((await t.req('GET', '/v1/me', { key: live.body.key })).status).toBe(200);
    await t.req('DELETE', `/v1/api-keys/${live.body.id}`);
    expect(code(await t.req('DELETE', `/v1/api-keys/${live.body.id}`, { key: t.testKey }))).toBe('live_mode_required');

    const test = await t.req('POST', '/v1/api-keys', { key: t.testKey, body: { name: 'test-target', scopes: [], mode: 'test' } });
    expect((await t.req('DELETE', `/v1/api-keys/${test.body.id}`, { key: t.testKey })).status).toBe(200);
  });

  it('an agent-bound key cannot revoke a key (403 insufficient_scope), not even its own', async () => {
    const created = await t.req('POST', '/v1/api-keys', { body: { name: 'bound-revoker', scopes: ['manage', 'read'], mode: 'live', agent_id: 'agent' } });
    for (const id of [created.body.id, t.boot.keys.test.id]) {
      const r = await t.req('DELETE', `/v1/api-keys/${id}`, { key: created.body.key });
      expect(r.status).toBe(403);
      expect(code(r)).toBe('insufficient_scope');
    }
    expect((await t.req('GET', '/v1/me', { key: t.testKey })).status).toBe(200);
  });

  it('concurrent revokes agree on one revoked_at', async () => {
    const k = await t.req('POST', '/v1/api-keys', { body: { name: 'race', scopes: [], mode: 'live' } });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => {
      if (i === 4) t.clock.advance(5000);
      return t.req('DELETE', `/v1/api-keys/${k.body.id}`);
    }));
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((r) => r.body.revoked_at)).size).toBe(1);
  });

  it('a key may revoke itself, and is refused from the next request on', async () => {
    const created = await t.req('POST', '/v1/api-keys', { body: { name: 'self', scopes: ['manage'], mode: 'live' } });
    expect((await t.req('DELETE', `/v1/api-keys/${created.body.id}`, { key: created.body.key })).status).toBe(200);
    expect(code(await t.req('DELETE', `/v1/api-keys/${created.body.id}`, { key: created.body.key }))).toBe('revoked_api_key');
  });
});
