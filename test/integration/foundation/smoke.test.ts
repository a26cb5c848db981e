import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('smoke', () => {
  it('health, me, agents', async () => {
    expect((await t.req('GET', '/v1/health', { key: null })).body.status).toBe('ok');
    const me = await t.req('GET', '/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.api_key.mode).toBe('live');
    const a = await t.req('POST', '/v1/agents', { body: { name: 'Sarah' } });
    expect(a.status, a.text).toBe(201);
    expect(a.body.email).toBe(`sarah@local.mailagent.localhost`);
    const l = await t.req('GET', '/v1/agents', { query: { limit: 1 } });
    expect(l.body.data.length).toBe(1);
    expect(l.body.has_more).toBe(true);
    const l2 = await t.req('GET', '/v1/agents', { query: { limit: 1, cursor: l.body.next_cursor } });
    expect(l2.body.data[0].id).not.toBe(l.body.data[0].id);
    expect((await t.req('GET', '/v1/agents', { query: { limit: 0 } })).body.error.param).toBe('limit');
    expect((await t.req('GET', '/v1/nope')).status).toBe(404);
    expect((await t.req('PUT', '/v1/agents')).status).toBe(405);
    expect((await t.req('GET', '/v1/me', { key: null })).body.error.code).toBe('missing_authorization');
    const bad = await t.req('POST', '/v1/agents', { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    const empty = await t.req('POST', '/v1/agents', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(empty.body.error.code).toBe('missing_field');
    const doc = await t.req('GET', '/v1/openapi.json', { key: null });
    expect(doc.body.openapi).toBe('3.1.0');
  });
});
