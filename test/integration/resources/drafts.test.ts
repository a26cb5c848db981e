import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { DRAFT_SEND_LEASE_MS, runDueDrafts } from '../../../src/services/drafts.js';
import { MINUTE } from '../../../src/shared/clock.js';

let t: TestApp;
let other: { id: string; email: string };
let draftKey: string;
const TEST_ADDR = 'reply@test.mailagent.localhost';
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  t = await createTestApp();
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
  draftKey = await t.makeKey({ scopes: ['draft'] });
});
afterAll(async () => { await t.close(); });

describe('create, read, list', () => {
  it('the draft scope creates, reads and lists drafts', async () => {
    const c = await t.req('POST', '/v1/drafts', { key: draftKey, body: { agent: 'agent', to: 'Bob <bob@example.com>', subject: 'Hello', body_text: 'Hi Bob' } });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({ object: 'draft', agent_id: t.boot.agent.id, to: ['Bob <bob@example.com>'], subject: 'Hello', body_text: 'Hi Bob', status: 'draft', test_mode: false });
    expect(c.body).not.toHaveProperty('send_at');
    expect(c.body.id).toMatch(/^dft_/);
    expect((await t.req('GET', `/v1/drafts/${c.body.id}`, { key: draftKey })).body.id).toBe(c.body.id);
    const l = await t.req('GET', '/api/v1/drafts', { key: draftKey, query: { status: 'draft' } });
    expect(l.body.data.map((d: any) => d.id)).toContain(c.body.id);
    // An empty draft is fine: nothing is required until it is sent.
    const empty = await t.req('POST', '/v1/drafts', { body: { agent: 'agent' } });
    expect(empty.status, empty.text).toBe(201);
    expect(empty.body).toMatchObject({ to: [], subject: '' });
    expect(empty.body).not.toHaveProperty('body_text');
    const p1 = await t.req('GET', '/v1/drafts', { query: { limit: 1 } });
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.req('GET', '/v1/drafts', { query: { limit: 1, cursor: p1.body.next_cursor } });
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
  });

  it('list items carry an excerpt, not the bodies or attachments; retrieve gives them whole', async () => {
    const body_text = 'Draft of the quarterly letter. ' + 'x'.repeat(300_000);
    const body_html = `<p>${'y'.repeat(300_000)}</p>`;
    const attachments = [{ filename: 'big.bin', content_type: 'application/octet-stream', content_base64: Buffer.alloc(200_000, 7).toString('base64') }];
    const c = await t.req('POST', '/v1/drafts', { body: { agent: 'agent', to: 'a@example.com', subject: 'big draft', body_text, body_html, attachments } });
    expect(c.status, c.text).toBe(201);
    const l = await t.req('GET', '/v1/drafts', { query: { limit: 1 } });
    const item = l.body.data[0];
    expect(item.id).toBe(c.body.id);
    expect(item.body_text).toBeUndefined();
    expect(item.body_html).toBeUndefined();
    expect(item.body_text_excerpt.startsWith('Draft of the quarterly letter.')).toBe(true);
    expect(item.body_text_excerpt.length).toBeLessThanOrEqual(200);
    expect(l.text.length).toBeLessThan(5_000);
    const g = await t.req('GET', `/v1/drafts/${c.body.id}`);
    expect(g.body.body_text).toBe(body_text);
    expect(g.body.body_html).toBe(body_html);
  });

  it('refuses bad input with the field named', async () => {
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', to: 'not an address' } })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'to' });
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', to: ['a@b.co', 'x'] } })).body.error.param).toBe('to[1]');
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', subject: 'x'.repeat(999) } })).body.error.param).toBe('subject');
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', bogus: 1 } })).body.error).toMatchObject({ code: 'invalid_field', param: 'bogus' });
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'nobody' } })).body.error.code).toBe('agent_not_found');
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', send_at: iso(t.clock.now() - MINUTE) } })).body.error.param).toBe('send_at');
    expect((await t.req('POST', '/v1/drafts', { body: { agent: 'agent', send_at: 'tomorrow' } })).body.error.param).toBe('send_at');
    expect((await t.req('GET', '/v1/drafts/dft_nope')).body.error.code).toBe('resource_not_found');
    expect((await t.req('GET', '/v1/drafts', { query: { status: 'x' } })).body.error.param).toBe('status');
  });

  it('the draft scope never schedules or sends; no scope at all is refused', async () => {
    const r = await t.req('POST', '/v1/drafts', { key: draftKey, body: { agent: 'agent', to: TEST_ADDR, send_at: iso(t.clock.now() + MINUTE) } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
    const d = (await t.req('POST', '/v1/drafts', { key: draftKey, body: { agent: 'agent', to: TEST_ADDR, subject: 's', body_text: 'b' } })).body;
    expect((await t.req('POST', `/v1/drafts/${d.id}/send`, { key: draftKey })).status).toBe(403);
    expect((await t.req('PATCH', `/v1/drafts/${d.id}`, { key: draftKey, body: { send_at: iso(t.clock.now() + MINUTE) } })).status).toBe(403);
    const none = await t.makeKey({ scopes: [] });
    expect((await t.req('GET', '/v1/drafts', { key: none })).status).toBe(403);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await t.req('GET', '/v1/drafts', { key: reader })).status).toBe(200);
    expect((await t.req('POST', '/v1/drafts', { key: reader, body: {} })).status).toBe(403);
  });

  it('agent-bound keys see only their own agent\'s drafts', async () => {
    const d = (await t.req('POST', '/v1/drafts', { body: { agent: 'agent', subject: 'mine' } })).body;
    const bound = await t.makeKey({ scopes: ['draft', 'send', 'read'], agent_id: other.id });
    expect((await t.req('GET', `/v1/drafts/${d.id}`, { key: bound })).status).toBe(404);
    expect((await t.req('PATCH', `/v1/drafts/${d.id}`, { key: bound, body: { subject: 'x' } })).status).toBe(404);
    expect((await t.req('DELETE', `/v1/drafts/${d.id}`, { key: bound })).status).toBe(404);
    const own = await t.req('POST', '/v1/drafts', { key: bound, body: { subject: 'bound' } });
    expect(own.body.agent_id).toBe(other.id);
    const l = await t.req('GET', '/v1/drafts', { key: bound });
    expect(l.body.data.every((x: any) => x.agent_id === other.id)).toBe(true);
  });
});

describe('edit and delete', () => {
  it('edits content, keeps what is not named, and emits draft.updated', async () => {
    const d = (await t.req('POST', '/v1/drafts', { body: { agent: 'agent', to: 'a@example.com', subject: 'one', body_text: 'first' } })).body;
    const p = await t.req('PATCH', `/v1/drafts/${d.id}`, { body: { subject: 'two', cc: ['c@example.com'] } });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toMatchObject({ subject: 'two', body_text: 'first', to: ['a@example.com'], cc: ['c@example.com'] });
    expect((await t.req('PATCH', `/v1/drafts/${d.id}`, { body: { text: 'alias' } })).body.body_text).toBe('alias');
    expect((await t.req('PATCH', `/v1/drafts/${d.id}`, { body: { cc: 'bad' } })).body.error.param).toBe('cc');
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'draft.updated' } });
    expect(ev.body.data[0].data.draft_id).toBe(d.id);
    const del = await t.req('DELETE', `/v1/drafts/${d.id}`, { headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: d.id });
    expect((await t.req('GET', `/v1/drafts/${d.id}`)).status).toBe(404);
  });

  it('a test key cannot change, send or delete a draft a live key made', async () => {
    const d = (await t.req('POST', '/v1/drafts', { body: { agent: 'agent', to: TEST_ADDR, subject: 'live', body_text: 'x' } })).body;
    for (const [m, u, body] of [['PATCH', `/v1/drafts/${d.id}`, { subject: 'y' }], ['POST', `/v1/drafts/${d.id}/send`, {}], ['DELETE', `/v1/drafts/${d.id}`, undefined]] as const) {
      const r = await t.req(m, u, { key: t.testKey, body });
      expect(r.status, `${m} ${u}`).toBe(403);
      expect(r.body.error.code).toBe('live_mode_required');
    }
    expect((await t.req('GET', `/v1/drafts/${d.id}`, { key: t.testKey })).status).toBe(200);
  });
});

describe('send', () => {
  it('sends now through the send path, then refuses edit, delete and a second send with 409', async () => {
    const d = (await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: 'Draft to test', body_text: 'Body' } })).body;
    expect(d.test_mode).toBe(true);
    const s = await t.req('POST', `/v1/drafts/${d.id}/send`, { key: t.testKey, headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(s.status, s.text).toBe(200);
    expect(s.body).toMatchObject({ id: d.id, status: 'sent' });
    expect(s.body.message_id).toMatch(/^msg_/);
    expect(s.headers['ratelimit-limit']).toBe('100');
    const msg = await t.req('GET', `/v1/messages/${s.body.message_id}`, { key: t.testKey });
    expect(msg.body).toMatchObject({ subject: 'Draft to test', thread_id: s.body.thread_id, to: [TEST_ADDR] });
    const got = await t.req('GET', `/v1/drafts/${d.id}`);
    expect(got.body).toMatchObject({ status: 'sent', sent_message_id: s.body.message_id, thread_id: s.body.thread_id });
    for (const [m, u, body] of [['PATCH', `/v1/drafts/${d.id}`, { subject: 'y' }], ['POST', `/v1/drafts/${d.id}/send`, {}], ['DELETE', `/v1/drafts/${d.id}`, undefined]] as const) {
      const r = await t.req(m, u, { key: t.testKey, body });
      expect(r.status, `${m} ${u}`).toBe(409);
      expect(r.body.error.code).toBe('duplicate_resource');
    }
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'draft.sent' } });
    expect(ev.body.data[0].data).toMatchObject({ draft_id: d.id, sent_message_id: s.body.message_id });
  });

  it('a refused send leaves the draft editable (missing recipient, suppressed recipient)', async () => {
    const d = (await t.req('POST', '/v1/drafts', { body: { agent: 'agent', subject: 'no one', body_text: 'x' } })).body;
    const r = await t.req('POST', `/v1/drafts/${d.id}/send`, { body: {} });
    expect(r.body.error).toMatchObject({ code: 'missing_field', param: 'to' });
    expect((await t.req('GET', `/v1/drafts/${d.id}`)).body.status).toBe('draft');
    await t.req('POST', '/v1/suppression', { body: { address: other.email } });
    await t.req('PATCH', `/v1/drafts/${d.id}`, { body: { to: other.email } });
    const s = await t.req('POST', `/v1/drafts/${d.id}/send`, { body: {} });
    expect(s.status).toBe(422);
    expect(s.body.error.code).toBe('recipient_suppressed');
    expect((await t.req('GET', `/v1/drafts/${d.id}`)).body.status).toBe('draft');
  });

  it('an Idempotency-Key replays the answer instead of sending twice', async () => {
    const d = (await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: 'idem', body_text: 'x' } })).body;
    const a = await t.req('POST', `/v1/drafts/${d.id}/send`, { key: t.testKey, body: {}, headers: { 'idempotency-key': 'k-1' } });
    expect(a.status, a.text).toBe(200);
    const b = await t.req('POST', `/v1/drafts/${d.id}/send`, { key: t.testKey, body: {}, headers: { 'idempotency-key': 'k-1' } });
    expect(b.status, b.text).toBe(200);
    expect(b.headers['idempotent-replay']).toBe('true');
    expect(b.body.message_id).toBe(a.body.message_id);
  });

  it('a scheduled draft goes out on time through the scheduler', async () => {
    const when = t.clock.now() + 10 * MINUTE;
    const d = (await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: 'later', body_text: 'x', send_at: iso(when) } })).body;
    expect(d).toMatchObject({ status: 'scheduled', send_at: iso(when) });
    expect(await runDueDrafts(t.ctx)).toBe(0);
    t.clock.advance(10 * MINUTE);
    expect(await runDueDrafts(t.ctx)).toBe(1);
    const got = (await t.req('GET', `/v1/drafts/${d.id}`)).body;
    expect(got.status).toBe('sent');
    expect(got.sent_message_id).toMatch(/^msg_/);
    expect(await runDueDrafts(t.ctx)).toBe(0);
  });

  it('several drafts due at the same instant all go out in one pass (PostgreSQL claimed them all and sent one)', async () => {
    const when = t.clock.now() + MINUTE;
    const ds = [];
    for (let i = 0; i < 3; i++) {
      ds.push((await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: `same instant ${i}`, body_text: 'x', send_at: iso(when) } })).body);
    }
    t.clock.advance(MINUTE);
    expect(await runDueDrafts(t.ctx)).toBe(3);
    for (const d of ds) expect((await t.req('GET', `/v1/drafts/${d.id}`)).body.status).toBe('sent');
    const left = await t.ctx.db.selectFrom('drafts').select('id').where('status', '=', 'sending').execute();
    expect(left).toEqual([]);
  });

  it('a draft left `sending` by a daemon that died fails after the lease (draft.failed), never sent twice', async () => {
    const when = t.clock.now() + MINUTE;
    const d = (await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: TEST_ADDR, subject: 'orphan', body_text: 'x', send_at: iso(when) } })).body;
    t.clock.advance(MINUTE);
    // The dead daemon's claim, as runDueDrafts writes it before sending.
    await t.ctx.db.updateTable('drafts').set({ status: 'sending', sending_started_at: iso(t.clock.now()) }).where('id', '=', d.id).execute();
    expect(await runDueDrafts(t.ctx)).toBe(0);
    expect((await t.req('GET', `/v1/drafts/${d.id}`)).body.status).toBe('sending');
    t.clock.advance(DRAFT_SEND_LEASE_MS);
    expect(await runDueDrafts(t.ctx)).toBe(0);
    const got = (await t.req('GET', `/v1/drafts/${d.id}`)).body;
    expect(got.status).toBe('failed');
    expect(got.error_message).toContain('stopped mid-send');
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'draft.failed' } });
    expect(ev.body.data[0].data.draft_id).toBe(d.id);
  });

  it('send with a future send_at schedules; PATCH send_at null unschedules; a failing scheduled send is failed', async () => {
    const d = (await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', subject: 'sched', body_text: 'x' } })).body;
    const s = await t.req('POST', `/v1/drafts/${d.id}/send`, { key: t.testKey, body: { send_at: iso(t.clock.now() + MINUTE) } });
    expect(s.body).toMatchObject({ status: 'scheduled', send_at: iso(t.clock.now() + MINUTE) });
    const u = await t.req('PATCH', `/v1/drafts/${d.id}`, { key: t.testKey, body: { send_at: null } });
    expect(u.body).toMatchObject({ status: 'draft' });
    expect(u.body).not.toHaveProperty('send_at');
    await t.req('PATCH', `/v1/drafts/${d.id}`, { key: t.testKey, body: { send_at: iso(t.clock.now() + MINUTE) } });
    t.clock.advance(MINUTE);
    expect(await runDueDrafts(t.ctx)).toBe(1);
    const got = (await t.req('GET', `/v1/drafts/${d.id}`)).body;
    expect(got.status).toBe('failed');
    expect(got.error_message).toContain('missing_field');
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'draft.failed' } });
    expect(ev.body.data[0].data.draft_id).toBe(d.id);
    // A failed draft can be fixed and sent.
    await t.req('PATCH', `/v1/drafts/${d.id}`, { key: t.testKey, body: { to: TEST_ADDR } });
    expect((await t.req('POST', `/v1/drafts/${d.id}/send`, { key: t.testKey, body: {} })).body.status).toBe('sent');
  });
});
