import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { EVENT_TYPES } from '../../../src/contract/events.js';

let t: TestApp;
let guarded: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  guarded = await createTestApp({ allowPrivateWebhooks: false });
});
afterAll(async () => {
  await t.close();
  await guarded.close();
});

describe('webhook endpoints', () => {
  it('create, get, list, update, delete', async () => {
    const c = await t.req('POST', '/api/v1/webhooks', { body: { url: 'http://127.0.0.1:3000/hook', description: 'local' } });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({ object: 'webhook_endpoint', url: 'http://127.0.0.1:3000/hook', event_types: ['*'], description: 'local', active: true, secret_rotated_at: null, previous_secret_expires_at: null });
    expect(c.body.id).toMatch(/^whe_/);
    expect(c.body.signing_secret).toMatch(/^whsec_/);
    const g = await t.req('GET', `/v1/webhooks/${c.body.id}`);
    expect(g.body.signing_secret).toBeUndefined();
    expect(JSON.stringify(g.body)).not.toContain(c.body.signing_secret);
    const c2 = await t.req('POST', '/v1/webhooks', { body: { url: 'http://localhost:4000/x', event_types: ['message.received', 'message.received', 'thread.created'] } });
    expect(c2.body.event_types).toEqual(['message.received', 'thread.created']);
    const l = await t.req('GET', '/v1/webhooks', { query: { limit: 1 } });
    expect(l.body.data[0].id).toBe(c2.body.id);
    expect(l.body.has_more).toBe(true);
    const l2 = await t.req('GET', '/v1/webhooks', { query: { limit: 1, cursor: l.body.next_cursor } });
    expect(l2.body.data[0].id).toBe(c.body.id);
    const u = await t.req('PATCH', `/v1/webhooks/${c.body.id}`, { body: { active: false, event_types: ['message.sent'], description: null } });
    expect(u.body).toMatchObject({ active: false, event_types: ['message.sent'], description: null });
    expect((await t.req('GET', `/v1/webhooks/${c.body.id}`)).body.active).toBe(false);
    const d = await t.req('DELETE', `/v1/webhooks/${c.body.id}`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(d.body).toEqual({ id: c.body.id, deleted_at: expect.any(String) });
    expect((await t.req('GET', `/v1/webhooks/${c.body.id}`)).body.error.code).toBe('resource_not_found');
    expect((await t.req('DELETE', `/v1/webhooks/${c.body.id}`)).status).toBe(404);
    expect((await t.req('GET', '/v1/webhooks')).body.data.map((w: any) => w.id)).toEqual([c2.body.id]);
  });

  it('validates input with the spec codes and params', async () => {
    const bad = async (body: unknown) => (await t.req('POST', '/v1/webhooks', { body })).body.error;
    expect(await bad({})).toMatchObject({ code: 'missing_field', param: 'url' });
    expect(await bad({ url: 'not a url' })).toMatchObject({ code: 'invalid_param_value', param: 'url' });
    expect(await bad({ url: 'ftp://example.com/x' })).toMatchObject({ code: 'invalid_param_value', param: 'url' });
    expect(await bad({ url: 'https://u:p@93.184.216.34/x' })).toMatchObject({ code: 'invalid_param_value', param: 'url' });
    expect(await bad({ url: 'http://127.0.0.1/x', event_types: ['message.sent', 'nope'] })).toMatchObject({ code: 'invalid_param_value', param: 'event_types[1]' });
    expect(await bad({ url: 'http://127.0.0.1/x', event_types: [] })).toMatchObject({ code: 'invalid_param_value', param: 'event_types' });
    expect(await bad({ url: 'http://127.0.0.1/x', secret: 'mine' })).toMatchObject({ code: 'invalid_field', param: 'secret' });
    expect(await bad({ url: 'http://127.0.0.1/x', description: 'x'.repeat(501) })).toMatchObject({ code: 'invalid_param_value', param: 'description' });
    const c = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1/x', event_types: [...EVENT_TYPES] } });
    expect(c.status).toBe(201);
    expect((await t.req('PATCH', `/v1/webhooks/${c.body.id}`, { body: { active: 'yes' } })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'active' });
    expect((await t.req('PATCH', `/v1/webhooks/${c.body.id}`, { body: { url: 'http://[::1' } })).body.error.param).toBe('url');
    expect((await t.req('GET', '/v1/webhooks/whe_missing')).status).toBe(404);
    expect((await t.req('GET', '/v1/webhooks/nonsense')).status).toBe(404);
    expect((await t.req('POST', `/v1/webhooks/${c.body.id}/test`, { body: { x: 1 } })).body.error.code).toBe('invalid_field');
    expect((await t.req('POST', `/v1/webhooks/${c.body.id}/rotate-secret`, { body: { previous_secret_ttl_seconds: -1 } })).body.error.param).toBe('previous_secret_ttl_seconds');
  });

  it('revoking a test key switches off the endpoints it made (key_revoked); a live key\'s stay on', async () => {
    const idOf = async (key: string) => (await t.req('GET', '/v1/me', { key })).body.api_key.id as string;
    const testKey = await t.makeKey({ mode: 'test', scopes: ['read', 'send', 'manage'] });
    const liveKey = await t.makeKey({ mode: 'live', scopes: ['read', 'send', 'manage'] });
    const [testId, liveId] = [await idOf(testKey), await idOf(liveKey)];
    const byTest = (await t.req('POST', '/v1/webhooks', { key: testKey, body: { url: 'http://127.0.0.1:3000/t', event_types: ['message.received'] } })).body;
    const byLive = (await t.req('POST', '/v1/webhooks', { key: liveKey, body: { url: 'http://127.0.0.1:3000/l' } })).body;
    const other = (await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:3000/o' } })).body;
    expect((await t.req('DELETE', `/v1/api-keys/${testId}`)).status).toBe(200);
    expect((await t.req('DELETE', `/v1/api-keys/${liveId}`)).status).toBe(200);
    expect((await t.req('GET', `/v1/webhooks/${byTest.id}`)).body).toMatchObject({ active: false, disabled_reason: 'key_revoked' });
    expect((await t.req('GET', `/v1/webhooks/${byLive.id}`)).body).toMatchObject({ active: true });
    expect((await t.req('GET', `/v1/webhooks/${other.id}`)).body).toMatchObject({ active: true });
    // Kept, and a valid key may switch it back on.
    const on = await t.req('PATCH', `/v1/webhooks/${byTest.id}`, { key: t.testKey, body: { active: true } });
    expect(on.body.active).toBe(true);
    expect(on.body.disabled_reason ?? null).toBeNull();
    for (const id of [byTest.id, byLive.id, other.id]) await t.req('DELETE', `/v1/webhooks/${id}`);
  });

  it('scopes: reads need read; changes need manage and an unbound key', async () => {
    const c = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1/s' } });
    const id = c.body.id;
    const reader = await t.makeKey({ scopes: ['read'] });
    const sender = await t.makeKey({ scopes: ['send'] });
    const bound = await t.makeKey({ scopes: ['read', 'manage', 'send'], agent_id: t.boot.agent.id });
    expect((await t.req('GET', '/v1/webhooks', { key: reader })).status).toBe(200);
    expect((await t.req('GET', `/v1/webhooks/${id}/deliveries`, { key: reader })).status).toBe(200);
    expect((await t.req('GET', '/v1/webhooks', { key: sender })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('POST', '/v1/webhooks', { key: reader, body: { url: 'http://127.0.0.1/s' } })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('GET', `/v1/webhooks/${id}`, { key: bound })).status).toBe(200);
    for (const [m, p, body] of [
      ['POST', '/v1/webhooks', { url: 'http://127.0.0.1/s' }],
      ['PATCH', `/v1/webhooks/${id}`, { active: false }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}/test`, {}],
      ['POST', `/v1/webhooks/${id}/rotate-secret`, {}],
      ['POST', '/v1/webhook-deliveries/whd_x/replay', {}],
    ] as const) {
      const r = await t.req(m, p, { key: bound, body });
      expect(r.status, `${m} ${p}`).toBe(403);
      expect(r.body.error.code).toBe('insufficient_scope');
    }
    expect((await t.req('GET', '/v1/webhooks', { key: null })).body.error.code).toBe('missing_authorization');
  });

  it('rotation: new secret once, rotated_at and a 24 h overlap; ttl 0 ends the old secret at once', async () => {
    const c = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1/r' } });
    const r = await t.req('POST', `/v1/webhooks/${c.body.id}/rotate-secret`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.signing_secret).not.toBe(c.body.signing_secret);
    expect(r.body.secret_rotated_at).toBe(new Date(t.clock.now()).toISOString());
    expect(r.body.previous_secret_expires_at).toBe(new Date(t.clock.now() + 86_400_000).toISOString());
    const r0 = await t.req('POST', `/v1/webhooks/${c.body.id}/rotate-secret`, { body: { previous_secret_ttl_seconds: 0 } });
    expect(r0.body.previous_secret_expires_at).toBeNull();
  });
});

describe('SSRF guard at creation (daemon not allowing private targets)', () => {
  const refused = [
    'http://127.0.0.1/x', 'https://127.0.0.1/x', 'https://2130706433/x', 'https://0x7f000001/x', 'https://0177.0.0.1/x',
    'https://127.1/x', 'https://0x7f.0.0.1/x', 'https://017700000001/x', 'https://[::1]/x', 'https://[::ffff:127.0.0.1]/x',
    'https://[::ffff:7f00:1]/x', 'https://[0:0:0:0:0:ffff:7f00:1]/x', 'https://[fe80::1]/x', 'https://[fc00::1]/x',
    'https://[fd00:ec2::254]/x', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/x', 'https://172.16.5.4/x',
    'https://192.168.1.1/x', 'https://100.64.0.1/x', 'https://100.100.100.200/x', 'https://0.0.0.0/x', 'https://0/x',
    'https://[::]/x', 'https://[64:ff9b::7f00:1]/x', 'https://[2002:7f00:1::]/x', 'https://localhost/x',
    'https://api.localhost/x', 'https://metadata.google.internal/x', 'https://224.0.0.1/x', 'https://255.255.255.255/x',
  ];
  it.each(refused)('%s → 400 invalid_param_value, param url', async (url) => {
    const r = await guarded.req('POST', '/v1/webhooks', { body: { url } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'url' });
  });

  it('public https is accepted; plain http to a public address is not', async () => {
    expect((await guarded.req('POST', '/v1/webhooks', { body: { url: 'https://93.184.216.34/hook' } })).status).toBe(201);
    expect((await guarded.req('POST', '/v1/webhooks', { body: { url: 'https://[2606:4700::1111]/hook' } })).status).toBe(201);
    expect((await guarded.req('POST', '/v1/webhooks', { body: { url: 'http://93.184.216.34/hook' } })).body.error.param).toBe('url');
    expect((await t.req('POST', '/v1/webhooks', { body: { url: 'http://93.184.216.34/hook' } })).body.error.param).toBe('url');
    const c = await guarded.req('POST', '/v1/webhooks', { body: { url: 'https://93.184.216.34/hook' } });
    expect((await guarded.req('PATCH', `/v1/webhooks/${c.body.id}`, { body: { url: 'https://127.0.0.1/x' } })).body.error.param).toBe('url');
  });
});
