import { Worker } from 'node:worker_threads';
import { workerEntry } from '../shared/worker-entry.js';
import { HELPER_THREAD_YOUNG_MB, ThreadHeapRequests, type ThreadHeap } from '../shared/thread-heap.js';

/** How often the main thread looks whether anything was written since the last checkpoint. */
const CHECK_EVERY_MS = 100;
/**
 * Other connections write the file without moving the main connection's counter (the inbound
 * queue's writer thread, db/queue-writer.ts, which never checkpoints itself): a checkpoint runs at
 * least this often whatever the counter says. With nothing new in the WAL it only reads the WAL index.
 */
const CHECK_ANYWAY_MS = 1_000;

type Reply = { ready: true } | { ok: true; log: number; checkpointed: number } | { ok: false; error: string }
  | { indexed: number } | { indexError: string } | { heap: ThreadHeap };

/**
 * SQLite WAL checkpoints on a worker thread (the daemon's, db/open.ts checkpointOffThread). With
 * SQLite's default, a COMMIT that takes the WAL past 1,000 pages copies them into the database
 * file and fsyncs it twice, on the thread that committed: the main thread, every few group
 * commits (measured: the main thread's fsyncs and half its pwrite calls under a send load). Here
 * the main connection runs with wal_autocheckpoint=0 and this thread's connection runs a PASSIVE
 * checkpoint every CHECK_EVERY_MS that something was written (and every CHECK_ANYWAY_MS in any case,
 * for the other connections' writes). It is the daemon's only checkpointer: the inbound queue's
 * writer thread leaves checkpoints to it. Durability is unchanged: a checkpoint
 * syncs the WAL before copying and the database after, whichever connection runs it.
 *
 * If the thread dies, `onDead` restores automatic checkpoints on the main connection.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly timer: NodeJS.Timeout;
  private inFlight = false;
  private lastWrites = -1;
  private lastRun = 0;
  private dead = false;
  /** indexSearch() calls in flight, answered in order. */
  private readonly indexing: { resolve: (n: number) => void; reject: (err: Error) => void }[] = [];
  private readonly started: Promise<void>;
  /** Checkpoints run and failed, pages in the WAL after the last one (tests, diagnostics). */
  readonly stats = { runs: 0, failures: 0, walPages: 0 };

  constructor(file: string, private readonly writes: () => number, private readonly onDead: (err: Error) => void) {
    const entry = workerEntry(import.meta.url, 'checkpointer-thread');
    this.worker = new Worker(entry.script, {
      eval: entry.eval, workerData: { file }, stdout: false, stderr: false,
      resourceLimits: { maxYoungGenerationSizeMb: HELPER_THREAD_YOUNG_MB },
    });
    this.worker.unref();
    this.started = new Promise((resolve, reject) => {
      this.worker.once('message', () => resolve());
      this.worker.once('error', reject);
    });
    this.worker.on('message', (m: Reply) => {
      if ('ready' in m) return;
      if ('heap' in m) {
        this.heapRequests.answer(m.heap);
        return;
      }
      if ('indexed' in m || 'indexError' in m) {
        const job = this.indexing.shift();
        if ('indexed' in m) job?.resolve(m.indexed);
        else job?.reject(new Error(`search index batch failed: ${m.indexError}`));
        return;
      }
      this.inFlight = false;
      this.stats.runs++;
      if (m.ok) this.stats.walPages = m.log;
      else this.stats.failures++;
    });
    const fail = (err: Error) => {
      for (const job of this.indexing.splice(0)) job.reject(err);
      if (this.dead) return;
      this.dead = true;
      clearInterval(this.timer);
      this.onDead(err);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`checkpointer exited with code ${code}`)));
    this.timer = setInterval(() => this.tick(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  ready(): Promise<void> {
    return this.started;
  }

  private readonly heapRequests = new ThreadHeapRequests(() => this.worker.postMessage('heap'));

  /** The thread's V8 heap (/metrics mailagent_thread_heap_bytes), or null if it does not answer within waitMs. */
  heap(waitMs = 1000): Promise<ThreadHeap | null> {
    return this.dead ? Promise.resolve(null) : this.heapRequests.request(waitMs);
  }

  /**
   * Index up to `limit` messages of the search queue on this thread's connection, in one
   * transaction (db/search-index.ts; db/search-index-sql.ts). The caller holds the database's
   * write lock (db/open.ts withWriteLock) while it runs, so no other connection is writing and
   * nobody waits in SQLite's busy handler. Resolves with the number indexed.
   */
  indexSearch(limit: number): Promise<number> {
    if (this.dead) return Promise.reject(new Error('checkpointer thread is not running'));
    return new Promise((resolve, reject) => {
      this.indexing.push({ resolve, reject });
      this.worker.postMessage({ index: limit });
    });
  }

  /** Whether the thread is up and can take work (indexSearch). */
  get alive(): boolean {
    return !this.dead;
  }

  /** Ask for a checkpoint now if anything was written since the last one (and none is running). */
  tick(): void {
    if (this.dead || this.inFlight) return;
    const w = this.writes();
    const now = Date.now();
    if (w === this.lastWrites && now - this.lastRun < CHECK_ANYWAY_MS) return;
    this.lastWrites = w;
    this.lastRun = now;
    this.inFlight = true;
    this.worker.postMessage('checkpoint');
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.dead) return;
    this.dead = true;
    const exited = new Promise((r) => this.worker.once('exit', r));
    // Referenced while it closes: an unreferenced thread still booting (a daemon stopped right
    // after create, e.g. its port in use) would let the process exit with this wait unsettled.
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }
}
