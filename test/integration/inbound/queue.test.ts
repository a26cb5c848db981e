import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { inlineWork } from '../../../src/services/message-work.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { eml, RawSmtp, startSmtp, transport, untilProcessed } from './helpers.js';

// The inbound queue (docs/inbound.md → Durability): the 250 follows the durable raw store,
// processing comes after. Here processing is held at the parse step (the message work waits for
// the test), so what happens between the two is observable.
let t: TestApp;
let smtp: SmtpListener;
let release: () => void;

beforeAll(async () => {
  // Processing loads the parser and the classifier on first use (inline work): at load 20 that
  // alone outlasted a read's bounded wait. Loaded here, the reads time processing, not loading.
  await Promise.all([import('../../../src/mail/parse.js'), import('../../../src/classifier/index.js')]);
}, 60_000);

beforeEach(async () => {
  t = await createTestApp();
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  release = open;
  t.ctx.work = { ...inlineWork, parse: async (raw) => { await gate; return inlineWork.parse(raw); } };
});
afterEach(async () => {
  release();
  await smtp?.stop();
  await t.close();
});

const AGENT = 'agent@local.mailagent.localhost';
const send = async (subject: string) => (await transport(smtp.port).sendMail({ from: 'a@sender.test', to: AGENT, subject, text: 'hi' })).response;

describe('inbound queue', () => {
  it('acknowledges before processing; a read after the 250 waits for the message; events once', async () => {
    smtp = await startSmtp(t);
    const reply = await send('queued hello');
    expect(reply).toMatch(/^250 2\.0\.0 Ok: stored as rcv_/);
    const id = /rcv_[0-9a-z]+/.exec(reply)![0];
    const stored = () => t.ctx.db.selectFrom('received_messages').select('id').where('id', '=', id).executeTakeFirst();
    expect(await stored()).toBeUndefined(); // acknowledged, not processed yet
    const queued = await t.ctx.db.selectFrom('inbound_queue').selectAll().execute();
    expect(queued).toHaveLength(1);
    expect(JSON.parse(queued[0].message_ids)).toEqual([expect.objectContaining({ message_id: id })]);
    setTimeout(() => release(), 300);
    const t0 = Date.now();
    const r = await t.req('GET', `/v1/messages/received/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.subject).toBe('queued hello');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250); // it waited for processing rather than 404
    const list = await t.req('GET', '/v1/messages/received');
    expect(list.body.data.map((m: { id: string }) => m.id)).toContain(id);
    await untilProcessed(t);
    const events = await t.ctx.db.selectFrom('events').select('type').where('payload', 'like', `%"source_message_id":"${id}"%`).execute();
    expect(events.map((e) => e.type).filter((x) => x === 'message.received')).toHaveLength(1);
  });

  it('past smtpMaxQueuedMessages answers 451 4.3.2 at MAIL FROM and takes mail again once processing caught up', async () => {
    smtp = await startSmtp(t, { queue: { maxDepth: 2, leaseMs: 60_000, file: t.config.database.kind === 'sqlite' ? t.config.database.file : null } });
    expect(await send('one')).toMatch(/^250/);
    expect(await send('two')).toMatch(/^250/);
    const c = new RawSmtp(smtp.port);
    expect(await c.reply()).toMatch(/^220/);
    expect(await c.cmd('EHLO test')).toMatch(/^250/);
    expect(await c.cmd('MAIL FROM:<a@sender.test>')).toMatch(/^451 4\.3\.2 /);
    c.close();
    release();
    await untilProcessed(t);
    // The rows leave the table at their commit; the queue counts them done once that commit is
    // flushed (settled): only then is there room again.
    await t.ctx.inboundSettled?.();
    expect(await send('three')).toMatch(/^250/);
  });

  it('routes each recipient again at the end of DATA and at RCPT: an agent archived or created meanwhile is seen (routes are cached until the agents table changes)', async () => {
    smtp = await startSmtp(t);
    release();
    // Routed once (RCPT, queue and store of this message use the same answer)…
    expect(await send('before')).toMatch(/^250/);
    const c = new RawSmtp(smtp.port);
    expect(await c.reply()).toMatch(/^220/);
    expect(await c.cmd('EHLO test')).toMatch(/^250/);
    expect(await c.cmd('MAIL FROM:<a@sender.test>')).toMatch(/^250/);
    expect(await c.cmd(`RCPT TO:<${AGENT}>`)).toMatch(/^250/);
    expect(await c.cmd('DATA')).toMatch(/^354/);
    // …then the agent is archived between RCPT and the end of DATA: the queue refuses it.
    expect((await t.req('DELETE', '/v1/agents/agent')).status).toBe(200);
    expect(await c.cmd('Subject: late\r\n\r\nhi\r\n.')).toMatch(/^550 5\.2\.2 .*archived/);
    expect(await c.cmd(`RCPT TO:<${AGENT}>`)).toMatch(/^503|^550/);
    c.close();
    const c2 = new RawSmtp(smtp.port);
    expect(await c2.reply()).toMatch(/^220/);
    expect(await c2.cmd('EHLO test')).toMatch(/^250/);
    expect(await c2.cmd('MAIL FROM:<a@sender.test>')).toMatch(/^250/);
    expect(await c2.cmd(`RCPT TO:<${AGENT}>`)).toMatch(/^550 5\.1\.1 .*archived/);
    // An agent created after its address was refused is routed at once.
    expect(await c2.cmd('RCPT TO:<newbie@local.mailagent.localhost>')).toMatch(/^550 5\.1\.1/);
    const created = await t.req('POST', '/v1/agents', { body: { name: 'newbie' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await c2.cmd('RCPT TO:<newbie@local.mailagent.localhost>')).toMatch(/^250/);
    c2.close();
    await untilProcessed(t);
    const subjects = (await t.ctx.db.selectFrom('received_messages').select('subject').execute()).map((r) => r.subject);
    expect(subjects).toEqual(['before']);
  });

  it('processing that fails leaves the row queued (attempts, last_error); the retry reads it from the table and stores it once', async () => {
    let failures = 0;
    t.ctx.work = {
      ...inlineWork,
      parse: async (raw) => {
        if (raw.includes('flaky') && failures++ === 0) throw new Error('parse exploded once');
        return inlineWork.parse(raw);
      },
    };
    smtp = await startSmtp(t);
    const reply = await send('flaky');
    expect(reply).toMatch(/^250 2\.0\.0 Ok: stored as rcv_/);
    const id = /rcv_[0-9a-z]+/.exec(reply)![0];
    const row = async () => t.ctx.db.selectFrom('inbound_queue').select(['attempts', 'last_error']).executeTakeFirst();
    for (let i = 0; i < 100 && (await row())?.attempts !== 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await row()).toEqual({ attempts: 1, last_error: 'parse exploded once' });
    // Retried after retryMs (5 s), from the row on disk: on SQLite by the daemon's timer; on
    // PostgreSQL by the poll once the row's lease (the backoff, on the daemon's clock) has passed.
    t.clock.advance(6_000);
    await untilProcessed(t, 20_000);
    expect(failures).toBe(2);
    const stored = await t.ctx.db.selectFrom('received_messages').select(['id', 'subject']).execute();
    expect(stored).toEqual([{ id, subject: 'flaky' }]);
    const events = await t.ctx.db.selectFrom('events').select('type').where('payload', 'like', `%"source_message_id":"${id}"%`).execute();
    expect(events.map((e) => e.type).filter((x) => x === 'message.received')).toHaveLength(1);
  }, 30_000);

  it('plus-addressed mail is processed before its 250 (the reply says whether it was held)', async () => {
    smtp = await startSmtp(t);
    release();
    const info = await transport(smtp.port).sendMail({ envelope: { from: 'no-reply@accounts.google.com', to: ['agent+signup@local.mailagent.localhost'] },
      raw: eml({ from: 'Google <no-reply@accounts.google.com>', to: 'agent+signup@local.mailagent.localhost', subject: 'Your verification code', body: 'Your code is 123456' }) });
    expect(info.response).toMatch(/held, not delivered \(held_code/);
    expect(await t.ctx.db.selectFrom('inbound_queue').selectAll().execute()).toHaveLength(0);
  });
});

// Bursts (docs/inbound.md → Bursts): while SMTP mail arrives in a burst, processing holds back so
// the acknowledgements go first, within bounds. `burst` stands in for the daemon's own test (recent
// acknowledgements and a busy main thread) so the test decides when a burst is on.
describe('inbound queue in a burst', () => {
  const file = () => (t.config.database.kind === 'sqlite' ? t.config.database.file : null);
  const storedCount = async () => Number((await t.ctx.db.selectFrom('received_messages').select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  /** Wait (without a read that would make processing run) until `n` messages are stored. */
  const untilStored = async (n: number) => {
    const end = Date.now() + 30_000;
    while (await storedCount() < n) {
      if (Date.now() > end) throw new Error(`${await storedCount()} of ${n} messages stored`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('holds processing back while the burst lasts, and processes everything once it is over; events once', async () => {
    let burst = true;
    smtp = await startSmtp(t, { queue: { maxDepth: 10_000, leaseMs: 60_000, file: file(), maxDelayMs: 60_000, burst: () => burst } });
    release();
    for (let i = 0; i < 3; i++) expect(await send(`burst ${i}`)).toMatch(/^250 2\.0\.0 Ok: stored as rcv_/);
    await new Promise((r) => setTimeout(r, 300));
    expect(await storedCount()).toBe(0); // acknowledged, held back
    expect(await t.ctx.db.selectFrom('inbound_queue').select('id').execute()).toHaveLength(3);
    burst = false;
    // The next acknowledgement (or the pump's next look) finds the burst over.
    expect(await send('after the burst')).toMatch(/^250/);
    await untilStored(4);
    const events = await t.ctx.db.selectFrom('events').select('type').where('type', '=', 'message.received').execute();
    expect(events).toHaveLength(4);
  });

  it('a read after a 250 sees the message at once although a burst holds processing back', async () => {
    smtp = await startSmtp(t, { queue: { maxDepth: 10_000, leaseMs: 60_000, file: file(), maxDelayMs: 60_000, burst: () => true } });
    release();
    const reply = await send('read me');
    const id = /rcv_[0-9a-z]+/.exec(reply)![0];
    await new Promise((r) => setTimeout(r, 200));
    expect(await storedCount()).toBe(0);
    const r = await t.req('GET', `/v1/messages/received/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.subject).toBe('read me');
    const list = await t.req('GET', '/v1/messages/received');
    expect(list.body.data.map((m: { id: string }) => m.id)).toContain(id);
  });

  it('never starves: a burst that does not end still processes each message once it has waited maxDelayMs', async () => {
    smtp = await startSmtp(t, { queue: { maxDepth: 10_000, leaseMs: 60_000, file: file(), maxDelayMs: 300, burst: () => true } });
    release();
    for (let i = 0; i < 3; i++) expect(await send(`endless ${i}`)).toMatch(/^250/);
    await untilStored(3);
    expect(await t.ctx.db.selectFrom('inbound_queue').select('id').execute()).toHaveLength(0);
  });

  it('never starves: half of smtpMaxQueuedMessages waiting is processed at once, whatever the burst', async () => {
    smtp = await startSmtp(t, { queue: { maxDepth: 4, leaseMs: 60_000, file: file(), maxDelayMs: 60_000, burst: () => true } });
    release();
    expect(await send('one')).toMatch(/^250/);
    await new Promise((r) => setTimeout(r, 200));
    expect(await storedCount()).toBe(0);
    expect(await send('two')).toMatch(/^250/);
    await untilStored(2);
  });

  it('never leaves more for after the burst than processing clears in afterBurstMs (at least one round), whatever the delay', async () => {
    // One round is 2 messages here; 1 ms of processing at any measured rate is less than that.
    smtp = await startSmtp(t, { queue: { maxDepth: 10_000, concurrency: 2, leaseMs: 60_000, file: file(), maxDelayMs: 60_000, afterBurstMs: 1, burst: () => true } });
    release();
    expect(await send('first of a round')).toMatch(/^250/);
    await new Promise((r) => setTimeout(r, 300));
    expect(await storedCount()).toBe(0); // held: less than a round waits
    expect(await send('completes the round')).toMatch(/^250/);
    await untilStored(2);
  });

  it('smtpProcessingDelayMs=0 processes at once, burst or not', async () => {
    smtp = await startSmtp(t, { queue: { maxDepth: 10_000, leaseMs: 60_000, file: file(), maxDelayMs: 0, burst: () => true } });
    release();
    expect(await send('at once')).toMatch(/^250/);
    await untilStored(1);
  });
});
