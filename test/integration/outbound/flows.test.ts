import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';
import { OutboundScheduler, SEND_LEASE_MS } from '../../../src/server/workers/scheduler.js';
import { claimDueSimulatedReplies } from '../../../src/db/repos/messages.js';
import { createContext } from '../../../src/server/context.js';
import { buildApp } from '../../../src/server/http/app.js';
import { call } from '../../helpers/app.js';
import { HOUR, MINUTE, SECOND, isoAt } from '../../../src/shared/clock.js';

let t: TestApp;
let relay: TestRelay;
let scheduler: OutboundScheduler;
beforeAll(async () => {
  relay = await TestRelay.start();
  t = await createTestApp({ relay: relay.url });
  scheduler = new OutboundScheduler(t.ctx);
});
afterAll(async () => {
  closeRelay(t.ctx);
  await t.close();
  await relay.stop();
});

const TX = { subject: 'Your receipt', body_text: 'Thanks for your order #1234.' };
// A pitch that follows up a real conversation: refused by the screen, overturned on review.
const COLD_APPEALABLE = { subject: 'Following up on our call', body_text: 'Hi Dana,\n\nGreat speaking with you yesterday. As discussed, we help teams like yours cut their cloud bill by 30%. Would you be open to a 15-minute call next week with our engineer to go over the numbers?\n\nBest, Lee' };
const COLD_UPHELD = { subject: 'Hello', body_text: 'I came across your profile. Would you be open to a quick call?' };
const COLD_FIXED = { subject: 'Big sale', body_text: 'Buy now! 50% off, limited time offer. Unsubscribe here. You are receiving this email because you signed up. {{first_name}}' };

describe('scheduling', () => {
  it('a future scheduled_at is scheduled; the worker sends it on time; reschedule and cancel rules', async () => {
    relay.messages.length = 0;
    const at = isoAt(t.clock.now() + HOUR);
    const r = await t.req('POST', '/v1/messages', { body: { to: 'bob@example.com', ...TX, scheduled_at: at } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('scheduled');
    expect(r.body.scheduled_at).toBe(at);
    // Counts against the caps from acceptance.
    expect((await t.ctx.db.selectFrom('send_log').selectAll().where('message_id', '=', r.body.id).execute())).toHaveLength(1);
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(0);

    // Reschedule needs manage and send; a test key touching a live send → 403 live_mode_required.
    const manageOnly = await t.makeKey({ scopes: ['manage'] });
    expect((await t.req('PATCH', `/v1/messages/${r.body.id}`, { key: manageOnly, body: { scheduled_at: at } })).body.error.code).toBe('insufficient_scope');
    const tm = await t.req('PATCH', `/v1/messages/${r.body.id}`, { key: t.testKey, body: { scheduled_at: at } });
    expect(tm.status).toBe(403);
    expect(tm.body.error.code).toBe('live_mode_required');
    expect((await t.req('PATCH', `/v1/messages/${r.body.id}`, { body: { scheduled_at: isoAt(t.clock.now() - 1000) } })).body.error.param).toBe('scheduled_at');
    const later = isoAt(t.clock.now() + 2 * HOUR);
    const p = await t.req('PATCH', `/v1/messages/${r.body.id}`, { body: { scheduled_at: later } });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toEqual({ id: r.body.id, scheduled_at: later, status: 'scheduled' });

    t.clock.advance(HOUR + MINUTE);
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(0);
    t.clock.advance(HOUR);
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(1);
    const sent = await t.req('GET', `/v1/messages/${r.body.id}`);
    expect(sent.body.status).toBe('sent');
    expect(sent.body.sent_at).toBe(isoAt(t.clock.now()));
    // After sending began: 409 duplicate_resource for both.
    expect((await t.req('PATCH', `/v1/messages/${r.body.id}`, { body: { scheduled_at: isoAt(t.clock.now() + HOUR) } })).status).toBe(409);
    const c = await t.req('POST', `/v1/messages/${r.body.id}/cancel`);
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('duplicate_resource');
  });

  it('cancel → canceled with canceled_at, and it is never sent', async () => {
    relay.messages.length = 0;
    const r = await t.req('POST', '/v1/messages', { body: { to: 'bob@example.com', ...TX, scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    const c = await t.req('POST', `/v1/messages/${r.body.id}/cancel`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(c.status, c.text).toBe(200);
    expect(c.body).toEqual({ id: r.body.id, status: 'canceled', canceled_at: isoAt(t.clock.now()) });
    t.clock.advance(2 * MINUTE);
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(0);
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('canceled');
  });

  it('several sends due at the same instant all go out in one pass (PostgreSQL claimed them all and sent one)', async () => {
    relay.messages.length = 0;
    const at = isoAt(t.clock.now() + MINUTE);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.req('POST', '/v1/messages', { body: { to: `same${i}@example.com`, ...TX, scheduled_at: at } });
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.id);
    }
    t.clock.advance(2 * MINUTE);
    expect(await scheduler.runDue()).toBe(5);
    expect(relay.messages.map((m) => m.rcptTo[0]).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `same${i}@example.com`));
    for (const id of ids) expect((await t.req('GET', `/v1/messages/${id}`)).body.status).toBe('sent');
    const stuck = await t.ctx.db.selectFrom('sent_messages').select('id').where('status', '=', 'sending').execute();
    expect(stuck).toEqual([]);
  });

  it('scheduled sends survive a restart (a new context and app on the same database)', async () => {
    relay.messages.length = 0;
    const r = await t.req('POST', '/v1/messages', { body: { to: 'carol@example.com', ...TX, scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    const ctx2 = createContext(t.config, t.ctx.db, t.clock);
    const app2 = await buildApp(ctx2, { logger: false });
    try {
      t.clock.advance(2 * MINUTE);
      await new OutboundScheduler(ctx2).runDue();
      expect(relay.messages.map((m) => m.rcptTo)).toEqual([['carol@example.com']]);
      const got = await call(app2, 'GET', `/v1/messages/${r.body.id}`, { key: t.liveKey });
      expect(got.body.status).toBe('sent');
    } finally {
      closeRelay(ctx2);
      await app2.close();
    }
  });
});

describe('work that must happen once across daemons (leases)', () => {
  it('a scheduled send left `sending` by a daemon that died is sent by another after the lease', async () => {
    relay.messages.length = 0;
    const r = await t.req('POST', '/v1/messages', { body: { to: 'dora@example.com', ...TX, scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    t.clock.advance(2 * MINUTE);
    // The dead daemon's claim: what dispatchScheduled writes before it transmits.
    await t.ctx.db.updateTable('sent_messages').set({ status: 'sending', updated_at: isoAt(t.clock.now()) }).where('id', '=', r.body.id).execute();
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(0); // still within its lease: the other daemon may be sending it
    t.clock.advance(SEND_LEASE_MS);
    await scheduler.runDue();
    expect(relay.messages.map((m) => m.rcptTo)).toEqual([['dora@example.com']]);
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('sent');
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(1);
  });

  it('a test-address reply leased by another daemon is left alone until its lease runs out, then delivered once', async () => {
    const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'Lease me', body_text: 'x' } });
    expect(r.status, r.text).toBe(201);
    await scheduler.runDue(); // a test send is marked sent, its reply due a second later
    t.clock.advance(SECOND);
    const now = isoAt(t.clock.now());
    // Another daemon leased it (and died before delivering).
    expect((await claimDueSimulatedReplies(t.ctx.db, now, 50, isoAt(t.clock.now() + MINUTE))).map((x) => x.message_id)).toEqual([r.body.id]);
    expect(await claimDueSimulatedReplies(t.ctx.db, now, 50, isoAt(t.clock.now() + MINUTE))).toEqual([]);
    const replies = () => t.ctx.db.selectFrom('received_messages').select('id').where('subject', '=', 'Re: Lease me').execute();
    await scheduler.runDue();
    expect(await replies()).toHaveLength(0);
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    expect(await replies()).toHaveLength(1);
    t.clock.advance(HOUR);
    await scheduler.runDue();
    expect(await replies()).toHaveLength(1);
  });
});

describe('reply, forward and local delivery', () => {
  it('local delivery: a live send to another agent arrives through the inbound pipeline; the reply threads', async () => {
    relay.messages.length = 0;
    const b = await t.req('POST', '/v1/agents', { body: { name: 'bob' } });
    expect(b.status).toBe(201);
    const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'bob+orders@local.mailagent.localhost', ...TX } });
    expect(r.status, r.text).toBe(201);
    expect(relay.messages).toHaveLength(0);
    const got = await t.req('GET', '/v1/messages/received', { query: { agent_id: 'bob' } });
    expect(got.status, got.text).toBe(200);
    expect(got.body.data).toHaveLength(1);
    const rcv = got.body.data[0];
    expect(rcv.subject).toBe('Your receipt');
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.delivered_at).toBeTruthy();

    // Bob replies by rcv_ id: Re:, In-Reply-To, back to the sender; it lands in agent's inbox threaded.
    const rep = await t.req('POST', `/v1/messages/${rcv.id}/reply`, { body: { body_text: 'Got it, thanks.' } });
    expect(rep.status, rep.text).toBe(201);
    expect(rep.body.subject).toBe('Re: Your receipt');
    expect(rep.body.to).toEqual(['agent@local.mailagent.localhost']);
    expect(rep.body.in_reply_to_message_id).toBe(rcv.id);
    const full = await t.req('GET', `/v1/messages/${rep.body.id}`);
    expect(full.body.references.length).toBeGreaterThan(0);
    const back = await t.req('GET', '/v1/messages/received', { query: { agent_id: 'agent' } });
    const answer = back.body.data.find((m: { subject: string }) => m.subject === 'Re: Your receipt');
    expect(answer).toBeTruthy();
    expect(answer.thread_id).toBe(r.body.thread_id);
    // Replying again never writes Re: Re:
    const rep2 = await t.req('POST', `/v1/messages/${answer.id}/reply`, { body: { agent: 'agent', body_text: 'Great.' } });
    expect(rep2.status, rep2.text).toBe(201);
    expect(rep2.body.subject).toBe('Re: Your receipt');
    expect(rep2.body.thread_id).toBe(r.body.thread_id);
  });

  it('reply to a msg_ on the wire (reply_all) and forward (Fwd:, quoted, attachments, always at once)', async () => {
    relay.messages.length = 0;
    const o = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'bob@example.com', cc: ['carol@example.com'], ...TX, attachments: [{ filename: 'r.txt', content_base64: Buffer.from('receipt').toString('base64') }] } });
    expect(o.status).toBe(201);
    const rep = await t.req('POST', `/v1/messages/${o.body.id}/reply`, { body: { body_text: 'One more thing.', reply_all: true } });
    expect(rep.status, rep.text).toBe(201);
    // Two recipients each time: one copy per recipient (per-recipient unsubscribe links).
    const wire = await simpleParser(relay.messages[2].raw);
    const orig = await simpleParser(relay.messages[0].raw);
    expect(wire.subject).toBe('Re: Your receipt');
    expect(wire.inReplyTo).toBe(orig.messageId);
    expect(wire.references).toContain(orig.messageId);
    expect(relay.messages.slice(2, 4).map((m) => m.rcptTo[0]).sort()).toEqual(['bob@example.com', 'carol@example.com']);
    expect(rep.body.thread_id).toBe(o.body.thread_id);

    const fw = await t.req('POST', `/v1/messages/${o.body.id}/forward`, { body: { to: 'dave@example.com', body_text: 'FYI', scheduled_at: isoAt(t.clock.now() + HOUR) } });
    expect(fw.status, fw.text).toBe(201);
    expect(fw.body.status).toBe('sent');
    expect(fw.body.subject).toBe('Fwd: Your receipt');
    expect(fw.body.forwarded_from).toBe(o.body.id);
    const fwire = await simpleParser(relay.messages[4].raw);
    expect(fwire.text).toContain('FYI');
    expect(fwire.text).toContain('Thanks for your order #1234.');
    expect(fwire.attachments.map((a) => a.filename)).toEqual(['r.txt']);
    expect((await t.req('POST', '/v1/messages/msg_unknown/reply', { body: { body_text: 'x' } })).status).toBe(404);
  });

  it('agent rules: paused → 422, allowlist/blocklist → 422 recipient_not_allowed, suppressed → 422', async () => {
    await t.req('POST', '/v1/agents', { body: { name: 'strict', allowlist_domains: ['partner.example'], blocklist_domains: ['bad.partner.example'] } });
    const s = (to: string) => t.req('POST', '/v1/messages', { body: { agent: 'strict', to, ...TX } });
    const out = await s('x@other.example');
    expect(out.status).toBe(422);
    expect(out.body.error.code).toBe('recipient_not_allowed');
    expect(out.body.error.param).toBe('to[0]');
    expect((await s('x@bad.partner.example')).body.error.code).toBe('recipient_not_allowed');
    expect((await s('x@partner.example')).status).toBe(201);
    await t.req('PATCH', '/v1/agents/strict', { body: { status: 'paused' } });
    const paused = await s('x@partner.example');
    expect(paused.status).toBe(422);
    expect(paused.body.error.code).toBe('agent_paused');

    const { addSuppression } = await import('../../../src/services/suppression.js');
    const { inTransaction } = await import('../../../src/services/context.js');
    await inTransaction(t.ctx, (tx) => addSuppression(t.ctx, tx, { workspaceId: t.boot.workspace.id, agentId: null, address: 'gone@example.com', type: 'hard_bounce' } as never));
    const sup = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'ok@example.com', cc: ['gone@example.com'], ...TX } });
    expect(sup.status, sup.text).toBe(422);
    expect(sup.body.error.code).toBe('recipient_suppressed');
    expect(sup.body.error.param).toBe('cc[0]');
    expect((await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'gone@example.com', ...TX } })).status).toBe(201);
  });
});

describe('test address, cold screen and appeals', () => {
  it('reply@test.<domain> answers a test send with a simulated reply about a second later', async () => {
    const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', ...TX } });
    expect(r.status).toBe(201);
    await scheduler.runDue();
    const none = await t.ctx.db.selectFrom('received_messages').selectAll().where('from_address', '=', 'reply@test.mailagent.localhost').where('thread_id', '=', r.body.thread_id).execute();
    expect(none).toHaveLength(0);
    t.clock.advance(SECOND);
    await scheduler.runDue();
    const got = await t.ctx.db.selectFrom('received_messages').selectAll().where('from_address', '=', 'reply@test.mailagent.localhost').where('thread_id', '=', r.body.thread_id).execute();
    expect(got).toHaveLength(1);
    expect(got[0].subject).toBe('Re: Your receipt');
    expect(got[0].thread_id).toBe(r.body.thread_id);
    expect(got[0].test_mode).toBe(1);
    const ev = await t.ctx.db.selectFrom('events').select('type').where('type', '=', 'reply.received').execute();
    expect(ev.length).toBeGreaterThan(0);
  });

  it('live cold send → 422 cold_email_prohibited; test key → 201 with classifier_warning', async () => {
    const live = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', ...COLD_UPHELD } });
    expect(live.status).toBe(422);
    expect(live.body.error.code).toBe('cold_email_prohibited');
    expect(live.body.error.message).toMatch(/Fired/);
    const test = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'lead@example.com', ...COLD_UPHELD } });
    expect(test.status).toBe(201);
    expect(test.body.classifier_warning).toMatchObject({ code: 'cold_email_prohibited', reason: 'cold_outreach' });
    expect(test.body.classifier_score).toBe(test.body.classifier_warning.score);
  });

  it('a pitch moved into a text attachment is screened with the body (live 422)', async () => {
    const attach = (text: string) => [{ filename: 'notes.txt', content_type: 'text/plain', content_base64: Buffer.from(text).toString('base64') }];
    const pitch = 'Hi Tom, I came across your profile and we help SaaS companies book more qualified sales meetings. Would you be open to a 15-minute call next week?';
    const refused = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', subject: 'Notes', body_text: 'Please see the attached notes.', attachments: attach(pitch) } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.code).toBe('cold_email_prohibited');
    const ok = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', subject: 'Notes', body_text: 'Please see the attached notes.', attachments: attach('Agenda: 1. budget 2. hiring 3. offsite dates') } });
    expect(ok.status, ok.text).toBe(201);
  });

  it('appeal outcomes, replay, overturn clears the content for 24 h, 10 per day', async () => {
    const refused = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', ...COLD_APPEALABLE } });
    expect(refused.body.error.code).toBe('cold_email_prohibited');
    const ap = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...COLD_APPEALABLE } });
    expect(ap.status, ap.text).toBe(200);
    expect(ap.body.outcome).toBe('overturned');
    expect(typeof ap.body.review_score).toBe('number');
    expect(ap.headers['ratelimit-limit']).toBe('100');
    const again = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...COLD_APPEALABLE } });
    expect(again.body.replayed).toBe(true);
    expect(again.body.outcome).toBe('overturned');
    const ok = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', ...COLD_APPEALABLE } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.routing_pool).toBe('outbound');

    const fixed = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...COLD_FIXED } });
    expect(fixed.body.outcome).toBe('not_appealable');
    expect(fixed.body).not.toHaveProperty('review_score');
    const nb = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...TX } });
    expect(nb.body.outcome).toBe('not_blocked');
    const up = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...COLD_UPHELD } });
    expect(up.body.outcome).toBe('upheld');
    for (let i = 0; i < 6; i++) {
      expect((await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', subject: `s${i}`, body_text: 'hello' } })).status).toBe(200);
    }
    const over = await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', subject: 'eleventh', body_text: 'hello' } });
    expect(over.status).toBe(429);
    expect(over.body.error.resets_at).toBeTruthy();
    // Replays still answer.
    expect((await t.req('POST', '/v1/messages/appeal', { body: { agent: 'agent', ...COLD_UPHELD } })).body.replayed).toBe(true);
    // 24 h later the clearance has lapsed.
    t.clock.advance(24 * HOUR + SECOND);
    expect((await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'lead@example.com', ...COLD_APPEALABLE } })).status).toBe(422);
  });

  it('list with filters and batch with inline per-item errors', async () => {
    const b = await t.req('POST', '/v1/messages/batch', { key: t.testKey, body: [{ agent: 'agent', to: 'a@example.com', ...TX }, { agent: 'agent', to: 'not an address', ...TX }, { agent: 'nobody', to: 'a@example.com', ...TX }] });
    expect(b.status, b.text).toBe(201);
    expect(b.body.batch_size).toBe(3);
    expect(b.body.data[0].id).toMatch(/^msg_/);
    expect(b.body.data[1].error.code).toBe('invalid_param_value');
    expect(b.body.data[1].error.param).toBe('to');
    expect(b.body.data[2].error.code).toBe('agent_not_found');
    expect((await t.req('POST', '/v1/messages/batch', { key: t.testKey, body: Array.from({ length: 101 }, () => ({})) })).status).toBe(400);
    const l = await t.req('GET', '/v1/messages', { query: { agent_id: 'agent', limit: 2 } });
    expect(l.status).toBe(200);
    expect(l.body.data).toHaveLength(2);
    expect(l.body.has_more).toBe(true);
    const l2 = await t.req('GET', '/v1/messages', { query: { agent_id: 'agent', limit: 2, cursor: l.body.next_cursor } });
    expect(l2.body.data[0].id < l.body.data[1].id).toBe(true);
    const th = await t.req('GET', '/v1/messages', { query: { thread_id: b.body.data[0].thread_id } });
    expect(th.body.data.map((m: { id: string }) => m.id)).toEqual([b.body.data[0].id]);
  });

  it('list items carry an excerpt, not the bodies; retrieve gives them whole (an outside tester listed 50 MB pages)', async () => {
    const body_text = 'Quarterly figures attached below. ' + 'x'.repeat(300_000);
    const body_html = `<p>${'y'.repeat(300_000)}</p>`;
    const s = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'big@example.com', subject: 'big bodies', body_text, body_html } });
    expect(s.status, s.text).toBe(201);
    const l = await t.req('GET', '/v1/messages', { key: t.testKey, query: { thread_id: s.body.thread_id } });
    expect(l.status).toBe(200);
    const item = l.body.data[0];
    expect(item.id).toBe(s.body.id);
    expect(item.body_text).toBeUndefined();
    expect(item.body_html).toBeUndefined();
    expect(item.body_text_excerpt.startsWith('Quarterly figures attached below.')).toBe(true);
    expect(item.body_text_excerpt.length).toBeLessThanOrEqual(200);
    expect(l.text.length).toBeLessThan(5_000);
    const m = await t.req('GET', `/v1/messages/${s.body.id}`, { key: t.testKey });
    expect(m.body.body_text).toBe(body_text);
    expect(m.body.body_html).toBe(body_html);
    expect(m.body.body_text_excerpt).toBeUndefined();
  });
});
