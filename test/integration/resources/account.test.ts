import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { inTransaction } from '../../../src/services/context.js';
import { emitEvent } from '../../../src/services/events.js';
import { flushRequestLog } from '../../../src/services/request-log.js';
import { setWorkspaceTier } from '../../../src/services/usage.js';
import { DAY } from '../../../src/shared/clock.js';

let t: TestApp;
let other: { id: string; email: string };

beforeAll(async () => {
  t = await createTestApp({}, Date.parse('2026-03-10T12:00:00.000Z'));
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
});
afterAll(async () => { await t.close(); });

async function liveSend(from: string, to: string, subject: string) {
  const r = await t.req('POST', '/v1/messages', { body: { agent: from, to, subject, body_text: `About ${subject}: see you at the meeting on Monday.` } });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('GET /v1/reputation', () => {
  it('counts 30 days of live sends, bounces, complaints and replies', async () => {
    const empty = await t.req('GET', '/v1/reputation');
    expect(empty.body).toMatchObject({ reputation: 1, send_count_30d: 0, workspace_id: t.boot.workspace.id });
    const m1 = await liveSend('agent', other.email, 'Project kickoff');
    await liveSend('agent', other.email, 'Budget review');
    // `other` answers the first one (threading by In-Reply-To through the local delivery).
    const reply = await t.req('POST', `/v1/messages/${(await t.req('GET', '/v1/messages/received', { query: { agent_id: 'other' } })).body.data.at(-1).id}/reply`, { body: { body_text: 'Sounds good, thanks for organising it.' } });
    expect(reply.status, reply.text).toBe(201);
    await inTransaction(t.ctx, (tx) => emitEvent(t.ctx, tx, { type: 'message.bounced', workspaceId: t.boot.workspace.id, agentId: t.boot.agent.id, sourceMessageId: m1.id, testMode: false, data: {} }));
    const r = await t.req('GET', '/v1/reputation', { query: { agent_id: 'agent' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ agent_id: t.boot.agent.id, send_count_30d: 2, bounce_count_30d: 1, complaint_count_30d: 0, reply_count_30d: 1 });
    expect(r.body.reputation).toBeLessThan(1);
    const ws = await t.req('GET', '/v1/reputation');
    expect(ws.body.send_count_30d).toBe(3);
    // 31 days later the window is empty again.
    t.clock.advance(31 * DAY);
    expect((await t.req('GET', '/v1/reputation', { query: { agent_id: t.boot.agent.id } })).body.send_count_30d).toBe(0);
  });

  it('agent filters: unknown 404, a bound key gets its own agent and 403 for another', async () => {
    expect((await t.req('GET', '/v1/reputation', { query: { agent_id: 'ghost' } })).body.error.code).toBe('agent_not_found');
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    expect((await t.req('GET', '/v1/reputation', { key: bound })).body.agent_id).toBe(other.id);
    expect((await t.req('GET', '/v1/reputation', { key: bound, query: { agent_id: 'agent' } })).status).toBe(403);
    const sender = await t.makeKey({ scopes: ['send'] });
    expect((await t.req('GET', '/v1/reputation', { key: sender })).status).toBe(403);
    expect((await t.req('GET', '/v1/reputation', { query: { x: 1 } })).status).toBe(400);
  });
});

describe('usage, tier and portal', () => {
  it('reports this month\'s usage against the tier\'s caps, and the operator\'s tier change applies at once', async () => {
    await liveSend('agent', other.email, 'Usage check');
    const u = await t.req('GET', '/v1/billing/usage');
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ tier: 'free', tier_status: 'active', caps: { monthly_sends: 3000, monthly_parses: 3000, hourly: 30, daily: 300 } });
    expect(u.body.usage.sends).toBe(1);
    expect(u.body.usage.parses).toBe(1);
    expect(u.body.period_start).toBe('2026-04-01T00:00:00.000Z');
    expect(u.body.period_end).toBe('2026-05-01T00:00:00.000Z');
    expect(await setWorkspaceTier(t.ctx, 'pro')).toMatchObject({ from: 'free', tier: 'pro' });
    expect((await t.req('GET', '/v1/billing/usage')).body.caps).toMatchObject({ monthly_sends: 50000, hourly: 500, daily: 5000 });
    expect((await t.req('GET', '/v1/me')).body.workspace.tier).toBe('pro');
    await expect(setWorkspaceTier(t.ctx, 'gold')).rejects.toMatchObject({ code: 'invalid_param_value' });
    const logs = await t.req('GET', '/v1/logs', { query: { action: 'workspace.tier_changed' } });
    expect(logs.body.data[0].metadata).toMatchObject({ from: 'free', to: 'pro' });
  });

  it('agent-bound keys cannot read usage or open the portal', async () => {
    const bound = await t.makeKey({ scopes: ['read', 'manage'], agent_id: other.id });
    expect((await t.req('GET', '/v1/billing/usage', { key: bound })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('POST', '/v1/billing/portal', { key: bound, body: {} })).body.error.code).toBe('insufficient_scope');
  });

  it('the portal is a mock on a self-hosted instance', async () => {
    const p = await t.req('POST', '/v1/billing/portal', { body: { return_url: 'https://app.example.com/settings' } });
    expect(p.status).toBe(200);
    expect(p.body.mock).toBe(true);
    // The return URL travels inside the signed session, never as a query parameter of the page.
    expect(p.body.url).toContain('/public/billing?session=');
    expect(p.body.url).not.toContain('return_url');
    const e = await t.req('POST', '/v1/billing/portal', { headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(e.status).toBe(200);
    expect((await t.req('POST', '/v1/billing/portal', { body: { return_url: 'not a url' } })).body.error.param).toBe('return_url');
  });
});

describe('GET /v1/metrics', () => {
  it('counts the workspace, one agent, or the bound key\'s own agent', async () => {
    const ws = await t.req('GET', '/v1/metrics');
    expect(ws.status).toBe(200);
    expect(ws.body).toMatchObject({ mode: 'live' });
    expect(ws.body).not.toHaveProperty('agent_id');
    expect(ws.body.last_24h.sent).toBe(1);
    expect(ws.body.last_24h.received).toBe(1);
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    const mine = await t.req('GET', '/v1/metrics', { key: bound });
    expect(mine.body.agent_id).toBe(other.id);
    expect(mine.body.last_24h).toMatchObject({ sent: 0, received: 1 });
    expect((await t.req('GET', '/v1/metrics', { key: bound, query: { agent_id: 'agent' } })).status).toBe(403);
    const test = await t.req('GET', '/v1/metrics', { key: t.testKey });
    expect(test.body.mode).toBe('test');
    expect(test.body.last_24h.sent).toBe(0);
    expect((await t.req('GET', '/v1/metrics', { query: { mode: 'x' } })).body.error.param).toBe('mode');
  });
});

describe('GET /v1/logs', () => {
  it('records key, agent and suppression changes with category and action filters', async () => {
    const k = await t.req('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['read'], mode: 'live' } });
    await t.req('DELETE', `/v1/api-keys/${k.body.id}`);
    await t.req('PATCH', '/v1/agents/other', { body: { display_name: 'Other' } });
    const all = await t.req('GET', '/v1/logs');
    expect(all.status).toBe(200);
    const actions = all.body.data.map((e: any) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['api_key.created', 'api_key.revoked', 'agent.updated', 'agent.created']));
    expect(all.body.data.every((e: any) => e.category !== 'request')).toBe(true);
    const keys = await t.req('GET', '/v1/logs', { query: { category: 'api_key' } });
    expect(keys.body.data.every((e: any) => e.category === 'api_key')).toBe(true);
    const revoked = await t.req('GET', '/v1/logs', { query: { action: 'api_key.revoked' } });
    expect(revoked.body.data[0]).toMatchObject({ target_resource_id: k.body.id, category: 'api_key' });
    const p1 = await t.req('GET', '/v1/logs', { query: { limit: 2 } });
    const p2 = await t.req('GET', '/v1/logs', { query: { limit: 2, cursor: p1.body.next_cursor } });
    expect(p2.body.data[0].id < p1.body.data[1].id).toBe(true);
    expect((await t.req('GET', '/v1/logs', { query: { category: 'nope' } })).body.error.param).toBe('category');
  });

  it('the request log: method, path, status, request id, key id, client address; unbound manage keys only', async () => {
    const probe = await t.req('GET', '/v1/agents', { query: { limit: 1 } });
    await flushRequestLog(t.ctx);
    const r = await t.req('GET', '/v1/logs', { query: { category: 'request', limit: 100 } });
    expect(r.status).toBe(200);
    const hit = r.body.data.find((e: any) => e.metadata.request_id === probe.headers['x-request-id']);
    expect(hit).toBeTruthy();
    expect(hit.metadata).toMatchObject({ method: 'GET', path: '/v1/agents', status: 200, client_address: '127.0.0.1' });
    expect(hit.key_id).toMatch(/^key_/);
    expect(hit.action).toBe('GET /v1/agents');
    const bound = await t.makeKey({ scopes: ['read', 'manage'], agent_id: other.id });
    expect((await t.req('GET', '/v1/logs', { key: bound, query: { category: 'request' } })).status).toBe(403);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('GET', '/v1/logs', { key: reader, query: { category: 'request' } })).status).toBe(403);
    // A bound key sees its own agent's audit entries only.
    const mine = await t.req('GET', '/v1/logs', { key: bound });
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(mine.body.data.every((e: any) => e.agent_id === other.id)).toBe(true);
  });
});
