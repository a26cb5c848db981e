import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let base: string;
const D = 'local.mailagent.localhost';

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

const sim = (body: Record<string, unknown>) => t.req('POST', '/v1/test/inbound', { key: t.testKey, body: { agent: 'agent', from: 'codes@service.test', ...body } });
const wait = (query: Record<string, string | number>, key = t.testKey) => t.req('GET', '/v1/agents/agent/inbox/wait', { key, query });

describe('GET /v1/agents/{id}/inbox/wait', () => {
  it('returns a message already received after `since` at once', async () => {
    const since = new Date(t.clock.now()).toISOString();
    const s = await sim({ subject: 'Your code', body_text: 'Code 123456' });
    const w = await wait({ since, timeout: 5 });
    expect(w.status).toBe(200);
    expect(w.body.timed_out).toBe(false);
    expect(w.body.message).toMatchObject({ id: s.body.message_id, subject: 'Your code', body_text: 'Code 123456' });
    // since a rcv_ id: the next one after it
    const s2 = await sim({ subject: 'Second' });
    expect((await wait({ since: s.body.message_id, timeout: 5 })).body.message.id).toBe(s2.body.message_id);
  });

  it('waits for the commit of the next message', async () => {
    t.clock.advance(1000);
    const pending = wait({ timeout: 30, address: `agent+signup@${D}` });
    await new Promise((r) => setTimeout(r, 50));
    await sim({ subject: 'not for the plus address' });
    const s = await sim({ to: `agent+signup@${D}`, subject: 'Verify', body_text: 'Your code is 998877' });
    const w = await pending;
    expect(w.status).toBe(200);
    expect(w.body.message.id).toBe(s.body.message_id);
    expect(w.body.message.delivered_to).toBe(`agent+signup@${D}`);
  });

  it('a key revoked while it waits gets the refusal, not the message', async () => {
    t.clock.advance(1000);
    const key = await t.makeKey({ scopes: ['read'], mode: 'test', name: 'waiter' }, t.testKey);
    const pending = wait({ timeout: 30 }, key);
    await new Promise((r) => setTimeout(r, 50));
    const id = (await t.req('GET', '/v1/api-keys', { key: t.testKey })).body.data.find((k: { name: string }) => k.name === 'waiter').id;
    expect((await t.req('DELETE', `/v1/api-keys/${id}`, { key: t.testKey })).status).toBe(200);
    await sim({ subject: 'Your code', body_text: 'Code 424242' });
    const w = await pending;
    expect([w.status, w.body.error?.code]).toEqual([401, 'revoked_api_key']);
    expect(JSON.stringify(w.body)).not.toContain('424242');
  });

  it('answers an empty result on timeout (not an error)', async () => {
    t.clock.advance(1000);
    const w = await wait({ timeout: 1 });
    expect(w.status).toBe(200);
    expect(w.body).toEqual({ timed_out: true });
  });

  it('validates its parameters and resolves the agent like other agent routes', async () => {
    expect((await wait({ timeout: 61 })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'timeout' });
    expect((await wait({ since: 'yesterday' })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'since' });
    expect((await wait({ address: 'someone@else.test' })).body.error).toMatchObject({ param: 'address' });
    expect((await t.req('GET', '/v1/agents/ghost/inbox/wait', { query: { timeout: 0 } })).body.error.code).toBe('agent_not_found');
    const other = await t.req('POST', '/v1/agents', { body: { name: 'other' } });
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.body.id });
    expect((await wait({ timeout: 0 }, bound)).status).toBe(404);
  });

  it('stops waiting (and stops listening) when the client disconnects', async () => {
    const before = t.ctx.bus.listenerCount('event');
    const ac = new AbortController();
    const req = fetch(`${base}/v1/agents/agent/inbox/wait?timeout=60`, { headers: { authorization: `Bearer ${t.testKey}` }, signal: ac.signal }).catch((e) => e);
    for (let i = 0; i < 100 && t.ctx.bus.listenerCount('event') === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.ctx.bus.listenerCount('event')).toBe(before + 1);
    ac.abort();
    await req;
    for (let i = 0; i < 100 && t.ctx.bus.listenerCount('event') !== before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.ctx.bus.listenerCount('event')).toBe(before);
  });
});
