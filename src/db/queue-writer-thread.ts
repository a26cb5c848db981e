// The inbound queue's writer thread (db/queue-writer.ts): its own connection to the SQLite file,
// so the fsync of synchronous=FULL that acknowledges SMTP mail runs here, not on the main thread.
// Rows that arrive while a commit runs are written together by the next one (group commit).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { threadHeap } from '../shared/thread-heap.js';
import type { QueueWriterReply, QueueWriterRequest } from './queue-writer.js';

const port = parentPort;
if (!port) throw new Error('queue writer: not started as a worker thread');
const { file, lock } = workerData as { file: string; lock: SharedArrayBuffer };
const gate = new Int32Array(lock);
const db = new BetterSqlite3(file);
// The same durability as the main connection (db/open.ts): WAL is a property of the file already.
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// This connection only appends rows to inbound_queue: 2 MB of page cache instead of SQLite's
// 16 MB default (better-sqlite3's build), which a long ingest otherwise fills with pages it never reads again.
db.pragma('cache_size = -2048');
const insert = db.prepare(`insert into inbound_queue (id, received_at, mail_from, rcpt_to, message_ids, remote_address, helo, raw, lease_until, attempts, last_error)
  values (@id, @received_at, @mail_from, @rcpt_to, @message_ids, @remote_address, @helo, @raw, null, 0, null)`);
const writeAll = db.transaction((rows: QueueWriterRequest['rows']) => {
  for (const r of rows) insert.run({ ...r, raw: Buffer.from(r.raw.buffer, r.raw.byteOffset, r.raw.byteLength) });
});

let pending: QueueWriterRequest[] = [];
let scheduled = false;
function flush(): void {
  scheduled = false;
  const batch = pending;
  pending = [];
  const seqs = batch.map((b) => b.seq);
  // The write lock shared with the main thread (db/queue-writer.ts): this thread may block on it.
  while (Atomics.compareExchange(gate, 0, 0, 1) !== 0) Atomics.wait(gate, 0, 1, 100);
  try {
    // IMMEDIATE: take SQLite's write lock first (a deferred transaction could fail to upgrade).
    writeAll.immediate(batch.flatMap((b) => b.rows));
    port!.postMessage({ seqs, ok: true } satisfies QueueWriterReply);
  } catch (err) {
    port!.postMessage({ seqs, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies QueueWriterReply);
  } finally {
    Atomics.store(gate, 0, 0);
    Atomics.notify(gate, 0);
  }
}

port.on('message', (msg: QueueWriterRequest | 'close' | 'heap') => {
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
port.postMessage('ready');
