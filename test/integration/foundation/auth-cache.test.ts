import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { hashKey, flushLastUsed } from '../../../src/services/auth.js';
import { revokeApiKeyRow } from '../../../src/db/repos/api-keys.js';
import { MINUTE, isoAt } from '../../../src/shared/clock.js';

// services/auth.ts caches keys by hash: a revoked or expired key must still fail on the very next
// request, whatever path revoked it, and last_used_at is written in batches.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const code = (r: { body: { error?: { code: string } } }) => r.body.error?.code;
const idOf = async (key: string) => (await t.ctx.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(key)).executeTakeFirstOrThrow()).id;

describe('authentication cache', () => {
  it('a key revoked through the API fails on the very next request', async () => {
    const key = await t.makeKey({ scopes: ['read'] });
    for (let i = 0; i < 3; i++) expect((await t.req('GET', '/v1/me', { key })).status).toBe(200); // cached now
    expect((await t.req('DELETE', `/v1/api-keys/${await idOf(key)}`)).status).toBe(200);
    const r = await t.req('GET', '/v1/me', { key });
    expect(r.status).toBe(401);
    expect(code(r)).toBe('revoked_api_key');
  });

  it('a key revoked by another code path (the repository, inside a transaction) fails on the very next request', async () => {
    const key = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('GET', '/v1/agents', { key })).status).toBe(200);
    const id = await idOf(key);
    await t.ctx.db.transaction().execute((trx) => revokeApiKeyRow(trx, id, isoAt(t.clock.now())));
    expect(code(await t.req('GET', '/v1/agents', { key }))).toBe('revoked_api_key');
  });

  it('a key revoked by a key revoking itself: its own next request fails', async () => {
    const key = await t.makeKey({ scopes: ['manage', 'read'] });
    expect((await t.req('DELETE', `/v1/api-keys/${await idOf(key)}`, { key })).status).toBe(200);
    expect(code(await t.req('GET', '/v1/me', { key }))).toBe('revoked_api_key');
  });

  it('an expiring key fails on the first request after its expiry, cached or not', async () => {
    const key = await t.makeKey({ scopes: ['read'], expires_at: new Date(t.clock.now() + 5 * MINUTE).toISOString() });
    expect((await t.req('GET', '/v1/me', { key })).status).toBe(200);
    t.clock.advance(5 * MINUTE - 1);
    expect((await t.req('GET', '/v1/me', { key })).status).toBe(200);
    t.clock.advance(1);
    expect(code(await t.req('GET', '/v1/me', { key }))).toBe('expired_api_key');
  });

  it('a new key works at once (unknown tokens are not cached), and unknown tokens stay refused', async () => {
    expect(code(await t.req('GET', '/v1/me', { key: 'mk_live_' + '0'.repeat(32) }))).toBe('invalid_api_key');
    const key = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('GET', '/v1/me', { key })).status).toBe(200);
  });

  it('last_used_at: shown at once by GET /v1/me, written to the database in a batch (and before a key list reads it)', async () => {
    const key = await t.makeKey({ scopes: ['read'] });
    const id = await idOf(key);
    const me = await t.req('GET', '/v1/me', { key });
    expect(me.body.api_key.last_used_at).toBe(isoAt(t.clock.now()));
    const row = () => t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect((await row()).last_used_at).toBeNull(); // not yet: the request did not wait for a commit
    await flushLastUsed(t.ctx);
    expect((await row()).last_used_at).toBe(me.body.api_key.last_used_at);
  });
  // GET /v1/me hands out one built answer (and its JSON) while the key row, its last_used_at and
  // the workspace row it was built from are unchanged (services/me.ts getMeCached).
  it('GET /v1/me from its kept answer: a key rename and scope change (once the key is read again), a workspace rename and a moved last_used_at (on the next request)', async () => {
    const key = await t.makeKey({ scopes: ['read'] });
    const id = await idOf(key);
    const me = async () => {
      const r = await t.req('GET', '/v1/me', { key });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      return r.body;
    };
    const first = await me();
    expect(await me()).toEqual(first); // kept now
    // No API renames a key: a write outside db/repos/api-keys.ts is seen once the key cache's
    // entry is a second old (services/auth.ts KEY_CACHE_TTL_MS), and the kept answer with it.
    await t.ctx.db.updateTable('api_keys').set({ name: 'renamed', scopes: JSON.stringify(['read', 'send']) }).where('id', '=', id).execute();
    await new Promise((r) => setTimeout(r, 1100));
    const renamed = await me();
    expect(renamed.api_key.name).toBe('renamed');
    expect(renamed.api_key.scopes).toEqual(['read', 'send']);
    await t.ctx.db.updateTable('workspaces').set({ display_name: 'Renamed Co' }).where('id', '=', t.boot.workspace.id).execute();
    expect((await me()).workspace.display_name).toBe('Renamed Co'); // read again (getMe)
    expect((await me()).workspace.display_name).toBe('Renamed Co'); // kept again
    const used = (await me()).api_key.last_used_at;
    t.clock.advance(2 * MINUTE);
    const later = (await me()).api_key.last_used_at;
    expect(later).toBe(isoAt(t.clock.now()));
    expect(later).not.toBe(used);
    // Another key of the same workspace gets its own answer, not this one's.
    const other = await t.req('GET', '/v1/me');
    expect(other.body.api_key.id).not.toBe(id);
    expect(other.body.workspace.display_name).toBe('Renamed Co');
    // And a revocation is still refused on the very next request.
    expect((await t.req('DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    expect(code(await t.req('GET', '/v1/me', { key }))).toBe('revoked_api_key');
  });
});
