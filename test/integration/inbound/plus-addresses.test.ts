import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { eml, startSmtp, transport } from './helpers.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { ingestInbound } from '../../../src/services/inbound.js';
import { isHeldCode } from '../../../src/services/plus-addresses.js';
import { DAY, HOUR, MINUTE } from '../../../src/shared/clock.js';

let t: TestApp;
let smtp: SmtpListener;
const D = 'local.mailagent.localhost';

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp(t);
});
afterAll(async () => {
  await smtp.stop();
  await t.close();
});

const deliver = (to: string, o: { from?: string; subject?: string; body?: string } = {}) =>
  ingestInbound(t.ctx, { raw: Buffer.from(eml({ to, from: o.from ?? 'shop@store.test', subject: o.subject ?? 'Your order', body: o.body ?? 'Thanks for your order.' })), mailFrom: o.from ?? 'shop@store.test', rcptTo: [to], source: 'smtp', auth: { spf: true, dkim: true } });

async function row(id: string) {
  return t.ctx.db.selectFrom('received_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('plus addresses (Free: 20 distinct per 24 hours)', () => {
  it('counts distinct addresses, keeps known ones receiving, records the rest, frees up after 24 h', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await deliver(`agent+s${i}@${D}`);
      expect(r.accepted).toHaveLength(1);
      expect((await row(r.accepted[0].messageId)).over_limit).toBeNull();
    }
    t.clock.advance(HOUR);
    // a known address keeps receiving; the agent's own address is not a plus address
    expect((await row((await deliver(`agent+s3@${D}`)).accepted[0].messageId)).over_limit).toBeNull();
    expect((await row((await deliver(`agent@${D}`)).accepted[0].messageId)).over_limit).toBeNull();

    // the 21st distinct address: a record of sender, recipient and time only, and an over_limit event
    const over = await deliver(`agent+new@${D}`, { subject: 'secret subject', body: 'secret body' });
    const rec = await row(over.accepted[0].messageId);
    expect(rec).toMatchObject({ over_limit: 'plus_address_limit', from_address: 'shop@store.test', recipient: `agent+new@${D}`, subject: '', text: null, html: null, raw: null, thread_id: null });
    const ev = await t.ctx.db.selectFrom('events').select('payload').where('type', '=', 'message.received.over_limit').executeTakeFirstOrThrow();
    const event = JSON.parse(ev.payload);
    expect(event).toMatchObject({ source_message_id: rec.id, quarantined: false, data: { from: 'shop@store.test', to: `agent+new@${D}`, over_limit: 'plus_address_limit' } });
    expect(event).toHaveProperty('injection_score');
    const api = await t.req('GET', `/v1/messages/received/${rec.id}`);
    expect(api.body).toMatchObject({ over_limit: 'plus_address_limit' });
    expect(api.body).not.toHaveProperty('raw_url');
    expect(api.body).not.toHaveProperty('body_text');
    expect((await t.req('GET', `/v1/messages/${rec.id}/raw`)).status).toBe(404);

    // a wait on that address answers 402 plan_limit_exceeded
    const w = await t.req('GET', `/v1/agents/agent/inbox/wait`, { query: { address: `agent+new@${D}`, timeout: 0 } });
    expect(w.status).toBe(402);
    expect(w.body.error.code).toBe('plan_limit_exceeded');

    // the simulator is not counted
    const s = await t.req('POST', '/v1/test/inbound', { key: t.testKey, body: { agent: 'agent', to: `agent+sim@${D}`, from: 'x@y.test', subject: 'sim' } });
    expect(s.status, s.text).toBe(201);
    expect((await row(s.body.message_id)).over_limit).toBeNull();

    // 24 h after the first deliveries (s3 was refreshed an hour later) the window has room again
    t.clock.advance(DAY - HOUR + MINUTE);
    expect((await row((await deliver(`agent+new@${D}`)).accepted[0].messageId)).over_limit).toBeNull();
    expect((await t.req('GET', `/v1/agents/agent/inbox/wait`, { query: { address: `agent+new@${D}`, timeout: 0 } })).status).toBe(200);
  });

  it('holds sign-in codes and reset links from providers, banks and payment apps sent to plus addresses', async () => {
    t.clock.advance(2 * DAY);
    const code = await deliver(`agent+g@${D}`, { from: 'no-reply@accounts.google.com', subject: 'Your Google verification code', body: 'Your verification code is 482913. It expires in 10 minutes.' });
    const rec = await row(code.accepted[0].messageId);
    expect(rec).toMatchObject({ over_limit: 'held_code', text: null, raw: null, event_id: null });
    // never found by a wait
    const w = await t.req('GET', `/v1/agents/agent/inbox/wait`, { query: { address: `agent+g@${D}`, timeout: 0, since: new Date(t.clock.now() - HOUR).toISOString() } });
    expect(w.body).toEqual({ timed_out: true });
    // the same mail to the agent's own address is delivered, and a newsletter from the provider is not held
    expect((await row((await deliver(`agent@${D}`, { from: 'no-reply@accounts.google.com', subject: 'Your Google verification code', body: 'Your verification code is 482913.' })).accepted[0].messageId)).over_limit).toBeNull();
    expect((await row((await deliver(`agent+g@${D}`, { from: 'news@google.com', subject: 'What is new in Maps', body: 'Explore new places.' })).accepted[0].messageId)).over_limit).toBeNull();
    expect(isHeldCode('paypal.com', 'Reset your password', 'Click the link to reset your password.')).toBe(true);
    expect(isHeldCode('chase.com', 'Your one-time passcode', 'Use 551200 to sign in.')).toBe(true);
    expect(isHeldCode('smallshop.test', 'Your verification code', 'Code: 123456')).toBe(false);
  });

  it('caps over-limit and held-code records at 20 per hour per workspace', async () => {
    t.clock.advance(2 * DAY);
    for (let i = 0; i < 20; i++) await deliver(`agent+fill${i}@${D}`);
    let held = 0;
    for (let i = 0; held < 20; i++) {
      const r = await deliver(`agent+over${i}@${D}`);
      expect(r.accepted).toHaveLength(1);
      held++;
    }
    // the 21st record this hour is not kept: over SMTP the sender is told
    await expect(transport(smtp.port).sendMail({ envelope: { from: 'shop@store.test', to: [`agent+late@${D}`] }, raw: eml({ to: `agent+late@${D}` }) }))
      .rejects.toMatchObject({ responseCode: 550 });
    expect((await deliver(`agent+late@${D}`)).refused).toHaveLength(1);
    t.clock.advance(HOUR + MINUTE);
    expect((await deliver(`agent+late@${D}`)).accepted).toHaveLength(1);
  });
});
