import { Readable } from 'node:stream';
import type { Db } from '../schema.js';

/**
 * Large byte strings (raw messages, attachment contents) in pieces (migration 0018).
 *
 * better-sqlite3 runs each statement synchronously on the calling thread: one INSERT or SELECT
 * of a 10 MB blob held the daemon's only JavaScript thread for a hundred milliseconds and more
 * (issue #13: no message may hold it for more than 50 ms; the SMTP cap is 40 MB). Written and read
 * one piece per statement, with the event loop served between pieces (setImmediate), each step
 * costs about a millisecond whatever the size; other connections' requests are served meanwhile
 * (their queries wait for the connection as they would for any transaction).
 *
 * A stored byte string is its row's own column (the head: small, often empty) followed by the
 * pieces of the blob the row names; rows below INLINE_MAX_BYTES keep everything in the column.
 */

/** One piece: small enough that writing or reading it is about a millisecond. */
export const BLOB_CHUNK_BYTES = 256 * 1024;
/** Up to this many bytes stay in the row's own column (no blob). */
export const INLINE_MAX_BYTES = 256 * 1024;
/** Pieces read per statement (one round trip on PostgreSQL). */
const READ_BATCH = 4;
/** Pieces deleted per statement: freeing their pages costs about as much as writing them. */
const DELETE_BATCH = 8;

/** Let the event loop run (I/O, timers) before the next piece. */
export const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A Buffer view of bytes (no copy): the drivers bind Buffers. */
const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/** Whether bytes of this length are stored in pieces. */
export function isLarge(bytes: number): boolean {
  return bytes > INLINE_MAX_BYTES;
}

/**
 * Store `bytes` as blob `id`, one piece per statement with a turn of the event loop between
 * pieces. Run inside the transaction of the row that names the blob.
 */
export async function writeBlob(db: Db, id: string, bytes: Uint8Array): Promise<void> {
  for (let seq = 0, at = 0; at < bytes.length; seq++, at += BLOB_CHUNK_BYTES) {
    if (seq > 0) await yieldTurn();
    const data = asBuffer(bytes.subarray(at, Math.min(bytes.length, at + BLOB_CHUNK_BYTES)));
    await db.insertInto('blob_chunks').values({ blob_id: id, seq, data }).execute();
  }
}

/** The pieces of blob `id` in order (an unknown id: none), a few per statement, yielding between. */
export async function readBlobPieces(db: Db, id: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (;;) {
    const rows = await db.selectFrom('blob_chunks').select(['seq', 'data'])
      .where('blob_id', '=', id).where('seq', '>=', out.length).orderBy('seq').limit(READ_BATCH).execute();
    for (const r of rows) {
      if (r.seq !== out.length) return out; // a gap: deleted while being read (the caller checks the size)
      out.push(asBuffer(r.data));
    }
    if (rows.length < READ_BATCH) return out;
    await yieldTurn();
  }
}

/**
 * A stored byte string: the row's head followed by its blob's pieces (blob null: the head alone).
 * `size`, when known, is checked: a string whose pieces were deleted while being read (retention)
 * reads as undefined rather than as a truncated copy.
 */
export async function readStoredBytes(db: Db, head: Uint8Array, blob: string | null | undefined, size?: number): Promise<Buffer | undefined> {
  if (!blob) return asBuffer(head);
  const pieces = await readBlobPieces(db, blob);
  const total = pieces.reduce((n, p) => n + p.length, head.length);
  if (size !== undefined && total !== size) return undefined;
  // One copy into a fresh buffer: a few milliseconds even at the 40 MB cap.
  return Buffer.concat([asBuffer(head), ...pieces], total);
}

/**
 * A stored byte string as a stream (downloads: GET raw, GET attachment): the head, then the blob's
 * pieces, READ_BATCH per statement, read only when the consumer asks for more (Readable's
 * `_read`), so a slow client holds a few pieces in memory, never the whole string, and the main thread never
 * copies 40 MB into one buffer. The stream errors (the HTTP response is cut short, its declared
 * Content-Length unmet) if the pieces do not add up to `size`: deleted while being read.
 */
export class StoredBytesStream extends Readable {
  private next = 0;
  private sent = 0;
  private headDone = false;
  /** Pieces read from the database so far (tests: that reading follows the consumer). */
  piecesRead = 0;

  constructor(private readonly db: Db, private readonly head: Buffer, private readonly blob: string, readonly size: number) {
    // One piece is enough in hand: the socket's own buffers hold the rest of what is in flight.
    super({ highWaterMark: BLOB_CHUNK_BYTES });
  }

  override _read(): void {
    if (!this.headDone) {
      this.headDone = true;
      this.sent += this.head.length;
      if (this.head.length) {
        this.push(this.head);
        return;
      }
    }
    // READ_BATCH pieces per statement (one round trip on PostgreSQL, a quarter of the turns): at
    // most ~1 MB in hand beyond what the consumer took. The statement waits for the next turn of
    // the event loop: a socket with room (loopback's buffers take megabytes) asks for more at once,
    // and the query's promise, the push and the write would otherwise chain in microtasks of the
    // same turn — 10-50 ms of the main thread for a 40 MB download, with no I/O served meanwhile.
    void yieldTurn().then(() => this.readBatch());
  }

  private readBatch(): void {
    if (this.destroyed) return;
    this.db.selectFrom('blob_chunks').select(['seq', 'data']).where('blob_id', '=', this.blob)
      .where('seq', '>=', this.next).where('seq', '<', this.next + READ_BATCH).orderBy('seq').execute()
      .then((rows) => {
        if (this.destroyed) return;
        for (const row of rows) {
          if (row.seq !== this.next) break; // a gap: deleted while being read (caught below)
          this.next++;
          this.piecesRead++;
          const data = asBuffer(row.data);
          this.sent += data.length;
          if (this.sent > this.size) {
            this.destroy(new Error(`stored bytes ${this.blob}: more than ${this.size} bytes`));
            return;
          }
          this.push(data);
        }
        if (rows.length === READ_BATCH && rows[READ_BATCH - 1].seq === this.next - 1) return;
        if (this.sent === this.size) this.push(null);
        else this.destroy(new Error(`stored bytes ${this.blob}: ${this.sent} of ${this.size} bytes (deleted while being read)`));
      }, (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))));
  }
}

/**
 * What a download sends: the bytes themselves when they are inline (small), else a stream of the
 * pieces (`StoredBytesStream`); undefined when the blob's pieces are gone already (deleted).
 */
export async function storedBytesForDownload(db: Db, head: Uint8Array, blob: string | null | undefined, size: number): Promise<Buffer | StoredBytesStream | undefined> {
  if (!blob) return asBuffer(head);
  // Gone before the first byte: the caller can still answer 404 rather than a cut-short 200.
  const first = await db.selectFrom('blob_chunks').select('seq').where('blob_id', '=', blob).where('seq', '=', 0).executeTakeFirst();
  if (!first && head.length !== size) return undefined;
  return new StoredBytesStream(db, asBuffer(head), blob, size);
}

/**
 * Delete blobs (missing ids are ignored), a few pieces per statement, yielding between. A blob
 * whose first pieces are gone already (a daemon stopped in the middle of deleting it) is found
 * from its lowest piece left.
 */
export async function deleteBlobs(db: Db, ids: readonly (string | null | undefined)[]): Promise<void> {
  for (const id of new Set(ids)) {
    if (!id) continue;
    for (let from = 0; ; from += DELETE_BATCH) {
      const r = await db.deleteFrom('blob_chunks').where('blob_id', '=', id)
        .where('seq', '>=', from).where('seq', '<', from + DELETE_BATCH).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) {
        const next = await db.selectFrom('blob_chunks').select('seq').where('blob_id', '=', id).where('seq', '>=', from)
          .orderBy('seq').limit(1).executeTakeFirst();
        if (!next) break;
        from = next.seq - DELETE_BATCH;
        continue;
      }
      await yieldTurn();
    }
  }
}

/**
 * A large queued message is stored in pieces under a blob named after its row (written by the
 * queue's writer thread on SQLite, db/queue-writer-thread.ts, or by insertQueued); the received
 * message takes the blob over when it is stored, so the bytes are written once. Here, not in
 * repos/inbound-queue.ts, because the writer thread imports it and must not load kysely.
 */
export const queuedBlobId = (queueId: string): string => queueId;
