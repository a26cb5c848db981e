// The WAL checkpointer thread (db/checkpointer.ts): its own connection to the SQLite file, so the
// checkpoint's page copies and its two fsyncs (WAL before, database after) run here rather than
// inside a COMMIT on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { threadHeap } from '../shared/thread-heap.js';
import { indexPendingBatch, type SearchIndexStatements } from './search-index-sql.js';

const port = parentPort;
if (!port) throw new Error('checkpointer: not started as a worker thread');
const { file } = workerData as { file: string };
const db = new BetterSqlite3(file);
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// Its search-index batches read the queued messages and write the index's pages once: 2 MB of page
// cache (as the queue writer's) instead of better-sqlite3's 16 MB, which a long ingest filled.
db.pragma('cache_size = -2048');
// It must not checkpoint on its own schedule (the main thread asks for checkpoints).
db.pragma('wal_autocheckpoint = 0');
port.postMessage({ ready: true });

// The search index's batches (db/search-index.ts), run while the main thread holds the write lock.
const statements: SearchIndexStatements = {
  get: (text, params) => db.prepare(text).get(...params),
  all: (text, params) => db.prepare(text).all(...params),
  run: (text, params) => db.prepare(text).run(...params).changes,
};
const indexBatch = db.transaction((limit: number) => indexPendingBatch(statements, limit));

port.on('message', (msg: 'checkpoint' | 'close' | 'heap' | { index: number }) => {
  if (msg === 'heap') {
    port.postMessage({ heap: threadHeap() });
    return;
  }
  if (msg === 'close') {
    db.close();
    port.close();
    return;
  }
  if (typeof msg === 'object') {
    try {
      // Derived data: committed without a sync of its own (the next synced commit or checkpoint
      // makes it durable). Lost in a power cut, the batch's queue rows come back with it.
      db.pragma('synchronous = NORMAL');
      try {
        port.postMessage({ indexed: indexBatch.immediate(msg.index) });
      } finally {
        db.pragma('synchronous = FULL');
      }
    } catch (err) {
      port.postMessage({ indexError: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  try {
    // PASSIVE: copies what no reader still needs and never waits for (or blocks) a writer.
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    port.postMessage({ ok: true, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    port.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
