import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';
import { OutboundScheduler } from '../../../src/server/workers/scheduler.js';
import { MINUTE, isoAt } from '../../../src/shared/clock.js';

/**
 * What the relay says beyond a plain 250 or 5xx: recipients refused at RCPT TO while others are
 * accepted (synchronous bounces), and a 4xx deferral of a scheduled send (message.delayed once).
 * A real smtp-server relay over TCP; time moves with the ManualClock.
 */
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
beforeEach(() => {
  relay.mode = 'accept';
  relay.rejectRcpt.clear();
  relay.messages.length = 0;
});

const TX = { agent: 'agent', subject: 'Your receipt', body_text: 'Thanks for your order #1234.' };

async function eventsFor(type: string, messageId: string) {
  const r = await t.req('GET', '/v1/events', { query: { event_type: type, limit: 100 } });
  expect(r.status, r.text).toBe(200);
  return (r.body.data as { type: string; source_message_id: string | null; test_mode: boolean; data: Record<string, any> }[])
    .filter((e) => e.source_message_id === messageId);
}

async function lookup(address: string) {
  const r = await t.req('GET', '/v1/suppression', { query: { address } });
  expect(r.status, r.text).toBe(200);
  return r.body as { suppressed: boolean; type: string | null };
}

describe('partial recipient refusal at RCPT TO', () => {
  it('sends to the accepted recipients; each refused one bounces (5xx hard + suppressed, 4xx soft)', async () => {
    relay.rejectRcpt.set('gone@example.com', { code: 550, message: '5.1.1 <gone@example.com>: Recipient address rejected: User unknown' });
    relay.rejectRcpt.set('full@example.org', { code: 452, message: '4.2.2 Mailbox full' });
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['bob@example.com', 'gone@example.com'], cc: ['full@example.org'] } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('sent');
    expect(relay.messages).toHaveLength(1);
    expect(relay.messages[0].rcptTo).toEqual(['bob@example.com']);

    const got = await t.req('GET', `/v1/messages/${r.body.id}`);
    expect(got.body.status).toBe('sent');
    // Not every recipient's transport accepted it, so it is not "delivered" as a whole.
    expect(got.body.delivered_at).toBeUndefined();

    const delivered = await eventsFor('message.delivered', r.body.id);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].data.recipients).toEqual(['bob@example.com']);

    const bounced = await eventsFor('message.bounced', r.body.id);
    expect(bounced).toHaveLength(2);
    const hard = bounced.find((e) => e.data.recipient === 'gone@example.com')!;
    expect(hard.data).toMatchObject({
      message_id: r.body.id, bounce_type: 'hard', source: 'relay_rcpt', status: '5.1.1', response_code: 550,
    });
    expect(hard.data.response).toMatch(/^550 5\.1\.1 .*User unknown/);
    expect(hard.test_mode).toBe(false);
    const soft = bounced.find((e) => e.data.recipient === 'full@example.org')!;
    expect(soft.data).toMatchObject({ bounce_type: 'soft', source: 'relay_rcpt', status: '4.2.2', response_code: 452 });

    expect(await lookup('gone@example.com')).toMatchObject({ suppressed: true, type: 'hard_bounce' });
    expect((await lookup('full@example.org')).suppressed).toBe(false);
    const added = (await t.req('GET', '/v1/events', { query: { event_type: 'suppression.added', limit: 100 } })).body.data as { source_message_id: string; data: { address: string } }[];
    expect(added.filter((e) => e.source_message_id === r.body.id).map((e) => e.data.address)).toEqual(['gone@example.com']);

    // The hard bounce now blocks the address; the soft one does not.
    const again = await t.req('POST', '/v1/messages', { body: { ...TX, to: 'gone@example.com' } });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('recipient_suppressed');
    relay.rejectRcpt.clear();
    expect((await t.req('POST', '/v1/messages', { body: { ...TX, to: 'full@example.org' } })).status).toBe(201);
  });

  it('one copy per recipient: the first refused at RCPT TO bounces, the rest still go; a relay that refuses the copies after the first bounces those recipients, never a resend', async () => {
    relay.rejectRcpt.set('first@example.com', { code: 550, message: '5.1.1 No such user' });
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['first@example.com', 'second@example.com'] } });
    expect(r.status, r.text).toBe(201);
    expect(relay.messages.map((m) => m.rcptTo)).toEqual([['second@example.com']]);
    // An address named twice (To and Cc, another case) gets one copy.
    relay.messages.length = 0;
    const twice = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['dup@example.com', 'other@example.com'], cc: ['DUP@example.com'] } });
    expect(twice.status, twice.text).toBe(201);
    expect(relay.messages.map((m) => m.rcptTo[0].toLowerCase()).sort()).toEqual(['dup@example.com', 'other@example.com']);
    expect((await eventsFor('message.bounced', r.body.id)).map((e) => [e.data.recipient, e.data.bounce_type])).toEqual([['first@example.com', 'hard']]);
    expect((await eventsFor('message.delivered', r.body.id))[0].data.recipients).toEqual(['second@example.com']);

    // The relay takes the first copy, then refuses the content of the next ones (5xx at DATA).
    relay.messages.length = 0;
    let n = 0;
    const taken = relay.messages.push.bind(relay.messages);
    relay.messages.push = (...m) => { if (++n === 1) relay.mode = 'refuse'; return taken(...m); };
    try {
      const p = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['one@example.com', 'two@example.com', 'three@example.com'] } });
      expect(p.status, p.text).toBe(201);
      expect(p.body.status).toBe('sent');
      expect(relay.messages.map((m) => m.rcptTo)).toEqual([['one@example.com']]);
      const bounced = await eventsFor('message.bounced', p.body.id);
      expect(bounced.map((e) => e.data.recipient).sort()).toEqual(['three@example.com', 'two@example.com']);
      for (const b of bounced) expect(b.data).toMatchObject({ bounce_type: 'hard', response_code: 550 });
    } finally {
      relay.messages.push = taken;
    }
  });

  it('every recipient refused (5xx) keeps the whole-message refusal: 502 upstream_error, recorded failed, no bounce', async () => {
    relay.rejectRcpt.set('nobody@example.net', { code: 550, message: '5.1.1 User unknown' });
    relay.rejectRcpt.set('noone@example.net', { code: 554, message: '5.7.1 Relay access denied' });
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['nobody@example.net', 'noone@example.net'] } });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('upstream_error');
    const id = /msg_[0-9a-z]+/.exec(r.body.error.message)![0];
    expect((await t.req('GET', `/v1/messages/${id}`)).body.status).toBe('failed');
    expect(await eventsFor('message.failed', id)).toHaveLength(1);
    expect(await eventsFor('message.bounced', id)).toHaveLength(0);
    expect((await lookup('nobody@example.net')).suppressed).toBe(false);
    expect(relay.messages).toHaveLength(0);
  });

  it('a scheduled send with a refused recipient goes out to the rest and bounces the refused one', async () => {
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: ['ann@example.com', 'left@example.com'], scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    expect(r.status, r.text).toBe(201);
    relay.rejectRcpt.set('left@example.com', { code: 550, message: '5.1.1 No such user' });
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('sent');
    expect(relay.messages.map((m) => m.rcptTo)).toEqual([['ann@example.com']]);
    const bounced = await eventsFor('message.bounced', r.body.id);
    expect(bounced.map((e) => [e.data.recipient, e.data.bounce_type, e.data.source])).toEqual([['left@example.com', 'hard', 'relay_rcpt']]);
    expect((await lookup('left@example.com')).type).toBe('hard_bounce');
  });
});

describe('a scheduled send the relay defers (4xx)', () => {
  it('emits message.delayed once, keeps retrying every minute, then sends', async () => {
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: 'later@example.com', scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    expect(r.status, r.text).toBe(201);
    relay.mode = 'defer';
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    const first = await t.req('GET', `/v1/messages/${r.body.id}`);
    expect(first.body.status).toBe('scheduled');
    let delayed = await eventsFor('message.delayed', r.body.id);
    expect(delayed).toHaveLength(1);
    expect(delayed[0].data).toMatchObject({
      message_id: r.body.id, recipients: ['later@example.com'], source: 'relay_defer', response_code: 451, status: '4.3.0',
      next_attempt_at: isoAt(t.clock.now() + MINUTE),
    });
    expect(delayed[0].data.response).toMatch(/^451 4\.3\.0 Try again later/);

    // Still deferred a minute later: retried, no second event.
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('scheduled');
    delayed = await eventsFor('message.delayed', r.body.id);
    expect(delayed).toHaveLength(1);

    relay.mode = 'accept';
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('sent');
    expect(relay.messages.map((m) => m.rcptTo)).toEqual([['later@example.com']]);
    expect(await eventsFor('message.delayed', r.body.id)).toHaveLength(1);
    expect(await eventsFor('message.delivered', r.body.id)).toHaveLength(1);
  });

  it('an unreachable relay retries without message.delayed (it deferred nothing)', async () => {
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: 'down@example.com', scheduled_at: isoAt(t.clock.now() + MINUTE) } });
    expect(r.status, r.text).toBe(201);
    closeRelay(t.ctx);
    await relay.stop();
    try {
      t.clock.advance(MINUTE);
      await scheduler.runDue();
      expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('scheduled');
      expect(await eventsFor('message.delayed', r.body.id)).toHaveLength(0);
    } finally {
      await relay.restart();
    }
    t.clock.advance(MINUTE);
    await scheduler.runDue();
    expect((await t.req('GET', `/v1/messages/${r.body.id}`)).body.status).toBe('sent');
  });

  it('an immediate send the relay defers still answers 503 and records nothing', async () => {
    relay.mode = 'defer';
    const r = await t.req('POST', '/v1/messages', { body: { ...TX, to: 'now@example.com' } });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('upstream_unavailable');
    const rows = await t.ctx.db.selectFrom('sent_messages').select('id').where('to', 'like', '%now@example.com%').execute();
    expect(rows).toHaveLength(0);
  });
});
