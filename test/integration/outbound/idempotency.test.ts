import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { DAY } from '../../../src/shared/clock.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

const body = { to: 'reply@test.mailagent.localhost', subject: 'Once', body_text: 'only once' };
const count = async () => Number((await t.ctx.db.selectFrom('sent_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('Idempotency-Key on send routes', () => {
  it('replays the stored response with the original X-Request-Id and never sends twice', async () => {
    const h = { 'idempotency-key': 'k-1' };
    const a = await t.req('POST', '/v1/messages', { key: t.testKey, body, headers: h });
    expect(a.status).toBe(201);
    const b = await t.req('POST', '/v1/messages', { key: t.testKey, body: { body_text: 'only once', subject: 'Once', to: 'reply@test.mailagent.localhost' }, headers: h });
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replay']).toBe('true');
    expect(b.headers['x-request-id']).toBe(a.headers['x-request-id']);
    expect(b.body).toEqual(a.body);
    expect(await count()).toBe(1);
  });

  it('50 concurrent requests with one key create exactly one message', async () => {
    const before = await count();
    const h = { 'idempotency-key': 'k-concurrent' };
    const res = await Promise.all(Array.from({ length: 50 }, () => t.req('POST', '/v1/messages', { key: t.testKey, body, headers: h })));
    expect(await count()).toBe(before + 1);
    const created = res.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of res.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('duplicate_resource');
    }
  });

  it('same key, different request → 400; over 255 characters → 400', async () => {
    const h = { 'idempotency-key': 'k-2' };
    expect((await t.req('POST', '/v1/messages', { key: t.testKey, body, headers: h })).status).toBe(201);
    const other = await t.req('POST', '/v1/messages', { key: t.testKey, body: { ...body, subject: 'Other' }, headers: h });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_idempotency_key');
    const long = await t.req('POST', '/v1/messages', { key: t.testKey, body, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_idempotency_key');
    expect((await t.req('POST', '/v1/messages', { key: t.testKey, body, headers: { 'idempotency-key': 'x'.repeat(255) } })).status).toBe(201);
  });

  it('errors are replayed too, but 5xx are not stored; scoped per mode; kept 24 hours', async () => {
    const h = { 'idempotency-key': 'k-3' };
    const bad = await t.req('POST', '/v1/messages', { key: t.testKey, body: { ...body, to: 'nope' }, headers: h });
    expect(bad.status).toBe(400);
    const again = await t.req('POST', '/v1/messages', { key: t.testKey, body: { ...body, to: 'nope' }, headers: h });
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.body.error.request_id).toBe(bad.body.error.request_id);
    // A live send with no relay → 503, not stored: the same key may be retried.
    const lh = { 'idempotency-key': 'k-live' };
    const live = { to: 'bob@example.com', subject: 's', body_text: 'b' };
    expect((await t.req('POST', '/v1/messages', { body: live, headers: lh })).status).toBe(503);
    const retry = await t.req('POST', '/v1/messages', { body: live, headers: lh });
    expect(retry.status).toBe(503);
    expect(retry.headers['idempotent-replay']).toBeUndefined();
    // The test key's 'k-1' is a different scope from the live key's 'k-1'.
    const liveK1 = await t.req('POST', '/v1/messages', { body: { ...body, subject: 'live' }, headers: { 'idempotency-key': 'k-1' } });
    expect(liveK1.body.error?.code).not.toBe('invalid_idempotency_key');
    // After 24 hours the key is free again.
    t.clock.advance(DAY + 1000);
    const before = await count();
    const fresh = await t.req('POST', '/v1/messages', { key: t.testKey, body: { ...body, subject: 'new' }, headers: { 'idempotency-key': 'k-1' } });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replay']).toBeUndefined();
    expect(await count()).toBe(before + 1);
  });
});
