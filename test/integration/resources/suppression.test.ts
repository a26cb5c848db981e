import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { addSuppression, findSuppression } from '../../../src/services/suppression.js';
import { inTransaction } from '../../../src/services/context.js';

let t: TestApp;
let ws: string;
let agentId: string;
let other: { id: string };
beforeAll(async () => {
  t = await createTestApp();
  ws = t.boot.workspace.id;
  agentId = t.boot.agent.id;
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
});
afterAll(async () => { await t.close(); });

const add = (input: Parameters<typeof addSuppression>[2]) => inTransaction(t.ctx, (tx) => addSuppression(t.ctx, tx, input));

describe('findSuppression / addSuppression', () => {
  it('a hard bounce blocks the address for every agent, case-insensitively, once', async () => {
    expect(await findSuppression(t.ctx, ws, agentId, 'gone@example.com')).toBeNull();
    const r1 = await add({ workspaceId: ws, agentId, address: 'Gone@Example.com', type: 'hard_bounce', sourceMessageId: 'msg_x' });
    expect(r1.created).toBe(true);
    const r2 = await add({ workspaceId: ws, agentId, address: 'gone@example.com', type: 'hard_bounce' });
    expect(r2.created).toBe(false);
    expect(await findSuppression(t.ctx, ws, other.id, 'GONE@example.com')).toMatchObject({ type: 'hard_bounce', scope: 'workspace' });
    const ev = await t.req('GET', '/v1/suppression/entries');
    expect(ev.body.data.filter((e: any) => e.address === 'gone@example.com')).toHaveLength(1);
    const events = await t.ctx.db.selectFrom('events').select(['type', 'payload']).where('type', '=', 'suppression.added').execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data).toMatchObject({ address: 'gone@example.com', type: 'hard_bounce', scope: 'workspace' });
  });

  it('an unsubscribe blocks only that agent', async () => {
    await add({ workspaceId: ws, agentId, address: 'bye@example.com', type: 'unsubscribe' });
    expect(await findSuppression(t.ctx, ws, agentId, 'bye@example.com')).toMatchObject({ type: 'unsubscribe', scope: 'agent' });
    expect(await findSuppression(t.ctx, ws, other.id, 'bye@example.com')).toBeNull();
  });
});

describe('GET /v1/suppression', () => {
  it('looks an address up', async () => {
    const r = await t.req('GET', '/v1/suppression', { query: { address: 'gone@example.com' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ suppressed: true, type: 'hard_bounce', scope: 'workspace' });
    expect(r.body).not.toHaveProperty('allowed');
    expect(r.body.since).toBeTruthy();
    const none = await t.req('GET', '/api/v1/suppression', { query: { address: 'nobody@example.com' } });
    expect(none.body).toMatchObject({ suppressed: false });
    for (const absent of ['type', 'scope', 'since', 'allowed']) expect(none.body).not.toHaveProperty(absent);
  });

  it('answers for one agent with agent_id, and a bound key sees its own agent', async () => {
    const forOther = await t.req('GET', '/v1/suppression', { query: { address: 'bye@example.com', agent_id: 'other' } });
    expect(forOther.body.suppressed).toBe(false);
    const forAgent = await t.req('GET', '/v1/suppression', { query: { address: 'bye@example.com', agent_id: 'agent' } });
    expect(forAgent.body).toMatchObject({ suppressed: true, type: 'unsubscribe', scope: 'agent' });
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    expect((await t.req('GET', '/v1/suppression', { key: bound, query: { address: 'bye@example.com' } })).body.suppressed).toBe(false);
    const r = await t.req('GET', '/v1/suppression', { key: bound, query: { address: 'bye@example.com', agent_id: agentId } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
  });

  it('refuses bad input and missing scope', async () => {
    const r = await t.req('GET', '/v1/suppression', { query: { limit: 0 } });
    expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'limit' });
    const u = await t.req('GET', '/v1/suppression', { query: { bogus: 1 } });
    expect(u.status).toBe(400);
    const k = await t.makeKey({ scopes: ['send'] });
    expect((await t.req('GET', '/v1/suppression', { key: k, query: { address: 'a@b.co' } })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('GET', '/v1/suppression', { key: null })).status).toBe(401);
  });
});

describe('consent allowlist', () => {
  it('lifts a suppression, and undoing it restores the block', async () => {
    const short = await t.req('POST', '/v1/suppression/allow', { body: { address: 'gone@example.com', attestation: 'said yes' } });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatchObject({ code: 'invalid_param_value', param: 'attestation' });
    const spaces = await t.req('POST', '/v1/suppression/allow', { body: { address: 'gone@example.com', attestation: '  said yes           ' + ' '.repeat(20) } });
    expect(spaces.body.error?.param).toBe('attestation');
    const missing = await t.req('POST', '/v1/suppression/allow', { body: { address: 'gone@example.com' } });
    expect(missing.body.error).toMatchObject({ code: 'missing_field', param: 'attestation' });
    const badAddr = await t.req('POST', '/v1/suppression/allow', { body: { address: 'not-an-address', attestation: 'x'.repeat(25) } });
    expect(badAddr.body.error).toMatchObject({ code: 'invalid_param_value', param: 'address' });

    const attestation = 'Customer re-subscribed on the web form on 2026-01-02';
    const a = await t.req('POST', '/v1/suppression/allow', { body: { address: 'GONE@example.com', attestation } });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ address: 'gone@example.com', attestation });
    expect(a.body).not.toHaveProperty('revoked_at');
    expect(a.body.id).toMatch(/^alw_/);
    expect(await findSuppression(t.ctx, ws, agentId, 'gone@example.com')).toBeNull();
    const look = await t.req('GET', '/v1/suppression', { query: { address: 'gone@example.com' } });
    expect(look.body).toMatchObject({ suppressed: false, type: 'hard_bounce', allowed: { id: a.body.id, attestation } });
    const list = await t.req('GET', '/v1/suppression');
    expect(list.body.data.map((x: any) => x.id)).toContain(a.body.id);
    const entries = await t.req('GET', '/v1/suppression/entries');
    expect(entries.body.data.find((e: any) => e.address === 'gone@example.com').active).toBe(false);

    const del = await t.req('DELETE', `/v1/suppression/allow/${a.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(a.body.id);
    const again = await t.req('DELETE', `/v1/suppression/allow/${a.body.id}`);
    expect(again.body.revoked_at).toBe(del.body.revoked_at);
    expect(await findSuppression(t.ctx, ws, agentId, 'gone@example.com')).toMatchObject({ type: 'hard_bounce' });
    expect((await t.req('DELETE', '/v1/suppression/allow/alw_nope')).body.error.code).toBe('resource_not_found');
  });

  it('a new bounce after an allow blocks again', async () => {
    await t.req('POST', '/v1/suppression/allow', { body: { address: 'bye@example.com', attestation: 'Opted back in by replying to our mail.' } });
    expect(await findSuppression(t.ctx, ws, agentId, 'bye@example.com')).toBeNull();
    const r = await add({ workspaceId: ws, agentId, address: 'bye@example.com', type: 'complaint' });
    expect(r.created).toBe(true);
    expect(await findSuppression(t.ctx, ws, agentId, 'bye@example.com')).toMatchObject({ type: 'complaint', scope: 'workspace' });
  });

  it('agent-bound and non-manage keys are refused', async () => {
    const bound = await t.makeKey({ scopes: ['manage', 'read'], agent_id: agentId });
    const r = await t.req('POST', '/v1/suppression/allow', { key: bound, body: { address: 'x@example.com', attestation: 'a'.repeat(30) } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
    expect((await t.req('DELETE', '/v1/suppression/allow/alw_x', { key: bound })).status).toBe(403);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('POST', '/v1/suppression/allow', { key: reader, body: { address: 'x@example.com', attestation: 'a'.repeat(30) } })).status).toBe(403);
    const unknown = await t.req('POST', '/v1/suppression/allow', { body: { address: 'x@example.com', attestation: 'a'.repeat(30), extra: 1 } });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_field', param: 'extra' });
  });
});

describe('POST /v1/suppression', () => {
  it('adds a workspace or agent entry and records it in the audit log', async () => {
    const r = await t.req('POST', '/v1/suppression', { body: { address: 'stop@example.com' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ address: 'stop@example.com', type: 'unsubscribe', scope: 'workspace', active: true });
    const a = await t.req('POST', '/v1/suppression', { body: { address: 'stop2@example.com', agent_id: 'other', type: 'complaint' } });
    expect(a.body).toMatchObject({ scope: 'agent', agent_id: other.id, type: 'complaint' });
    const bound = await t.makeKey({ scopes: ['manage'], agent_id: other.id });
    const b = await t.req('POST', '/v1/suppression', { key: bound, body: { address: 'stop3@example.com' } });
    expect(b.body).toMatchObject({ scope: 'agent', agent_id: other.id });
    expect((await t.req('POST', '/v1/suppression', { key: bound, body: { address: 'x@example.com', agent_id: agentId } })).status).toBe(404);
    expect((await t.req('POST', '/v1/suppression', { body: { address: 'x@example.com', type: 'spam' } })).body.error.param).toBe('type');
    const logs = await t.ctx.db.selectFrom('logs').selectAll().where('action', '=', 'suppression.added').execute();
    expect(logs.some((l) => l.target_resource_id === r.body.id)).toBe(true);
  });
});
