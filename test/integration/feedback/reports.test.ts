import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import type { TestRelay } from '../../helpers/relay.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { transport } from '../inbound/helpers.js';
import { eventsOfType, fixture, rfcIdOf, startRelayedApp, stopRelayedApp } from './helpers.js';

/**
 * Bounces and complaints end to end: a live send goes out through a real SMTP relay with a signed
 * return path as its envelope sender, then the report about it comes back over real SMTP to that
 * return path (null sender, as MTAs send bounces: RFC 5321 §4.5.5) and goes through the one
 * inbound pipeline. Forged reports (return-path.test.ts) change nothing.
 */
const AGENT = 'agent@local.mailagent.localhost';
let t: TestApp;
let relay: TestRelay;
let smtp: SmtpListener;

beforeAll(async () => {
  ({ t, relay, smtp } = await startRelayedApp());
});
afterAll(() => stopRelayedApp({ t, relay, smtp }));

async function liveSend(to: string, subject = 'Following up on your order') {
  const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to, subject, body_text: 'Hi, could you confirm the delivery address for order 1042? Thanks.' } });
  expect(r.status, r.text).toBe(201);
  // The copy's envelope sender, as the relay saw it: where the report about it goes (a local
  // recipient's copy never reaches the relay).
  const local = to.endsWith('@local.mailagent.localhost');
  const returnPath = local ? '' : relay.messages.filter((m) => m.rcptTo.includes(to)).at(-1)!.mailFrom;
  if (!local) expect(returnPath).toMatch(/^bounces\+[0-9a-z]{47}@local\.mailagent\.localhost$/);
  return { id: r.body.id as string, threadId: r.body.thread_id as string, rfcId: await rfcIdOf(t, r.body.id), returnPath };
}

/** A report over SMTP to `rcpt` (a genuine one goes to the copy's return path). */
async function deliverReport(raw: Buffer, rcpt: string, mailFrom = '') {
  const info = await transport(smtp.port).sendMail({ envelope: { from: mailFrom, to: [rcpt] }, raw });
  expect(info.response).toMatch(/^250/);
}

/** The report a receiving MTA sends back about `sent`'s copy to `recipient`: to its return path. */
const genuine = (name: string, sent: { rfcId: string; returnPath: string }, recipient: string) =>
  fixture(name, { agent: AGENT, recipient, messageId: sent.rfcId, returnPath: sent.returnPath });

const lookup = async (address: string) => (await t.req('GET', '/v1/suppression', { query: { address } })).body;
const reputation = async () => (await t.req('GET', '/v1/reputation')).body;

describe('delivery-status notifications (RFC 3464) about a live send', () => {
  it('a Postfix hard bounce → message.bounced for our msg_, a hard_bounce suppression, and the next send is refused', async () => {
    const before = await reputation();
    const sent = await liveSend('nobody@example.org');
    expect(relay.messages.at(-1)!.rcptTo).toEqual(['nobody@example.org']);

    await deliverReport(genuine('bounce-postfix-user-unknown.eml', sent, 'nobody@example.org'), sent.returnPath);

    const bounced = (await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id);
    expect(bounced).toHaveLength(1);
    expect(bounced[0]).toMatchObject({ agent_id: t.boot.agent.id, thread_id: sent.threadId, test_mode: false });
    expect(bounced[0].data).toMatchObject({
      message_id: sent.id, recipient: 'nobody@example.org', action: 'failed', status: '5.1.1', bounce_type: 'hard',
      remote_mta: 'mx.example.org', reporting_mta: 'mx1.example.net', report_format: 'rfc3464', verified_by: 'return_path',
    });
    expect(bounced[0].data.diagnostic_code).toMatch(/User unknown in virtual mailbox table/);

    // The report itself is kept as a received message (its own message.received event).
    const rcv = await t.req('GET', `/v1/messages/received/${bounced[0].data.report_message_id}`);
    expect(rcv.status, rcv.text).toBe(200);
    expect(rcv.body.subject).toBe('Undelivered Mail Returned to Sender');

    const added = (await eventsOfType(t, 'suppression.added')).filter((e) => e.source_message_id === sent.id);
    expect(added).toHaveLength(1);
    expect(added[0].data).toMatchObject({ address: 'nobody@example.org', type: 'hard_bounce', scope: 'workspace' });
    expect(await lookup('nobody@example.org')).toMatchObject({ suppressed: true, type: 'hard_bounce', scope: 'workspace' });

    const again = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'Nobody@Example.org', subject: 'Second try', body_text: 'Hello again about order 1042.' } });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('recipient_suppressed');

    const after = await reputation();
    expect(after.bounce_count_30d).toBe(before.bounce_count_30d + 1);
    expect(after.send_count_30d).toBe(before.send_count_30d + 1);
  });

  it('the same report delivered twice is counted once', async () => {
    const sent = await liveSend('twice@example.org');
    const raw = genuine('bounce-postfix-user-unknown.eml', sent, 'twice@example.org');
    await deliverReport(raw, sent.returnPath);
    await deliverReport(raw, sent.returnPath);
    expect((await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id)).toHaveLength(1);
    expect((await eventsOfType(t, 'suppression.added')).filter((e) => e.source_message_id === sent.id)).toHaveLength(1);
  });

  it('a Gmail DSN with only the original headers (text/rfc822-headers) is matched too', async () => {
    const sent = await liveSend('no.such.account@gmail.example');
    await deliverReport(genuine('bounce-gmail-no-such-account-headers-only.eml', sent, 'no.such.account@gmail.example'), sent.returnPath);
    const [ev] = (await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id);
    expect(ev.data).toMatchObject({ recipient: 'no.such.account@gmail.example', status: '5.1.1', bounce_type: 'hard', reporting_mta: 'googlemail.com' });
    expect(await lookup('no.such.account@gmail.example')).toMatchObject({ suppressed: true, type: 'hard_bounce' });
  });

  it('a non-standard qmail bounce (plain text, original quoted below the marker) is a hard bounce', async () => {
    const sent = await liveSend('gone@qmail.example');
    await deliverReport(genuine('bounce-qmail-nonstandard-quoted-original.eml', sent, 'gone@qmail.example'), sent.returnPath);
    const [ev] = (await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id);
    expect(ev.data).toMatchObject({ recipient: 'gone@qmail.example', status: '5.1.1', bounce_type: 'hard', report_format: 'non-standard' });
    expect(await lookup('gone@qmail.example')).toMatchObject({ suppressed: true, type: 'hard_bounce' });
  });

  it('a delay notice (Action: delayed, 4.4.1) → message.delayed, no suppression, no bounce', async () => {
    const before = await reputation();
    const sent = await liveSend('slow@example.org');
    await deliverReport(genuine('bounce-postfix-delayed-still-retrying.eml', sent, 'slow@example.org'), sent.returnPath);
    const delayed = (await eventsOfType(t, 'message.delayed')).filter((e) => e.source_message_id === sent.id);
    expect(delayed).toHaveLength(1);
    expect(delayed[0].data).toMatchObject({ recipient: 'slow@example.org', action: 'delayed', status: '4.4.1' });
    expect(delayed[0].data.diagnostic_code).toMatch(/Connection timed out/);
    expect((await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id)).toHaveLength(0);
    expect(await lookup('slow@example.org')).toMatchObject({ suppressed: false });
    expect((await reputation()).bounce_count_30d).toBe(before.bounce_count_30d);
    // Not suppressed: the next send goes out.
    await liveSend('slow@example.org', 'Second attempt');
  });

  it('a failure with a transient status (4.4.7, expired after retries) is a soft bounce: counted, not suppressed', async () => {
    const sent = await liveSend('expired@example.org');
    const raw = genuine('bounce-postfix-user-unknown.eml', sent, 'expired@example.org');
    await deliverReport(Buffer.from(raw.toString().replace('Status: 5.1.1', 'Status: 4.4.7')), sent.returnPath);
    const [ev] = (await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id);
    expect(ev.data).toMatchObject({ recipient: 'expired@example.org', status: '4.4.7', bounce_type: 'soft' });
    expect(await lookup('expired@example.org')).toMatchObject({ suppressed: false });
  });

  it('a bounce for a Message-ID we never sent is stored as ordinary mail: no bounce, no suppression', async () => {
    const bouncedBefore = (await eventsOfType(t, 'message.bounced')).length;
    await deliverReport(fixture('bounce-postfix-user-unknown.eml', { agent: AGENT, recipient: 'stranger@example.org', messageId: 'abc.123@elsewhere.example' }), AGENT);
    expect((await eventsOfType(t, 'message.bounced')).length).toBe(bouncedBefore);
    expect(await lookup('stranger@example.org')).toMatchObject({ suppressed: false });
    const received = await t.req('GET', '/v1/messages/received', { query: { limit: 100 } });
    const report = received.body.data[0];
    expect(report).toMatchObject({ subject: 'Undelivered Mail Returned to Sender', from: { address: 'mailer-daemon@mx1.example.net' } });
    expect(report.extracted_text).toContain('stranger@example.org');
    expect((await eventsOfType(t, 'message.bounced')).some((e) => e.data.report_message_id === report.id)).toBe(false);
  });

  it('a report at a return path naming an address we did not mail suppresses nothing (not even the return path\'s own recipient)', async () => {
    const sent = await liveSend('real@example.org');
    await deliverReport(genuine('bounce-postfix-user-unknown.eml', sent, 'victim@example.org'), sent.returnPath);
    expect((await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id)).toHaveLength(0);
    expect(await lookup('victim@example.org')).toMatchObject({ suppressed: false });
    expect(await lookup('real@example.org')).toMatchObject({ suppressed: false });
  });
});

describe('abuse reports (RFC 5965 ARF)', () => {
  it('Feedback-Type: abuse → message.complained and a complaint suppression; reputation counts it', async () => {
    const before = await reputation();
    const sent = await liveSend('grumpy@yahoo.example', 'Spring offer for you');
    // Delivered to the agent's own address (the feedback-loop address it registered); the
    // returned copy carries the signed return path the complainer's MTA recorded.
    await deliverReport(genuine('complaint-arf-yahoo-abuse.eml', sent, 'grumpy@yahoo.example'), AGENT, 'feedbackloop@yahoo.example');
    const ev = (await eventsOfType(t, 'message.complained')).filter((e) => e.source_message_id === sent.id);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ agent_id: t.boot.agent.id, thread_id: sent.threadId, test_mode: false });
    expect(ev[0].data).toMatchObject({ recipient: 'grumpy@yahoo.example', feedback_type: 'abuse', user_agent: 'Yahoo!-Mail-Feedback/2.0', report_format: 'rfc5965', verified_by: 'returned_original' });
    expect(await lookup('grumpy@yahoo.example')).toMatchObject({ suppressed: true, type: 'complaint', scope: 'workspace' });
    const after = await reputation();
    expect(after.complaint_count_30d).toBe(before.complaint_count_30d + 1);
    expect(after.complaint_rate).toBeGreaterThan(before.complaint_rate);
    const again = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'grumpy@yahoo.example', subject: 'Sorry', body_text: 'About the last message.' } });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('recipient_suppressed');
  });
});

describe('message.delivered', () => {
  it('relay acceptance (250) → message.delivered with transport relay and the relay\'s answer; delivered_at set', async () => {
    const sent = await liveSend('happy@example.org');
    const [ev] = (await eventsOfType(t, 'message.delivered')).filter((e) => e.source_message_id === sent.id);
    expect(ev).toMatchObject({ agent_id: t.boot.agent.id, thread_id: sent.threadId, test_mode: false });
    expect(ev.data).toMatchObject({ transport: 'relay', recipients: ['happy@example.org'], transport_message_id: expect.stringMatching(/^RELAY\d+$/) });
    expect(ev.data.response).toMatch(/^250 .*queued as RELAY/);
    expect((await t.req('GET', `/v1/messages/${sent.id}`)).body.delivered_at).toBeTruthy();
  });

  it('local delivery to an agent of this instance → message.delivered with transport local', async () => {
    expect((await t.req('POST', '/v1/agents', { body: { name: 'colleague' } })).status).toBe(201);
    const sent = await liveSend('colleague@local.mailagent.localhost', 'Notes from the meeting');
    const [ev] = (await eventsOfType(t, 'message.delivered')).filter((e) => e.source_message_id === sent.id);
    expect(ev.data).toMatchObject({ transport: 'local', recipients: ['colleague@local.mailagent.localhost'] });
    expect((await t.req('GET', `/v1/messages/${sent.id}`)).body.delivered_at).toBeTruthy();
  });

  it('a relay deferral (4xx) records nothing, so nothing is delivered or delayed (503)', async () => {
    const delayedBefore = (await eventsOfType(t, 'message.delayed')).length;
    const deliveredBefore = (await eventsOfType(t, 'message.delivered')).length;
    relay.mode = 'defer';
    try {
      const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'later@example.org', subject: 'Deferred', body_text: 'This one waits.' } });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('upstream_unavailable');
    } finally {
      relay.mode = 'accept';
    }
    expect((await eventsOfType(t, 'message.delayed')).length).toBe(delayedBefore);
    expect((await eventsOfType(t, 'message.delivered')).length).toBe(deliveredBefore);
  });
});

describe('test mode', () => {
  it('a simulated bounce about a test send emits message.bounced with test_mode true and suppresses nothing', async () => {
    const s = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'ghost@example.org', subject: 'Test order note', body_text: 'Hello from a test.' } });
    expect(s.status, s.text).toBe(201);
    const sim = await t.req('POST', '/v1/test/inbound', {
      key: t.testKey,
      body: {
        agent: 'agent', from: 'MAILER-DAEMON@mx.example.net', subject: 'Undelivered Mail Returned to Sender',
        body_text: 'I\'m sorry to have to inform you that your message could not be delivered.\n\n<ghost@example.org>: host mx.example.org said: 550 5.1.1 User unknown\n',
        in_reply_to_message_id: s.body.id,
      },
    });
    expect(sim.status, sim.text).toBe(201);
    const [ev] = (await eventsOfType(t, 'message.bounced', t.testKey)).filter((e) => e.source_message_id === s.body.id);
    expect(ev).toMatchObject({ test_mode: true });
    expect(ev.data).toMatchObject({ recipient: 'ghost@example.org', bounce_type: 'hard', status: '5.1.1', report_format: 'non-standard' });
    expect(await lookup('ghost@example.org')).toMatchObject({ suppressed: false });
    expect((await eventsOfType(t, 'suppression.added')).some((e) => e.source_message_id === s.body.id)).toBe(false);
  });

  it('a simulated report about a LIVE send changes nothing: not at a signed return path', async () => {
    const before = await reputation();
    const sent = await liveSend('spoofed@example.org');
    const sim = await t.req('POST', '/v1/test/inbound', {
      key: t.testKey,
      body: {
        agent: 'agent', from: 'MAILER-DAEMON@mx.example.net', subject: 'Undelivered Mail Returned to Sender',
        body_text: '<spoofed@example.org>: 550 5.1.1 User unknown\n', in_reply_to_message_id: sent.id,
      },
    });
    expect(sim.status, sim.text).toBe(201);
    expect((await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === sent.id)).toHaveLength(0);
    expect((await eventsOfType(t, 'message.bounced', t.testKey)).filter((e) => e.source_message_id === sent.id)).toHaveLength(0);
    expect(await lookup('spoofed@example.org')).toMatchObject({ suppressed: false });
    expect((await reputation()).bounce_count_30d).toBe(before.bounce_count_30d);
  });
});
