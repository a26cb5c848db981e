import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { startSmtp } from '../inbound/helpers.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';
import { OutboundScheduler } from '../../../src/server/workers/scheduler.js';
import { deleteMessages } from '../../../src/db/repos/retention.js';
import { sentAttachmentBlobId } from '../../../src/db/repos/messages.js';
import { dialectOf } from '../../../src/db/dialect.js';
import { MINUTE, isoAt } from '../../../src/shared/clock.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';

/**
 * Large sent attachments are stored as blobs (migration 0035, db/repos/blobs.ts), not as one
 * column of one row: on SQLite written by the queue writer's thread before the send's transaction
 * names them (services/send.ts withAttachmentsWritten), on PostgreSQL (no writer thread) by the
 * transaction itself, a piece per statement. Every read gets the same bytes: the attachment
 * download, the raw .eml, the relay's copy of a scheduled send, a forward; a send whose transaction
 * fails or is refused leaves no piece behind; retention deletes the pieces with the message; a row
 * stored inline (before 0035) still reads. Real SQLite file (or PostgreSQL:
 * `npx tsx scripts/test-postgres.ts test/integration/outbound/large-attachments.test.ts`), real HTTP
 * through the app, a real SMTP relay over TCP, the real queue writer thread (the SMTP listener's).
 */
let t: TestApp;
let relay: TestRelay;
let smtp: SmtpListener;
let scheduler: OutboundScheduler;
/** Blob writes handed to the queue writer (the real one, wrapped to count). */
const handed: string[] = [];
const sqlite = () => t.config.database.kind === 'sqlite';

beforeAll(async () => {
  relay = await TestRelay.start();
  t = await createTestApp({ relay: relay.url });
  // The SMTP listener with its inbound queue: on SQLite its writer thread runs (AppContext.writeBlobs).
  smtp = await startSmtp(t);
  const write = t.ctx.writeBlobs;
  if (write) t.ctx.writeBlobs = (blobs, move) => (handed.push(...blobs.map((b) => b.id)), write(blobs, move));
  scheduler = new OutboundScheduler(t.ctx);
}, 60_000);
afterAll(async () => {
  closeRelay(t.ctx);
  await smtp.stop();
  await t.close();
  await relay.stop();
});
beforeEach(() => {
  relay.mode = 'accept';
  relay.messages.length = 0;
  handed.length = 0;
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const BIG = 1_500_000; // over INLINE_MAX_BYTES (256 KB): six pieces
const body = (big: Buffer, extra: Record<string, unknown> = {}) => ({
  agent: 'agent', to: 'bob@example.com', subject: 'The report', body_text: 'Attached.',
  attachments: [
    { filename: 'big.bin', content_type: 'application/octet-stream', content_base64: big.toString('base64') },
    { filename: 'note.txt', content_base64: Buffer.from('a small one').toString('base64') },
  ],
  ...extra,
});
const piecesOf = async (blobId: string) => Number((await t.ctx.db.selectFrom('blob_chunks').select((eb) => eb.fn.countAll<number>().as('n'))
  .where('blob_id', '=', blobId).executeTakeFirstOrThrow()).n);
const allPieces = async () => Number((await t.ctx.db.selectFrom('blob_chunks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
const storedRows = (messageId: string) => t.ctx.db.selectFrom('sent_attachments')
  .select(['id', 'filename', 'size', 'content', 'content_blob']).where('message_id', '=', messageId).orderBy('position').execute();

async function download(messageId: string, attachmentId: string): Promise<Buffer> {
  const r = await t.app.inject({ method: 'GET', url: `/v1/messages/${messageId}/attachments/${attachmentId}`, headers: { authorization: `Bearer ${t.liveKey}` } });
  expect(r.statusCode, r.body).toBe(200);
  return r.rawPayload;
}

/** The base64 body of the MIME part named `filename` in a raw message, decoded. */
function partOf(raw: Buffer, filename: string): Buffer {
  const text = raw.toString('latin1');
  const at = text.indexOf(`filename=${filename}`) >= 0 ? text.indexOf(`filename=${filename}`) : text.indexOf(`filename="${filename}"`);
  expect(at, `part ${filename}`).toBeGreaterThan(0);
  const start = text.indexOf('\r\n\r\n', at) + 4;
  const end = text.indexOf('\r\n--', start);
  return Buffer.from(text.slice(start, end).replace(/\s+/g, ''), 'base64');
}

describe('a large sent attachment', () => {
  it('test mode: stored as a blob (by the writer thread on SQLite), downloaded and in the raw copy intact', async () => {
    const big = randomBytes(BIG);
    const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(big) });
    expect(r.status, r.text).toBe(201);
    const [a, small] = r.body.attachments as { id: string; size: number }[];
    expect(a.size).toBe(BIG);
    const rows = await storedRows(r.body.id);
    expect(rows.map((x) => [x.filename, x.size, x.content.length, x.content_blob])).toEqual([
      ['big.bin', BIG, 0, sentAttachmentBlobId(a.id)], ['note.txt', 11, 11, null],
    ]);
    expect(await piecesOf(sentAttachmentBlobId(a.id))).toBe(Math.ceil(BIG / (256 * 1024)));
    // SQLite: the writer thread wrote it; PostgreSQL has none and the transaction wrote it.
    expect(handed).toEqual(sqlite() ? [sentAttachmentBlobId(a.id)] : []);

    expect(sha(await download(r.body.id, a.id))).toBe(sha(big));
    expect((await download(r.body.id, small.id)).toString()).toBe('a small one');
    const raw = await t.app.inject({ method: 'GET', url: `/v1/messages/${r.body.id}/raw`, headers: { authorization: `Bearer ${t.liveKey}` } });
    expect(raw.statusCode).toBe(200);
    expect(sha(partOf(raw.rawPayload, 'big.bin'))).toBe(sha(big));
  });

  it('live, now: the relay gets the bytes and the stored copy is a blob', async () => {
    const big = randomBytes(BIG);
    const r = await t.req('POST', '/v1/messages', { body: body(big) });
    expect(r.status, r.text).toBe(201);
    expect(relay.messages).toHaveLength(1);
    expect(sha(partOf(relay.messages[0].raw, 'big.bin'))).toBe(sha(big));
    const [a] = r.body.attachments as { id: string }[];
    expect((await storedRows(r.body.id))[0].content_blob).toBe(sentAttachmentBlobId(a.id));
    expect(sha(await download(r.body.id, a.id))).toBe(sha(big));
  });

  it('live: a large text attachment (handed to nodemailer in pieces) goes out base64, byte for byte', async () => {
    const text = Buffer.from(Array.from({ length: 12_000 }, (_, i) => `line ${i}: grüße, .dots at the start\r\n.${'x'.repeat(i % 90)}`).join('\r\n'));
    expect(text.length).toBeGreaterThan(256 * 1024);
    const r = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'bob@example.com', subject: 'Text', body_text: 'Attached.', attachments: [{ filename: 'notes.txt', content_type: 'text/plain', content_base64: text.toString('base64') }] } });
    expect(r.status, r.text).toBe(201);
    expect(relay.messages).toHaveLength(1);
    expect(relay.messages[0].raw.toString('latin1')).toMatch(/Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=notes\.txt/);
    expect(sha(partOf(relay.messages[0].raw, 'notes.txt'))).toBe(sha(text));
  });

  it('live, scheduled: the scheduler builds the wire copy from the blob; a forward carries it', async () => {
    const big = randomBytes(BIG);
    const r = await t.req('POST', '/v1/messages', { body: body(big, { to: 'later@example.com', scheduled_at: isoAt(t.clock.now() + MINUTE) }) });
    expect(r.status, r.text).toBe(201);
    expect(relay.messages).toHaveLength(0);
    t.clock.advance(2 * MINUTE);
    await scheduler.runDue();
    expect(relay.messages).toHaveLength(1);
    expect(sha(partOf(relay.messages[0].raw, 'big.bin'))).toBe(sha(big));

    const f = await t.req('POST', `/v1/messages/${r.body.id}/forward`, { body: { to: 'carol@example.com' } });
    expect(f.status, f.text).toBe(201);
    expect(relay.messages).toHaveLength(2);
    expect(sha(partOf(relay.messages[1].raw, 'big.bin'))).toBe(sha(big));
    const fa = (f.body.attachments as { id: string; filename: string }[]).find((x) => x.filename === 'big.bin')!;
    expect(sha(await download(f.body.id, fa.id))).toBe(sha(big));
  });

  it('retention deletes the pieces with the message', async () => {
    const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(randomBytes(BIG)) });
    expect(r.status, r.text).toBe(201);
    const blob = sentAttachmentBlobId(r.body.attachments[0].id);
    expect(await piecesOf(blob)).toBeGreaterThan(0);
    const res = await deleteMessages(t.ctx.db, [], [r.body.id], isoAt(t.clock.now()));
    expect(res.sent).toBe(1);
    expect(await piecesOf(blob)).toBe(0);
    expect(await storedRows(r.body.id)).toEqual([]);
  });

  it('a row stored inline (before migration 0035) still downloads, goes out and forwards', async () => {
    const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(randomBytes(1000)) });
    expect(r.status, r.text).toBe(201);
    const [a] = r.body.attachments as { id: string }[];
    // As an older build stored it: the whole attachment in the row's column.
    const old = randomBytes(BIG);
    await t.ctx.db.updateTable('sent_attachments').set({ content: old, size: old.length, content_blob: null }).where('id', '=', a.id).execute();
    expect(sha(await download(r.body.id, a.id))).toBe(sha(old));
    const raw = await t.app.inject({ method: 'GET', url: `/v1/messages/${r.body.id}/raw`, headers: { authorization: `Bearer ${t.liveKey}` } });
    expect(sha(partOf(raw.rawPayload, 'big.bin'))).toBe(sha(old));
    const f = await t.req('POST', `/v1/messages/${r.body.id}/forward`, { key: t.testKey, body: { to: 'carol@example.com' } });
    expect(f.status, f.text).toBe(201);
    const fa = (f.body.attachments as { id: string; filename: string }[]).find((x) => x.filename === 'big.bin')!;
    expect(sha(await download(f.body.id, fa.id))).toBe(sha(old));
    // The forward's copy is new: stored as a blob.
    expect((await storedRows(f.body.id))[0].content_blob).toBe(sentAttachmentBlobId(fa.id));
  });
});

describe('the queue writer failing', () => {
  it('after committing the pieces but before answering: the send writes them itself, once, and succeeds (SQLite)', async () => {
    const write = t.ctx.writeBlobs;
    if (!write) return; // PostgreSQL: no writer thread
    // The real writer writes (a copy: the bytes stay here), then the hand-over fails.
    t.ctx.writeBlobs = async (blobs) => {
      await write(blobs, false);
      throw new Error('queue writer exited');
    };
    try {
      const big = randomBytes(BIG);
      const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(big) });
      expect(r.status, r.text).toBe(201);
      const [a] = r.body.attachments as { id: string }[];
      expect((await storedRows(r.body.id))[0].content_blob).toBe(sentAttachmentBlobId(a.id));
      expect(await piecesOf(sentAttachmentBlobId(a.id))).toBe(Math.ceil(BIG / (256 * 1024)));
      expect(sha(await download(r.body.id, a.id))).toBe(sha(big));
    } finally {
      t.ctx.writeBlobs = write;
    }
  });
});

describe('a send that is not stored leaves no blob', () => {
  it('refused by a cap inside its transaction (a scheduled live send over the agent\'s daily limit)', async () => {
    const agent = await t.req('POST', '/v1/agents', { body: { name: 'capped', daily_send_limit: 1 } });
    expect(agent.status, agent.text).toBe(201);
    const before = await allPieces();
    const r = await t.req('POST', '/v1/messages', {
      body: body(randomBytes(BIG), { agent: 'capped', to: ['x@example.com', 'y@example.com'], scheduled_at: isoAt(t.clock.now() + MINUTE) }),
    });
    expect(r.status, r.text).toBe(429);
    expect(r.body.error.code).toBe('daily_limit_exceeded');
    // The bytes were written (SQLite: by the writer, before the transaction), then deleted.
    if (sqlite()) expect(handed).toHaveLength(1);
    expect(await allPieces()).toBe(before);
    expect(await t.ctx.db.selectFrom('sent_attachments').select('id').where('size', '=', BIG).where('filename', '=', 'big.bin')
      .where('message_id', 'not in', t.ctx.db.selectFrom('sent_messages').select('id')).execute()).toEqual([]);
  });

  it('failed inside its transaction (the message row\'s INSERT fails): 500, no row, no piece', async () => {
    const pg = dialectOf(t.ctx.db) === 'postgres';
    if (pg) {
      await sql`CREATE FUNCTION refuse_sent() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$ LANGUAGE plpgsql`.execute(t.ctx.db);
      await sql`CREATE TRIGGER refuse_sent BEFORE INSERT ON sent_messages FOR EACH ROW EXECUTE FUNCTION refuse_sent()`.execute(t.ctx.db);
    } else {
      await sql`CREATE TRIGGER refuse_sent BEFORE INSERT ON sent_messages BEGIN SELECT RAISE(ABORT, 'refused by test'); END`.execute(t.ctx.db);
    }
    try {
      const before = await allPieces();
      const count = async () => Number((await t.ctx.db.selectFrom('sent_attachments').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rowsBefore = await count();
      const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(randomBytes(BIG)) });
      expect(r.status, r.text).toBe(500);
      if (sqlite()) expect(handed).toHaveLength(1);
      expect(await allPieces()).toBe(before);
      expect(await count()).toBe(rowsBefore);
    } finally {
      await sql`DROP TRIGGER refuse_sent ${sql.raw(pg ? 'ON sent_messages' : '')}`.execute(t.ctx.db);
      if (pg) await sql`DROP FUNCTION refuse_sent()`.execute(t.ctx.db);
    }
    // Sends work again.
    const ok = await t.req('POST', '/v1/messages', { key: t.testKey, body: body(randomBytes(BIG)) });
    expect(ok.status, ok.text).toBe(201);
  });
});
