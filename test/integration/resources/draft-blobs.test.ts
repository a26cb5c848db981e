import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { loadConfig, type Config } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';
import { checkResponse } from '../../helpers/app.js';

// Drafts with large attachments (issue #13; docs/resources.md → Drafts): a draft's attachment
// over 64 KiB of base64 in a body over 1 MiB is decoded off the main thread and stored as a blob
// (blob_chunks, `draft.<draft id>.<id>`), not as base64 in the row's JSON; every draft path works
// with it, and drafts stored the old way (base64 in `extra`) still do. Orphaned blob pieces (a
// daemon killed between the writer's commit and the row's) are swept when the daemon opens its
// database. A real daemon, real HTTP, a real SQLite file (restarted on the same file).
const MIB = 1024 * 1024;
let dir: string;
let config: Config;
let daemon: Daemon;
let url: string;
let key: string;

async function boot(): Promise<void> {
  daemon = await Daemon.create(config, { quiet: true });
  url = (await daemon.start()).http;
  key ??= daemon.bootstrapped!.keys.test.key;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-draft-blobs-'));
  config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
  await boot();
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url + path, {
    method, headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  checkResponse(method, path, { status: res.status, body: parsed, headers: Object.fromEntries(res.headers) as never, text });
  return { status: res.status, body: parsed, text };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const item = (filename: string, bytes: Buffer) => ({ filename, content_type: 'application/octet-stream', content_base64: bytes.toString('base64') });

async function download(msg: string, att: string): Promise<Buffer> {
  const res = await fetch(`${url}/v1/messages/${msg}/attachments/${att}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The draft's stored row and the blob pieces per blob id of that draft, read from the file. */
async function stored(id: string): Promise<{ extra: any; extraChars: number; blobs: Map<string, number> }> {
  const db = daemon.ctx.db;
  const row = await db.selectFrom('drafts').select('extra').where('id', '=', id).executeTakeFirstOrThrow();
  const pieces = await db.selectFrom('blob_chunks').select(['blob_id', 'data']).where('blob_id', 'like', `draft.${id}.%`).execute();
  const blobs = new Map<string, number>();
  for (const p of pieces) blobs.set(p.blob_id, (blobs.get(p.blob_id) ?? 0) + p.data.length);
  return { extra: JSON.parse(row.extra), extraChars: row.extra.length, blobs };
}

/** Send a draft now; the sent message's attachments by filename, downloaded. */
async function sendAndFetch(id: string): Promise<Map<string, Buffer>> {
  const s = await api('POST', `/v1/drafts/${id}/send`, {});
  expect(s.status, s.text).toBe(200);
  const msg = await api('GET', `/v1/messages/${s.body.message_id}`);
  const out = new Map<string, Buffer>();
  for (const a of msg.body.attachments) out.set(a.filename, await download(msg.body.id, a.id));
  return out;
}

describe('a draft with large attachments', () => {
  it('stores a large attachment as a blob, not base64 in its row, and every path works with it', async () => {
    const big = randomBytes(2 * MIB + 5);
    const small = randomBytes(300);
    const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'big', body_text: 'x', attachments: [item('big.bin', big), item('small.bin', small)] });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    let s = await stored(id);
    // The big one is a reference to its blob (its bytes in pieces); the small one stays inline.
    expect(s.extraChars).toBeLessThan(2000);
    expect(s.extra.attachments[0]).toMatchObject({ filename: 'big.bin', size: big.length });
    expect(s.extra.attachments[0].content_base64).toBeUndefined();
    expect(s.extra.attachments[1].content_base64).toBe(small.toString('base64'));
    expect([...s.blobs.values()]).toEqual([big.length]);
    const firstBlob = [...s.blobs.keys()][0];

    expect((await api('GET', `/v1/drafts/${id}`)).body).toMatchObject({ id, subject: 'big', status: 'draft' });
    expect((await api('GET', '/v1/drafts')).body.data.map((d: any) => d.id)).toContain(id);

    // An edit of other fields keeps the blob as it is (validated by its size, not read).
    const p = await api('PATCH', `/v1/drafts/${id}`, { subject: 'bigger' });
    expect(p.status, p.text).toBe(200);
    s = await stored(id);
    expect([...s.blobs.keys()]).toEqual([firstBlob]);

    // Replacing the attachments writes the new blob and deletes the old one.
    const big2 = randomBytes(3 * MIB);
    const p2 = await api('PATCH', `/v1/drafts/${id}`, { attachments: [item('big2.bin', big2), item('small.bin', small)] });
    expect(p2.status, p2.text).toBe(200);
    s = await stored(id);
    expect(s.blobs.has(firstBlob)).toBe(false);
    expect([...s.blobs.values()]).toEqual([big2.length]);

    // Sent: the message carries every byte; the draft's blob goes (the message has its own copy).
    const got = await sendAndFetch(id);
    expect(sha(got.get('big2.bin')!)).toBe(sha(big2));
    expect(got.get('small.bin')!.equals(small)).toBe(true);
    expect((await stored(id)).blobs.size).toBe(0);
  });

  it('a scheduled draft is sent whole by the daemon\'s scheduler, and its blob deleted', async () => {
    const bytes = randomBytes(MIB + 17);
    const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'later', body_text: 'x', attachments: [item('later.bin', bytes)] });
    expect(c.status, c.text).toBe(201);
    const p = await api('PATCH', `/v1/drafts/${c.body.id}`, { send_at: new Date(Date.now() + 2000).toISOString() });
    expect(p.status, p.text).toBe(200);
    expect(p.body.status).toBe('scheduled');
    let d: any;
    for (let i = 0; i < 120 && (d = (await api('GET', `/v1/drafts/${c.body.id}`)).body).status !== 'sent'; i++) await new Promise((r) => setTimeout(r, 250));
    expect(d.status, JSON.stringify(d)).toBe('sent');
    const msg = await api('GET', `/v1/messages/${d.sent_message_id}`);
    expect(sha(await download(msg.body.id, msg.body.attachments[0].id))).toBe(sha(bytes));
    expect((await stored(c.body.id)).blobs.size).toBe(0);
  });

  it('an edit over the 25 MB cap is refused, the stored blob kept and nothing new written; a delete deletes the blob', async () => {
    const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 's', attachments: [item('a.bin', Buffer.alloc(20 * MIB, 1))] });
    expect(c.status, c.text).toBe(201);
    const before = await stored(c.body.id);
    // 20 MiB again plus 6 MiB more: over 25 MB decoded.
    const add = await api('PATCH', `/v1/drafts/${c.body.id}`, { attachments: [item('a.bin', Buffer.alloc(20 * MIB, 1)), item('b.bin', Buffer.alloc(6 * MIB, 2))] });
    expect(add.status).toBe(400);
    expect(add.body.error).toMatchObject({ code: 'invalid_field', param: 'attachments' });
    const after = await stored(c.body.id);
    expect([...after.blobs.keys()]).toEqual([...before.blobs.keys()]);
    // Deleting the draft deletes its blob.
    expect((await api('DELETE', `/v1/drafts/${c.body.id}`)).status).toBe(200);
    expect((await stored(c.body.id)).blobs.size).toBe(0);
  });

  it('a client cannot name a stored blob in an attachment item', async () => {
    const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'x', attachments: [item('big.bin', randomBytes(MIB + 1))] });
    const blob = (await stored(c.body.id)).extra.attachments[0].blob as string;
    const other = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'x' });
    // Without content: the send's missing_field; with content beside `blob`: the content is what goes.
    const bare = await api('PATCH', `/v1/drafts/${other.body.id}`, { attachments: [{ filename: 'x.bin', blob, size: MIB + 1 }] });
    expect(bare.status).toBe(400);
    expect(bare.body.error).toMatchObject({ code: 'missing_field', param: 'attachments[0].content_base64' });
    const mixed = await api('PATCH', `/v1/drafts/${other.body.id}`, { attachments: [{ filename: 'x.bin', blob, size: MIB + 1, content_base64: 'aGk=' }] });
    expect(mixed.status, mixed.text).toBe(200);
    const got = await sendAndFetch(other.body.id);
    expect(got.get('x.bin')!.toString()).toBe('hi');
    // The other draft's blob is untouched.
    expect((await stored(c.body.id)).blobs.get(blob)).toBe(MIB + 1);
  });

  it('a draft stored the old way (the base64 text in its row) is still edited and sent whole', async () => {
    const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'old', body_text: 'x' });
    const bytes = randomBytes(MIB + 11);
    // What the daemon stored before round 2 session 14: the request's item, base64 and all.
    await daemon.ctx.db.updateTable('drafts').set({ extra: JSON.stringify({ attachments: [item('old.bin', bytes)] }) }).where('id', '=', c.body.id).execute();
    expect((await api('GET', `/v1/drafts/${c.body.id}`)).status).toBe(200);
    const p = await api('PATCH', `/v1/drafts/${c.body.id}`, { subject: 'old, edited' });
    expect(p.status, p.text).toBe(200);
    const got = await sendAndFetch(c.body.id);
    expect(sha(got.get('old.bin')!)).toBe(sha(bytes));
  });
});

describe('without the queue writer (PostgreSQL\'s path)', () => {
  it('the draft\'s own transaction writes the pieces, and the draft is sent whole', async () => {
    const saved = daemon.ctx.writeBlobs;
    expect(saved).toBeDefined();
    daemon.ctx.writeBlobs = undefined;
    try {
      const bytes = randomBytes(MIB + 13);
      const c = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'tx', body_text: 'x', attachments: [item('tx.bin', bytes)] });
      expect(c.status, c.text).toBe(201);
      expect([...(await stored(c.body.id)).blobs.values()]).toEqual([bytes.length]);
      expect(sha((await sendAndFetch(c.body.id)).get('tx.bin')!)).toBe(sha(bytes));
    } finally {
      daemon.ctx.writeBlobs = saved;
    }
  });
});

describe('orphaned blob pieces', () => {
  it('are deleted when the daemon opens its database; named ones are kept and still read whole', async () => {
    // Named: a sent message's large attachment and a live draft's.
    const sentBytes = randomBytes(MIB + 3);
    const m = await api('POST', '/v1/messages', { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'x', attachments: [item('sent.bin', sentBytes)] });
    expect(m.status, m.text).toBe(201);
    const draftBytes = randomBytes(MIB + 7);
    const dft = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'kept', body_text: 'x', attachments: [item('draft.bin', draftBytes)] });
    expect(dft.status, dft.text).toBe(201);
    const deleted = await api('POST', '/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 'gone', body_text: 'x' });
    await api('DELETE', `/v1/drafts/${deleted.body.id}`);
    await daemon.stop();

    // What a daemon killed between the writer's commit of the pieces and the row's commit leaves.
    const file = new Database(config.dbFile);
    const named = (file.prepare('select distinct blob_id from blob_chunks').all() as { blob_id: string }[]).map((r) => r.blob_id);
    const orphans = [
      'sent.att_neverstored', // a send whose transaction never committed
      `draft.dft_neverstored.att_x`, // a draft never stored
      `draft.${dft.body.id}.att_replaced`, // an edit's old blob, not yet deleted
      `draft.${deleted.body.id}.att_y`, // a deleted draft's
    ];
    const put = file.prepare('insert into blob_chunks (blob_id, seq, data) values (?, ?, ?)');
    for (const id of orphans) for (const seq of [0, 1]) put.run(id, seq, randomBytes(1000));
    // Half deleted (its first pieces gone already): still found.
    put.run('sent.att_halfdeleted', 8, randomBytes(1000));
    file.close();

    await boot();
    const left = (await daemon.ctx.db.selectFrom('blob_chunks').select('blob_id').distinct().execute()).map((r) => r.blob_id).sort();
    expect(left).toEqual([...named].sort());
    expect(named.some((b) => b.startsWith('sent.'))).toBe(true);
    expect(named.some((b) => b.startsWith(`draft.${dft.body.id}.`))).toBe(true);
    // The named ones read whole.
    expect(sha(await download(m.body.id, m.body.attachments[0].id))).toBe(sha(sentBytes));
    expect(sha((await sendAndFetch(dft.body.id)).get('draft.bin')!)).toBe(sha(draftBytes));
  });
});
