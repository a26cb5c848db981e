import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import type { TestRelay } from '../../helpers/relay.js';
import { rotateReturnPathKey } from '../../../src/services/return-path.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { Metrics } from '../../../src/server/ops/metrics.js';
import { transport, untilProcessed } from '../inbound/helpers.js';
import { eventsOfType, fixture, rfcIdOf, startRelayedApp, stopRelayedApp } from './helpers.js';

/**
 * Signed return paths (VERP) against forged reports. A live send goes out through a real SMTP
 * relay; reports come back over real SMTP. Only a report at the signed return path of a copy
 * changes anything, and only for that copy's recipient (docs/resources.md → Which reports count).
 */
const AGENT = 'agent@local.mailagent.localhost';
let t: TestApp;
let relay: TestRelay;
let smtp: SmtpListener;

beforeAll(async () => {
  ({ t, relay, smtp } = await startRelayedApp());
});
afterAll(() => stopRelayedApp({ t, relay, smtp }));

async function liveSend(to: string[], subject = 'Your order 1042') {
  const from = relay.messages.length;
  const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to, subject, body_text: 'Hi, could you confirm the delivery address for order 1042? Thanks.' } });
  expect(r.status, r.text).toBe(201);
  const copies = relay.messages.slice(from);
  const returnPath = (rcpt: string) => copies.find((m) => m.rcptTo.includes(rcpt))!.mailFrom;
  return { id: r.body.id as string, rfcId: await rfcIdOf(t, r.body.id), copies, returnPath };
}

/** Over real SMTP; resolves with the server's reply, or rejects with its refusal. */
async function mail(raw: Buffer, rcpt: string, mailFrom = ''): Promise<string> {
  const info = await transport(smtp.port).sendMail({ envelope: { from: mailFrom, to: [rcpt] }, raw });
  return info.response;
}

const bounceFor = (sent: { rfcId: string }, recipient: string, returnPath: string) =>
  fixture('bounce-postfix-user-unknown.eml', { agent: AGENT, recipient, messageId: sent.rfcId, returnPath });
const lookup = async (address: string) => (await t.req('GET', '/v1/suppression', { query: { address } })).body;
const bouncesOf = async (id: string) => (await eventsOfType(t, 'message.bounced')).filter((e) => e.source_message_id === id);
const receivedSubjects = async () => ((await t.req('GET', '/v1/messages/received', { query: { limit: 100 } })).body.data as { subject: string; id: string }[]);

describe('outbound: each copy carries its own signed return path', () => {
  it('two recipients → two copies, each MAIL FROM bounces+<47 base32>@<the From domain>; From header, Message-ID and body unchanged', async () => {
    const sent = await liveSend(['ann@example.org', 'ben@example.org']);
    expect(sent.copies).toHaveLength(2);
    const [a, b] = [sent.returnPath('ann@example.org'), sent.returnPath('ben@example.org')];
    for (const rp of [a, b]) {
      expect(rp).toMatch(/^bounces\+[0-9a-z]{47}@local\.mailagent\.localhost$/);
      expect(rp.split('@')[0].length).toBeLessThanOrEqual(64);
    }
    expect(a).not.toBe(b);
    // Same message id in both tokens (characters 1–26 after the key id), different MACs.
    expect(a.slice(9, 35)).toBe(sent.id.slice(4));
    expect(b.slice(9, 35)).toBe(sent.id.slice(4));
    for (const c of sent.copies) {
      const head = c.raw.toString('utf8').split('\r\n\r\n')[0];
      expect(head).toMatch(/^From: agent@local\.mailagent\.localhost$/m);
      expect(head).toContain(`Message-ID: <${sent.rfcId}>`);
      expect(head).not.toMatch(/bounces\+/i);
    }
  });

  it('a local recipient\'s copy (its MAIL FROM is its return path, on the From\'s domain) is still authenticated mail', async () => {
    expect((await t.req('POST', '/v1/agents', { body: { name: 'desk' } })).status).toBe(201);
    const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'desk@local.mailagent.localhost', subject: 'Desk note', body_text: 'Local delivery with a signed return path.' } });
    expect(r.status, r.text).toBe(201);
    const got = (await eventsOfType(t, 'message.received')).find((e) => e.data.subject === 'Desk note');
    expect(got?.data).toMatchObject({ from: AGENT, to: 'desk@local.mailagent.localhost' });
    expect((await eventsOfType(t, 'message.received.unauthenticated')).some((e) => e.data.subject === 'Desk note')).toBe(false);
  });

  it('the name `bounces` is reserved for new agents', async () => {
    const r = await t.req('POST', '/v1/agents', { body: { name: 'bounces' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_param_value');
  });
});

describe('inbound: only a report at a verifying return path changes anything', () => {
  it('genuine: a DSN at the copy\'s return path → message.bounced and suppression (also with the local part upper-cased)', async () => {
    const sent = await liveSend(['gone.one@example.org']);
    const rp = sent.returnPath('gone.one@example.org');
    expect(await mail(bounceFor(sent, 'gone.one@example.org', rp), rp.toUpperCase())).toMatch(/^250/);
    const [ev] = await bouncesOf(sent.id);
    expect(ev.data).toMatchObject({ recipient: 'gone.one@example.org', bounce_type: 'hard', verified_by: 'return_path' });
    expect(await lookup('gone.one@example.org')).toMatchObject({ suppressed: true, type: 'hard_bounce' });
  });

  it('forged to the agent\'s own address, naming a real recipient and our real Message-ID → stored as mail, no bounce, no suppression', async () => {
    const sent = await liveSend(['victim.one@example.org'], 'Forged DSN target');
    const reports = async () => (await receivedSubjects()).filter((m) => m.subject === 'Undelivered Mail Returned to Sender').length;
    const stored = await reports();
    expect(await mail(bounceFor(sent, 'victim.one@example.org', AGENT), AGENT)).toMatch(/^250/);
    expect(await bouncesOf(sent.id)).toHaveLength(0);
    expect(await lookup('victim.one@example.org')).toMatchObject({ suppressed: false });
    // Kept as ordinary mail, so whoever reads the inbox still sees it.
    expect(await reports()).toBe(stored + 1);
    const again = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'victim.one@example.org', subject: 'Still reachable', body_text: 'Hello again.' } });
    expect(again.status, again.text).toBe(201);
  });

  it('a tampered token (one character of the MAC changed) is no mailbox: 550 at RCPT, nothing changes', async () => {
    const sent = await liveSend(['victim.two@example.org']);
    const rp = sent.returnPath('victim.two@example.org');
    const at = rp.indexOf('@');
    const last = rp[at - 1];
    const tampered = `${rp.slice(0, at - 1)}${last === 'a' ? 'b' : 'a'}${rp.slice(at)}`;
    await expect(mail(bounceFor(sent, 'victim.two@example.org', tampered), tampered)).rejects.toThrow(/550/);
    // Another message's id under this MAC: refused too.
    const other = await liveSend(['bystander@example.org']);
    const swapped = `${rp.slice(0, 9)}${other.id.slice(4)}${rp.slice(35)}`;
    await expect(mail(bounceFor(other, 'bystander@example.org', swapped), swapped)).rejects.toThrow(/550/);
    expect(await bouncesOf(sent.id)).toHaveLength(0);
    expect(await bouncesOf(other.id)).toHaveLength(0);
    expect(await lookup('victim.two@example.org')).toMatchObject({ suppressed: false });
    expect(await lookup('bystander@example.org')).toMatchObject({ suppressed: false });
  });

  it('at one recipient\'s return path, a DSN naming the other recipient of the same message suppresses neither', async () => {
    const sent = await liveSend(['cat@example.org', 'dan@example.org']);
    const catPath = sent.returnPath('cat@example.org');
    expect(await mail(bounceFor(sent, 'dan@example.org', catPath), catPath)).toMatch(/^250/);
    expect(await bouncesOf(sent.id)).toHaveLength(0);
    expect(await lookup('dan@example.org')).toMatchObject({ suppressed: false });
    expect(await lookup('cat@example.org')).toMatchObject({ suppressed: false });
    // The genuine one for cat: cat only.
    expect(await mail(bounceFor(sent, 'cat@example.org', catPath), catPath)).toMatch(/^250/);
    expect((await bouncesOf(sent.id)).map((e) => e.data.recipient)).toEqual(['cat@example.org']);
    expect(await lookup('cat@example.org')).toMatchObject({ suppressed: true });
    expect(await lookup('dan@example.org')).toMatchObject({ suppressed: false });
  });

  it('a DSN at a return path naming another of our messages is applied to the return path\'s message only', async () => {
    const mine = await liveSend(['eve@example.org']);
    const theirs = await liveSend(['fay@example.org']);
    const rp = mine.returnPath('eve@example.org');
    // Names eve, but quotes the other message's Message-ID: the token decides which message.
    expect(await mail(bounceFor(theirs, 'eve@example.org', rp), rp)).toMatch(/^250/);
    expect((await bouncesOf(mine.id)).map((e) => e.data.recipient)).toEqual(['eve@example.org']);
    expect(await bouncesOf(theirs.id)).toHaveLength(0);
    expect(await lookup('fay@example.org')).toMatchObject({ suppressed: false });
  });

  it('a non-standard bounce at a return path that names no recipient (only our sender) is about the return path\'s recipient', async () => {
    const sent = await liveSend(['quiet@example.org']);
    const rp = sent.returnPath('quiet@example.org');
    const raw = Buffer.from([
      'From: MAILER-DAEMON@mx.qmail.example', `To: ${rp}`, 'Subject: failure notice', 'Message-ID: <fn-quiet@mx.qmail.example>', '',
      `Hi. This is the qmail-send program at mx.qmail.example. I'm afraid I wasn't able to deliver your message from ${AGENT}.`,
      'This is a permanent error; I\'ve given up. Sorry it didn\'t work out.', '',
      '--- Below this line is a copy of the message.', '', `From: ${AGENT}`, `Message-ID: <${sent.rfcId}>`, 'Subject: Your order 1042', '', 'Hi.', '',
    ].join('\r\n'));
    expect(await mail(raw, rp)).toMatch(/^250/);
    const [ev] = await bouncesOf(sent.id);
    expect(ev?.data).toMatchObject({ recipient: 'quiet@example.org', bounce_type: 'hard', status: '5.0.0', report_format: 'non-standard', verified_by: 'return_path' });
    expect(await lookup('quiet@example.org')).toMatchObject({ suppressed: true });
  });

  it('mail at a return path that is not a report (an auto-reply) is accepted and dropped, not stored', async () => {
    const sent = await liveSend(['ooo@example.org']);
    const rp = sent.returnPath('ooo@example.org');
    const raw = Buffer.from(`From: ooo@example.org\r\nTo: ${rp}\r\nSubject: Out of office until Monday\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <ooo-1@example.org>\r\n\r\nI am away.\r\n`);
    const reply = await mail(raw, rp, 'ooo@example.org');
    // The reply names no message id: nothing was stored under one.
    expect(reply).toMatch(/^250 2\.0\.0 Ok: discarded: a return path takes delivery reports only$/);
    expect((await receivedSubjects()).some((m) => m.subject === 'Out of office until Monday')).toBe(false);
    expect(await lookup('ooo@example.org')).toMatchObject({ suppressed: false });
  });

  it('a report about mail sent before return paths were signed (MAIL FROM was the agent) is kept as mail and applied to nobody', async () => {
    // The pre-change envelope: the report comes back to the agent's own address (RETURN_PATH = AGENT).
    const sent = await liveSend(['old.friend@example.org']);
    expect(await mail(fixture('bounce-qmail-nonstandard-quoted-original.eml', { agent: AGENT, recipient: 'old.friend@example.org', messageId: sent.rfcId }), AGENT)).toMatch(/^250/);
    expect(await bouncesOf(sent.id)).toHaveLength(0);
    expect(await lookup('old.friend@example.org')).toMatchObject({ suppressed: false });
  });
});

describe('abuse complaints (ARF)', () => {
  it('at a feedback-loop address: applied only when the returned copy carries our signed return path, and only to its recipient', async () => {
    const sent = await liveSend(['grumpy.two@example.org', 'happy.two@example.org'], 'Spring offer');
    const rp = sent.returnPath('grumpy.two@example.org');
    // Forged: Original-Rcpt-To names happy.two, the returned copy's Return-Path is the agent (no token).
    const forged = fixture('complaint-arf-yahoo-abuse.eml', { agent: AGENT, recipient: 'happy.two@example.org', messageId: sent.rfcId });
    expect(await mail(forged, AGENT, 'feedbackloop@yahoo.example')).toMatch(/^250/);
    expect((await eventsOfType(t, 'message.complained')).filter((e) => e.source_message_id === sent.id)).toHaveLength(0);
    expect(await lookup('happy.two@example.org')).toMatchObject({ suppressed: false });
    // Genuine return path, but Original-Rcpt-To claims happy.two: the complaint is grumpy.two's own.
    const claim = fixture('complaint-arf-yahoo-abuse.eml', { agent: AGENT, recipient: 'happy.two@example.org', messageId: sent.rfcId, returnPath: rp });
    expect(await mail(claim, AGENT, 'feedbackloop@yahoo.example')).toMatch(/^250/);
    const ev = (await eventsOfType(t, 'message.complained')).filter((e) => e.source_message_id === sent.id);
    expect(ev.map((e) => e.data.recipient)).toEqual(['grumpy.two@example.org']);
    expect(await lookup('grumpy.two@example.org')).toMatchObject({ suppressed: true, type: 'complaint' });
    expect(await lookup('happy.two@example.org')).toMatchObject({ suppressed: false });
  });
});

describe('metrics', () => {
  it('mailagent_delivery_reports_total counts applied, unverified and discarded reports once each, after commit', async () => {
    const metrics = new Metrics(t.ctx, { dbFile: t.config.dbFile });
    try {
      const count = async (outcome: string) => {
        const m = (await metrics.scrape()).match(new RegExp(`^mailagent_delivery_reports_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm'));
        return m ? Number(m[1]) : 0;
      };
      const sent = await liveSend(['count.one@example.org', 'count.two@example.org']);
      const rp = sent.returnPath('count.one@example.org');
      // Genuine, at the return path: applied.
      expect(await mail(bounceFor(sent, 'count.one@example.org', rp), rp)).toMatch(/^250/);
      // Forged to the agent's own address: proves nothing, kept as mail.
      expect(await mail(bounceFor(sent, 'count.two@example.org', AGENT), AGENT)).toMatch(/^250/);
      // An auto-reply at a return path: discarded.
      const ooo = Buffer.from(`From: count.one@example.org\r\nTo: ${rp}\r\nSubject: Away\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <away-1@example.org>\r\n\r\nAway.\r\n`);
      expect(await mail(ooo, rp, 'count.one@example.org')).toMatch(/^250/);
      // Mail to the agent's own address is acknowledged first and processed after (inbound queue).
      await untilProcessed(t);
      expect([await count('applied'), await count('unverified'), await count('discarded')]).toEqual([1, 1, 1]);
      // An ordinary message is no report.
      const plain = Buffer.from(`From: friend@example.org\r\nTo: ${AGENT}\r\nSubject: Lunch\r\nMessage-ID: <lunch-1@example.org>\r\n\r\nLunch?\r\n`);
      expect(await mail(plain, AGENT, 'friend@example.org')).toMatch(/^250/);
      await untilProcessed(t);
      expect([await count('applied'), await count('unverified'), await count('discarded')]).toEqual([1, 1, 1]);
    } finally {
      metrics.close();
    }
  });
});

describe('keys', () => {
  it('rotation: new sends sign with the new key id; return paths of the old key still verify', async () => {
    const before = await liveSend(['rot.old@example.org']);
    const oldPath = before.returnPath('rot.old@example.org');
    const kid = await rotateReturnPathKey(t.ctx);
    expect(kid).not.toBe(oldPath[8]);
    const after = await liveSend(['rot.new@example.org']);
    const newPath = after.returnPath('rot.new@example.org');
    expect(newPath[8]).toBe(kid);
    expect(await mail(bounceFor(before, 'rot.old@example.org', oldPath), oldPath)).toMatch(/^250/);
    expect(await mail(bounceFor(after, 'rot.new@example.org', newPath), newPath)).toMatch(/^250/);
    expect(await lookup('rot.old@example.org')).toMatchObject({ suppressed: true });
    expect(await lookup('rot.new@example.org')).toMatchObject({ suppressed: true });
    const keys = await t.ctx.db.selectFrom('instance_settings').select('name').where('name', 'like', 'return_path_key%').execute();
    expect(keys.map((k) => k.name).sort()).toEqual(['return_path_key_current', `return_path_key_${oldPath[8]}`, `return_path_key_${kid}`].sort());
  });
});
