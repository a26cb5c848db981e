// The inbound queue's writer thread (db/queue-writer.ts): its own connection to the SQLite file,
// so the fsync of synchronous=FULL that acknowledges SMTP mail runs here, not on the main thread.
// Rows that arrive while a commit runs are written together by the next one (group commit).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { threadHeap } from '../shared/thread-heap.js';
import type { QueueWriterReply, QueueWriterRequest, QueueWriterRow } from './queue-writer.js';
import { requestLogBatchesOf } from './request-log-rows.js';
import { BLOB_CHUNK_BYTES, isLarge, queuedBlobId } from './repos/blobs.js';

const port = parentPort;
if (!port) throw new Error('queue writer: not started as a worker thread');
const { file, lock } = workerData as { file: string; lock: SharedArrayBuffer };
const db = new BetterSqlite3(file);
// The same durability as the main connection (db/open.ts): WAL is a property of the file already.
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// This connection only appends rows: 2 MB of page cache instead of SQLite's
// 16 MB default (better-sqlite3's build), which a long ingest otherwise fills with pages it never reads again.
db.pragma('cache_size = -2048');
// Checkpoints are the daemon's checkpoint thread's (db/checkpointer.ts), never a commit's: SQLite runs an automatic
// checkpoint inside the COMMIT that crosses 1,000 WAL pages, copying the WAL into the database
// and syncing both, which here would delay acknowledgements and on the main thread stopped the
// daemon (tens of milliseconds per 10 MB message).
db.pragma('wal_autocheckpoint = 0');

startWriter();

function startWriter(): void {
  const gate = new Int32Array(lock);
  const insert = db.prepare(`insert into inbound_queue (id, received_at, mail_from, rcpt_to, message_ids, remote_address, helo, raw, raw_blob, lease_until, attempts, last_error)
    values (@id, @received_at, @mail_from, @rcpt_to, @message_ids, @remote_address, @helo, @raw, @raw_blob, null, 0, null)`);
  const insertPiece = db.prepare('insert into blob_chunks (blob_id, seq, data) values (?, ?, ?)');
  const empty = Buffer.alloc(0);
  const writeAll = db.transaction((rows: QueueWriterRow[]) => {
    for (const r of rows) {
      const view = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
      // Pieces from the listener are joined here, off the main thread.
      const raw = Array.isArray(r.raw) ? Buffer.concat(r.raw.map(view)) : view(r.raw);
      // A large message in pieces (repos/blobs.ts), so the main thread later reads it a piece at a
      // time; the stored message takes the blob over (written once).
      const blob = isLarge(raw.length) ? queuedBlobId(r.id) : null;
      if (blob) for (let seq = 0, at = 0; at < raw.length; seq++, at += BLOB_CHUNK_BYTES) insertPiece.run(blob, seq, raw.subarray(at, at + BLOB_CHUNK_BYTES));
      insert.run({ ...r, raw: blob ? empty : raw, raw_blob: blob });
    }
  });

  const deletePieces = db.prepare('delete from blob_chunks where blob_id = ?');
  /** Blobs, a few MB per transaction (the main thread waits for the gate meanwhile, without blocking). */
  const writeBlobs = db.transaction((blobs: { id: string; data: Buffer; from: number; to: number }[]) => {
    for (const b of blobs) {
      if (b.from === 0) deletePieces.run(b.id);
      for (let at = b.from; at < b.to; at += BLOB_CHUNK_BYTES) insertPiece.run(b.id, at / BLOB_CHUNK_BYTES, b.data.subarray(at, Math.min(b.to, at + BLOB_CHUNK_BYTES)));
    }
  });
  const BLOB_TX_BYTES = 16 * BLOB_CHUNK_BYTES;

  // The request log: one stored row per workspace for the batches delivered together (table
  // request_log, migration 0033; db/request-log-rows.ts), not one row and four index entries per request.
  const insertLog = db.prepare(`insert into request_log (workspace_id, first_id, last_id, min_created_at, max_created_at, entry_count, actions, agents, entries)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const writeLogs = db.transaction((batches: unknown[][]) => {
    for (const r of requestLogBatchesOf(batches)) {
      insertLog.run(r.workspace_id, r.first_id, r.last_id, r.min_created_at, r.max_created_at, r.entry_count, r.actions, r.agents, r.entries);
    }
  });

  /** Run fn holding the write lock shared with the main thread (db/queue-writer.ts): this thread may block on it. */
  function locked(fn: () => void): void {
    if (Atomics.compareExchange(gate, 0, 0, 1) !== 0) {
      // Say so while waiting: the main thread's batch that holds the lock ends at its next unit
      // (db/open.ts writeLockWanted, services/context.ts groupedTransaction holdMs).
      Atomics.store(gate, 1, 1);
      while (Atomics.compareExchange(gate, 0, 0, 1) !== 0) Atomics.wait(gate, 0, 1, 100);
      // The main thread's next transaction waited for this (QueueWriter.gate.acquire).
      Atomics.store(gate, 1, 0);
      Atomics.notify(gate, 1);
    }
    try {
      fn();
    } finally {
      Atomics.store(gate, 0, 0);
      Atomics.notify(gate, 0);
    }
  }

  let pending: QueueWriterRequest[] = [];
  let scheduled = false;
  function flush(): void {
    scheduled = false;
    const batch = pending;
    pending = [];
    const rowReqs = batch.filter((b) => b.rows);
    // Request-log rows of every message delivered so far, in one transaction with no sync of its
    // own (QueueWriter.writeLogs): the next synced commit of anyone's carries them to disk.
    const logReqs = batch.filter((b) => b.logs);
    if (logReqs.length) {
      const logSeqs = logReqs.map((b) => b.seq);
      try {
        db.pragma('synchronous = NORMAL');
        locked(() => writeLogs.immediate(logReqs.map((b) => b.logs!)));
        port!.postMessage({ seqs: logSeqs, ok: true } satisfies QueueWriterReply);
      } catch (err) {
        port!.postMessage({ seqs: logSeqs, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies QueueWriterReply);
      } finally {
        db.pragma('synchronous = FULL');
      }
    }
    for (const req of batch) {
      if (!req.blobs) continue;
      try {
        // No sync of their own (see QueueWriter.writeBlobs): the referencing commit syncs the WAL.
        db.pragma('synchronous = NORMAL');
        for (const blob of req.blobs) {
          const data = Buffer.from(blob.data.buffer, blob.data.byteOffset, blob.data.byteLength);
          for (let from = 0; from === 0 || from < data.length; from += BLOB_TX_BYTES) {
            locked(() => writeBlobs.immediate([{ id: blob.id, data, from, to: Math.min(data.length, from + BLOB_TX_BYTES) }]));
          }
        }
        port!.postMessage({ seqs: [req.seq], ok: true } satisfies QueueWriterReply);
      } catch (err) {
        port!.postMessage({ seqs: [req.seq], ok: false, error: err instanceof Error ? err.message : String(err) } satisfies QueueWriterReply);
      } finally {
        db.pragma('synchronous = FULL');
      }
    }
    if (!rowReqs.length) return;
    const seqs = rowReqs.map((b) => b.seq);
    try {
      // IMMEDIATE: take SQLite's write lock first (a deferred transaction could fail to upgrade).
      locked(() => writeAll.immediate(rowReqs.flatMap((b) => b.rows!)));
      port!.postMessage({ seqs, ok: true } satisfies QueueWriterReply);
    } catch (err) {
      port!.postMessage({ seqs, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies QueueWriterReply);
    }
  }

  port!.on('message', (msg: QueueWriterRequest | 'close' | 'heap') => {
    if (msg === 'heap') {
      port!.postMessage({ heap: threadHeap() } satisfies QueueWriterReply);
      return;
    }
    if (msg === 'close') {
      if (pending.length) flush();
      db.close();
      port!.close();
      return;
    }
    pending.push(msg);
    // Everything already delivered to this thread joins the batch: setImmediate runs after them.
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  port!.postMessage('ready');
}
