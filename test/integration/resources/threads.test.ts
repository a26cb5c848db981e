import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let other: { id: string; email: string };
let testThread: string;
let testMsg: string;
let liveThread: string;
const TEST_ADDR = 'reply@test.mailagent.localhost';

beforeAll(async () => {
  t = await createTestApp();
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
  const s = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: 'Quarterly report', body_text: 'Here is the report you asked for.' } });
  expect(s.status, s.text).toBe(201);
  testThread = s.body.thread_id;
  testMsg = s.body.id;
  t.clock.advance(1000);
  const r = await t.req('POST', '/v1/test/inbound', {
    key: t.testKey,
    body: { agent: 'agent', from: 'bob@example.com', from_name: 'Bob', subject: 'Re: Quarterly report', body_text: 'Thanks, looks good.', in_reply_to_message_id: testMsg },
  });
  expect(r.status, r.text).toBe(201);
  expect(r.body.thread_id).toBe(testThread);
  // Live mail between two local agents: no relay needed.
  const l = await t.req('POST', '/v1/messages', { body: { agent: 'other', to: 'agent@local.mailagent.localhost', subject: 'Lunch plans for Friday', body_text: 'Are we still on for lunch on Friday at noon?' } });
  expect(l.status, l.text).toBe(201);
  liveThread = l.body.thread_id;
});
afterAll(async () => { await t.close(); });

describe('GET /v1/threads', () => {
  it('lists threads newest first, filters by agent (id or name) and status, and pages', async () => {
    const all = await t.req('GET', '/v1/threads');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((x: any) => x.id);
    expect(ids).toContain(testThread);
    expect(ids).toContain(liveThread);
    const mine = await t.req('GET', '/api/v1/threads', { query: { agent_id: 'other' } });
    expect(mine.body.data.every((x: any) => x.agent_id === other.id)).toBe(true);
    expect(mine.body.data.map((x: any) => x.id)).toContain(liveThread);
    const byId = await t.req('GET', '/v1/threads', { query: { agent_id: t.boot.agent.id } });
    expect(byId.body.data.map((x: any) => x.id)).toContain(testThread);
    const p1 = await t.req('GET', '/v1/threads', { query: { limit: 1 } });
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.req('GET', '/v1/threads', { query: { limit: 1, cursor: p1.body.next_cursor } });
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
    expect((await t.req('GET', '/v1/threads', { query: { status: 'closed' } })).body.data).toHaveLength(0);
    expect((await t.req('GET', '/v1/threads', { query: { status: 'bogus' } })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'status' });
    expect((await t.req('GET', '/v1/threads', { query: { agent_id: 'nobody' } })).body.error.code).toBe('agent_not_found');
    expect((await t.req('GET', '/v1/threads', { query: { cursor: 'garbage' } })).body.error.param).toBe('cursor');
  });

  it('an agent-bound key lists only its own agent\'s threads; a filter on another agent is 403', async () => {
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    const r = await t.req('GET', '/v1/threads', { key: bound });
    expect(r.body.data.length).toBeGreaterThan(0);
    expect(r.body.data.every((x: any) => x.agent_id === other.id)).toBe(true);
    const f = await t.req('GET', '/v1/threads', { key: bound, query: { agent_id: 'agent' } });
    expect(f.status).toBe(403);
    expect((await t.req('GET', `/v1/threads/${testThread}`, { key: bound })).status).toBe(404);
  });

  it('needs the read scope', async () => {
    const k = await t.makeKey({ scopes: ['send'] });
    expect((await t.req('GET', '/v1/threads', { key: k })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('GET', '/v1/threads', { key: null })).status).toBe(401);
  });
});

describe('GET /v1/threads/{id}', () => {
  it('returns the thread with both directions in order', async () => {
    const r = await t.req('GET', `/v1/threads/${testThread}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: testThread, subject: 'Quarterly report', status: 'open', message_count: 2, has_live_mail: false });
    expect(r.body.messages.map((m: any) => m.direction)).toEqual(['outbound', 'inbound']);
    expect(r.body.messages[0]).toMatchObject({ id: testMsg, to: [TEST_ADDR], snippet: 'Here is the report you asked for.', test_mode: true });
    expect(r.body.messages[1]).toMatchObject({ from: 'bob@example.com', status: 'received' });
    expect(r.body.participants).toEqual(expect.arrayContaining(['bob@example.com', TEST_ADDR]));
    expect((await t.req('GET', '/v1/threads/thrd_nope')).body.error.code).toBe('resource_not_found');
  });
});

describe('labels', () => {
  it('create, list, rename (threads follow), delete (removed from threads)', async () => {
    const c = await t.req('POST', '/v1/labels', { body: { name: 'Finance' } });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({ name: 'Finance', object: 'label' });
    expect((await t.req('POST', '/v1/labels', { body: { name: 'Finance' } })).status).toBe(409);
    expect((await t.req('POST', '/v1/labels', { body: { name: '' } })).body.error.param).toBe('name');
    expect((await t.req('POST', '/v1/labels', { body: {} })).body.error.code).toBe('missing_field');
    const list = await t.req('GET', '/v1/labels');
    expect(list.body.data.map((l: any) => l.name)).toContain('Finance');

    const p = await t.req('PATCH', `/v1/threads/${testThread}`, { body: { labels: ['Finance', '100%_done'] } });
    expect(p.status, p.text).toBe(200);
    expect(p.body.labels).toEqual(['Finance', '100%_done']);
    // `%` and `_` are literal in the label filter.
    expect((await t.req('GET', '/v1/threads', { query: { label: '100%_done' } })).body.data.map((x: any) => x.id)).toEqual([testThread]);
    expect((await t.req('GET', '/v1/threads', { query: { label: '100%' } })).body.data).toHaveLength(0);
    // Exact and case-sensitive on both engines (labels are case-sensitive names): SQLite's LIKE
    // used to match `finance` too, and a label holding `","` matched the one after the quote.
    expect((await t.req('GET', '/v1/threads', { query: { label: 'Finance' } })).body.data.map((x: any) => x.id)).toEqual([testThread]);
    expect((await t.req('GET', '/v1/threads', { query: { label: 'finance' } })).body.data).toHaveLength(0);
    expect((await t.req('GET', '/v1/threads', { query: { label: 'FINANCE' } })).body.data).toHaveLength(0);
    const quoted = await t.req('PATCH', `/v1/threads/${testThread}`, { body: { labels: ['Finance', '100%_done', 'a","b'] } });
    expect(quoted.status, quoted.text).toBe(200);
    expect((await t.req('GET', '/v1/threads', { query: { label: 'b' } })).body.data).toHaveLength(0);
    expect((await t.req('GET', '/v1/threads', { query: { label: 'a","b' } })).body.data.map((x: any) => x.id)).toEqual([testThread]);
    await t.req('PATCH', `/v1/threads/${testThread}`, { body: { labels: ['Finance', '100%_done'] } });

    const rn = await t.req('PATCH', `/v1/labels/${c.body.id}`, { body: { name: 'Money' } });
    expect(rn.body.name).toBe('Money');
    expect((await t.req('GET', `/v1/threads/${testThread}`)).body.labels).toEqual(['Money', '100%_done']);
    expect((await t.req('PATCH', '/v1/labels/Money', { body: { name: '100%_done' } })).status).toBe(409);

    const d = await t.req('DELETE', '/v1/labels/Money');
    expect(d.status).toBe(200);
    expect(d.body.id).toBe(c.body.id);
    expect((await t.req('GET', `/v1/threads/${testThread}`)).body.labels).toEqual(['100%_done']);
    expect((await t.req('DELETE', '/v1/labels/Money')).status).toBe(404);
  });

  it('agent-bound keys cannot create, rename or delete labels, nor create one through a thread', async () => {
    const bound = await t.makeKey({ scopes: ['send', 'read', 'manage'], agent_id: t.boot.agent.id });
    expect((await t.req('POST', '/v1/labels', { key: bound, body: { name: 'X' } })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('PATCH', `/v1/labels/${encodeURIComponent('100%_done')}`, { key: bound, body: { name: 'Y' } })).status).toBe(403);
    expect((await t.req('DELETE', `/v1/labels/${encodeURIComponent('100%_done')}`, { key: bound })).status).toBe(403);
    expect((await t.req('GET', '/v1/labels', { key: bound })).status).toBe(200);
    const p = await t.req('PATCH', `/v1/threads/${testThread}`, { key: bound, body: { labels: ['brand-new'] } });
    expect(p.status).toBe(403);
    const ok = await t.req('PATCH', `/v1/threads/${testThread}`, { key: bound, body: { labels: ['100%_done'] } });
    expect(ok.status).toBe(200);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('POST', '/v1/labels', { key: reader, body: { name: 'Z' } })).status).toBe(403);
  });
});

describe('PATCH /v1/threads/{id}', () => {
  it('changes status and emits thread.updated; refuses bad input', async () => {
    const r = await t.req('PATCH', `/v1/threads/${testThread}`, { body: { status: 'closed' } });
    expect(r.body.status).toBe('closed');
    expect((await t.req('GET', '/v1/threads', { query: { status: 'closed' } })).body.data.map((x: any) => x.id)).toEqual([testThread]);
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'thread.updated' } });
    expect(ev.body.data.some((e: any) => e.thread_id === testThread && e.data.change?.status?.to === 'closed')).toBe(true);
    expect((await t.req('PATCH', `/v1/threads/${testThread}`, { body: { status: 'deleted' } })).body.error.param).toBe('status');
    expect((await t.req('PATCH', `/v1/threads/${testThread}`, { body: { subject: 'x' } })).body.error).toMatchObject({ code: 'invalid_field', param: 'subject' });
    expect((await t.req('PATCH', `/v1/threads/${testThread}`, { body: { labels: ['a\u0001'] } })).body.error.param).toBe('labels[0]');
    expect((await t.req('PATCH', '/v1/threads/thrd_nope', { body: { status: 'open' } })).status).toBe(404);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('PATCH', `/v1/threads/${testThread}`, { key: reader, body: { status: 'open' } })).status).toBe(403);
  });
});

describe('trash, restore, delete', () => {
  it('a test key cannot trash or delete a thread with live mail', async () => {
    const tr = await t.req('POST', `/v1/threads/${liveThread}/trash`, { key: t.testKey });
    expect(tr.status).toBe(403);
    expect(tr.body.error.code).toBe('live_mode_required');
    expect((await t.req('DELETE', `/v1/threads/${liveThread}`, { key: t.testKey })).body.error.code).toBe('live_mode_required');
  });

  it('trash hides a thread from the list until restored', async () => {
    const tr = await t.req('POST', `/v1/threads/${testThread}/trash`, { key: t.testKey });
    expect(tr.status, tr.text).toBe(200);
    expect(tr.body.trashed_at).toBeTruthy();
    expect((await t.req('GET', '/v1/threads')).body.data.map((x: any) => x.id)).not.toContain(testThread);
    expect((await t.req('GET', '/v1/threads', { query: { trashed: 'true' } })).body.data.map((x: any) => x.id)).toEqual([testThread]);
    const rs = await t.req('POST', `/v1/threads/${testThread}/restore`, { headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(rs.body.trashed_at).toBeUndefined();
    expect((await t.req('GET', '/v1/threads')).body.data.map((x: any) => x.id)).toContain(testThread);
  });

  it('delete for good: manage only, 409 while a message is sending, then the mail is gone', async () => {
    const sender = await t.makeKey({ scopes: ['send', 'read'] });
    expect((await t.req('DELETE', `/v1/threads/${liveThread}`, { key: sender })).body.error.code).toBe('insufficient_scope');
    const msg = await t.ctx.db.selectFrom('sent_messages').select(['id', 'status']).where('thread_id', '=', liveThread).executeTakeFirstOrThrow();
    await t.ctx.db.updateTable('sent_messages').set({ status: 'sending' }).where('id', '=', msg.id).execute();
    const busy = await t.req('DELETE', `/v1/threads/${liveThread}`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('duplicate_resource');
    await t.ctx.db.updateTable('sent_messages').set({ status: msg.status }).where('id', '=', msg.id).execute();

    const d = await t.req('DELETE', `/v1/threads/${liveThread}`);
    expect(d.status, d.text).toBe(200);
    expect(d.body.id).toBe(liveThread);
    expect((await t.req('GET', `/v1/threads/${liveThread}`)).status).toBe(404);
    expect((await t.req('GET', `/v1/messages/${msg.id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/v1/threads/${liveThread}`)).status).toBe(404);
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'thread.deleted' } });
    expect(ev.body.data[0]).toMatchObject({ thread_id: liveThread, type: 'thread.deleted' });
    const logs = await t.req('GET', '/v1/logs', { query: { category: 'thread' } });
    expect(logs.body.data[0]).toMatchObject({ action: 'thread.deleted', target_resource_id: liveThread });
  });
});
