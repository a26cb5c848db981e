import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { runTransaction } from '../../../src/db/open.js';
import { BLOB_CHUNK_BYTES, deleteBlobs, StoredBytesStream, storedBytesForDownload, writeBlob } from '../../../src/db/repos/blobs.js';

// Downloads of large stored byte strings (GET raw, GET attachment) stream their 256 KB pieces
// (src/db/repos/blobs.ts StoredBytesStream): read one statement at a time as the consumer takes
// them, never joined into one buffer. On whichever engine the suite runs (SQLite; PostgreSQL with
// MAILAGENT_TEST_DATABASE=postgres).
let t: TestApp;
beforeEach(async () => { t = await createTestApp(); });
afterEach(async () => { await t.close(); });

const head = Buffer.from('Authentication-Results: mx.test; none\r\n');
const bytes = randomBytes(12 * BLOB_CHUNK_BYTES + 1234);

async function stored(id: string): Promise<void> {
  await runTransaction(t.ctx.db, (trx) => writeBlob(trx, id, bytes));
}

/** A consumer that takes one chunk and then stops asking (a client that does not read). */
function stuckConsumer(): { sink: Writable; got: Buffer[]; release: () => void } {
  const got: Buffer[] = [];
  let held: (() => void) | null = null;
  let released = false;
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      got.push(chunk);
      if (released) done();
      else held = done;
    },
  });
  return { sink, got, release: () => { released = true; held?.(); } };
}

const settle = () => new Promise((r) => setTimeout(r, 150));

describe('streamed downloads of stored pieces', () => {
  it('yields the head and every piece in order: the same bytes, with the declared size', async () => {
    await stored('b1');
    const s = await storedBytesForDownload(t.ctx.db, head, 'b1', head.length + bytes.length);
    expect(s).toBeInstanceOf(StoredBytesStream);
    const chunks: Buffer[] = [];
    // 'data' (flowing) hands over each pushed chunk as it is; for-await would join what is buffered.
    await new Promise<void>((resolve, reject) => {
      (s as StoredBytesStream).on('data', (c: Buffer) => chunks.push(c)).on('end', resolve).on('error', reject);
    });
    expect(Buffer.concat(chunks).equals(Buffer.concat([head, bytes]))).toBe(true);
    // One chunk per piece (plus the head): nothing was joined.
    expect(chunks.length).toBe(1 + Math.ceil(bytes.length / BLOB_CHUNK_BYTES));
    expect(Math.max(...chunks.map((c) => c.length))).toBe(BLOB_CHUNK_BYTES);
    expect((s as StoredBytesStream).size).toBe(head.length + bytes.length);
  });

  it('reads pieces only as the consumer takes them (backpressure): a stalled client holds a few pieces, not the message', async () => {
    await stored('b2');
    const s = (await storedBytesForDownload(t.ctx.db, Buffer.alloc(0), 'b2', bytes.length)) as StoredBytesStream;
    const c = stuckConsumer();
    const done = pipeline(s, c.sink);
    await settle();
    expect(c.got.length).toBe(1);
    // One statement's pieces (4) and at most one more read: never all 13.
    expect(s.piecesRead).toBeLessThanOrEqual(8);
    await settle();
    expect(s.piecesRead).toBeLessThanOrEqual(8);
    c.release();
    await done;
    expect(s.piecesRead).toBe(13);
    expect(Buffer.concat(c.got).equals(bytes)).toBe(true);
  });

  it('pieces deleted while the download runs: the stream errors (the response is cut short) instead of ending early as if complete', async () => {
    await stored('b3');
    const s = (await storedBytesForDownload(t.ctx.db, Buffer.alloc(0), 'b3', bytes.length)) as StoredBytesStream;
    const c = stuckConsumer();
    const done = pipeline(s, c.sink);
    await settle();
    await deleteBlobs(t.ctx.db, ['b3']);
    c.release();
    await expect(done).rejects.toThrow(/deleted while being read/);
  });

  it('pieces gone before the download starts: undefined (the route answers 404); inline bytes come back as they are', async () => {
    expect(await storedBytesForDownload(t.ctx.db, Buffer.alloc(0), 'missing', bytes.length)).toBeUndefined();
    const small = Buffer.from('small');
    expect(await storedBytesForDownload(t.ctx.db, small, null, small.length)).toEqual(small);
  });
});
