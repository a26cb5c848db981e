import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { eml, startSmtp, untilProcessed } from '../inbound/helpers.js';
import { ingestInbound } from '../../../src/services/inbound.js';
import { SmtpPipe } from '../inbound/smtp-client.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';

/**
 * Many SMTP sessions storing at once into one mailbox, the worst case for concurrent writers on
 * PostgreSQL (docs/scale-out.md): every message reads and writes the same thread, reference,
 * event and search index pages as the others, so SERIALIZABLE transactions conflict all the time.
 * Every message must still be answered 250 and stored once: a transaction that keeps losing its
 * conflicts is run alone in the end (db/open.ts runTransaction), never answered 451. Messages
 * carrying NUL characters (which PostgreSQL text cannot hold) are stored too.
 *
 * On PostgreSQL these store transactions run at READ COMMITTED with explicit locks
 * (services/inbound.ts storeIsolation): the thread counts below (no lost update) and the
 * plus-address test (a per-workspace cap counted under concurrency) check those locks.
 *
 * Runs on both engines: in `npm test` on SQLite, and on PostgreSQL in `npm run test:postgres`.
 */
const SESSIONS = 16;
const MESSAGES = 1_200;
const D = 'local.mailagent.localhost';

function message(i: number): Buffer {
  // Threads of ~8 messages: each replies to the previous one of its thread and references the
  // thread's first, so concurrent messages look up and insert neighbouring references.
  const thread = Math.floor(i / 8);
  const headers = [
    `From: Sender ${i % 5} <sender${i % 5}@stress.test>`,
    `To: agent@${D}`,
    `Subject: ${i % 97 === 0 ? 'nul\u0000in subject' : `thread ${thread}`}`,
    `Message-ID: <m${i}@stress.test>`,
    ...(i % 8 ? [`In-Reply-To: <m${i - 1}@stress.test>`, `References: <m${thread * 8}@stress.test> <m${i - 1}@stress.test>`] : []),
    'Content-Type: text/plain; charset=utf-8',
  ];
  const body = i % 97 === 1 ? `a NUL \u0000 in the body of ${i}` : `message ${i} of thread ${thread}\n${'words of the body '.repeat(20)}`;
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}\r\n`, 'utf8');
}

let t: TestApp;
let smtp: SmtpListener;
beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp(t);
});
afterAll(async () => {
  await smtp?.stop();
  await t?.close();
});

describe('concurrent SMTP sessions into one mailbox', () => {
  it(`${SESSIONS} sessions, ${MESSAGES} threaded messages: every one answered 250 and stored once`, async () => {
    const replies: { i: number; reply: string }[] = [];
    let next = 0;
    const session = async () => {
      const c = await SmtpPipe.open(smtp.port);
      while (next < MESSAGES) {
        const i = next++;
        replies.push({ i, reply: await c.send(`sender${i % 5}@stress.test`, [`agent@${D}`], message(i)) });
      }
      await c.quit();
    };
    await Promise.all(Array.from({ length: SESSIONS }, session));

    const failed = replies.filter((r) => !/^250 .*stored as rcv_/.test(r.reply));
    expect(failed.slice(0, 5), `${failed.length} of ${MESSAGES} not stored`).toEqual([]);
    // A 250 means the raw message is queued durably; the store follows (services/inbound-queue.ts).
    await untilProcessed(t, 240_000);
    const rows = await t.ctx.db.selectFrom('received_messages').select(['rfc_message_id', 'subject', 'text', 'thread_id']).execute();
    expect(rows).toHaveLength(MESSAGES);
    expect(new Set(rows.map((r) => r.rfc_message_id)).size).toBe(MESSAGES);
    // NUL cannot be stored as text on PostgreSQL: both engines store U+FFFD instead (the raw keeps its bytes).
    const nul = rows.find((r) => r.rfc_message_id === 'm0@stress.test')!;
    expect(nul.subject).toBe('nul\uFFFDin subject');
    expect(rows.find((r) => r.rfc_message_id === 'm1@stress.test')!.text).toContain('a NUL \uFFFD in the body');
    // Each message counted once in its thread, whichever thread a racing reply landed in.
    const threads = await t.ctx.db.selectFrom('threads').select(['id', 'message_count']).execute();
    const threadIds = new Set(threads.map((th) => th.id));
    for (const r of rows) expect(threadIds.has(r.thread_id!)).toBe(true);
    const counts = new Map(threads.map((th) => [th.id, th.message_count]));
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(MESSAGES);
  }, 300_000);

  it('30 replies to one thread at once: each counted (the thread row is locked while its count is written back)', async () => {
    const deliver = (i: number, headers: string[] = []) => ingestInbound(t.ctx, {
      raw: Buffer.from(eml({ to: `agent@${D}`, from: 'peer@replies.test', subject: `Re: one thread ${i}`, body: `reply ${i}`, headers })),
      mailFrom: 'peer@replies.test', rcptTo: [`agent@${D}`], source: 'smtp', auth: { spf: true, dkim: true },
    });
    const first = await deliver(0);
    const stored = (id: string) => t.ctx.db.selectFrom('received_messages').select(['thread_id', 'rfc_message_id']).where('id', '=', id).executeTakeFirstOrThrow();
    const threadOf = async (id: string) => (await stored(id)).thread_id!;
    const root = (await stored(first.accepted[0].messageId)).rfc_message_id!;
    const thread = await threadOf(first.accepted[0].messageId);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => deliver(i + 1, [`In-Reply-To: <${root}>`, `References: <${root}>`])));
    for (const r of replies) expect(await threadOf(r.accepted[0].messageId)).toBe(thread);
    const row = await t.ctx.db.selectFrom('threads').select(['message_count', 'participants']).where('id', '=', thread).executeTakeFirstOrThrow();
    expect(row.message_count).toBe(31);
  }, 120_000);

  it('45 new plus addresses at once: exactly 20 admitted (Free: 20 a day), 20 over-limit records (20 an hour), 5 refused', async () => {
    const results = await Promise.all(Array.from({ length: 45 }, (_, i) => {
      const to = `agent+p${i}@${D}`;
      return ingestInbound(t.ctx, {
        raw: Buffer.from(eml({ to, from: 'shop@store.test', subject: `order ${i}`, body: 'Thanks for your order.' })),
        mailFrom: 'shop@store.test', rcptTo: [to], source: 'smtp', auth: { spf: true, dkim: true },
      });
    }));
    const rows = await t.ctx.db.selectFrom('received_messages').select(['over_limit', 'event_id']).where('plus_address', 'like', 'agent+p%').execute();
    expect(rows.filter((r) => r.over_limit === null)).toHaveLength(20);
    expect(rows.filter((r) => r.over_limit === 'plus_address_limit')).toHaveLength(20);
    expect(results.filter((r) => r.accepted.length === 0 && r.refused.length === 1)).toHaveLength(5);
    // Each stored row carries its event's id (written with the row, not updated after it).
    const events = new Set((await t.ctx.db.selectFrom('events').select('id').execute()).map((e) => e.id));
    for (const r of rows) expect(events.has(r.event_id!)).toBe(true);
  }, 120_000);
});
