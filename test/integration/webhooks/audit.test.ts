import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

it('webhook changes are in the audit log, without secrets', async () => {
  const created = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.sent'] } });
  expect(created.status, created.text).toBe(201);
  const id = created.body.id;
  expect((await t.req('PATCH', `/v1/webhooks/${id}`, { body: { active: false } })).status).toBe(200);
  const rotated = await t.req('POST', `/v1/webhooks/${id}/rotate-secret`, { body: {} });
  expect(rotated.status, rotated.text).toBe(200);
  expect((await t.req('DELETE', `/v1/webhooks/${id}`)).status).toBe(200);

  const logs = await t.req('GET', '/v1/logs', { query: { category: 'webhook', limit: 10 } });
  expect(logs.status, logs.text).toBe(200);
  const actions = logs.body.data.map((e: { action: string }) => e.action);
  expect(actions).toEqual(['webhook.deleted', 'webhook.secret_rotated', 'webhook.updated', 'webhook.created']);
  expect(logs.body.data.every((e: { target_resource_id: string }) => e.target_resource_id === id)).toBe(true);
  expect(logs.text).not.toContain(created.body.signing_secret);
  expect(logs.text).not.toContain(rotated.body.signing_secret);
});
