// The WAL checkpointer thread (db/checkpointer.ts): its own connection to the SQLite file, so the
// checkpoint's page copies and its two fsyncs (WAL before, database after) run here rather than
// inside a COMMIT on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const port = parentPort;
if (!port) throw new Error('checkpointer: not started as a worker thread');
const { file } = workerData as { file: string };
const db = new BetterSqlite3(file);
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// This connection never writes; it must not checkpoint on its own schedule either.
db.pragma('wal_autocheckpoint = 0');
port.postMessage({ ready: true });

port.on('message', (msg: 'checkpoint' | 'close') => {
  if (msg === 'close') {
    db.close();
    port.close();
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
