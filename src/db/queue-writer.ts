import { Worker } from 'node:worker_threads';
import { HELPER_THREAD_YOUNG_MB, ThreadHeapRequests, type ThreadHeap } from '../shared/thread-heap.js';
import { workerEntry } from '../shared/worker-entry.js';
import type { WriteGate } from './open.js';

/** Atomics.waitAsync (Node ≥ 16; not in this project's TypeScript lib). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number, t: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** Whether a view covers all of its memory (so it can be moved to another thread). */
const owns = (u: Uint8Array): boolean => u.byteOffset === 0 && u.byteLength === u.buffer.byteLength && !(u.buffer instanceof SharedArrayBuffer);

/** One row of inbound_queue as the writer thread inserts it (migration 0017). */
export interface QueueWriterRow {
  id: string;
  received_at: string;
  mail_from: string;
  rcpt_to: string;
  message_ids: string;
  remote_address: string | null;
  helo: string | null;
  /** The message, whole or in pieces (in order). */
  raw: Uint8Array | Uint8Array[];
}
/** A byte string to store as a blob (repos/blobs.ts) on the writer's connection. */
export interface QueueWriterBlob { id: string; data: Uint8Array }
/** A row of `logs` (the request log: services/request-log.ts), metadata already JSON. */
export type QueueWriterRequest =
  | { seq: number; rows: QueueWriterRow[]; blobs?: undefined; logs?: undefined }
  | { seq: number; blobs: QueueWriterBlob[]; rows?: undefined; logs?: undefined }
  /** Request-log values, flat (db/request-log-rows.ts): the rows are built on the writer's thread. */
  | { seq: number; logs: unknown[]; rows?: undefined; blobs?: undefined };
export type QueueWriterReply = { seqs: number[]; ok: true } | { seqs: number[]; ok: false; error: string } | { heap: ThreadHeap };

/**
 * SQLite only: inserts into inbound_queue on a second connection in a worker thread. better-sqlite3
 * commits synchronously, so on the main connection every acknowledgement's fsync (1-3 ms) would
 * stop the whole daemon; here it stops only this thread, and rows that arrive meanwhile share the
 * next commit. WAL lets the two connections work side by side (one writer at a time: each waits
 * for the other's commit through busy_timeout). A row is acknowledged only once its commit
 * returned.
 */
export class QueueWriter {
  private readonly worker: Worker;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;
  private readonly started: Promise<void>;
  /**
   * [0]: 0 free, 1 held: one writer at a time between this thread's transactions and the writer's.
   * [1]: 1 while the writer thread waits for [0] (its acknowledgements are blocked behind the main
   * thread's transaction): a long batch of the main thread cuts itself short (gate.contended), and
   * the main thread's next transaction lets the writer have the lock first (gate.acquire).
   */
  private readonly lock = new Int32Array(new SharedArrayBuffer(8));

  /**
   * The gate the main connection's transactions take (db/open.ts setWriteGate): acquired without
   * blocking the event loop (Atomics.waitAsync), so while the writer commits, the main thread
   * keeps serving and only its next transaction waits.
   */
  readonly gate: WriteGate = {
    acquire: async () => {
      for (;;) {
        // The writer thread waiting for the lock goes first (its acknowledgements wait): a main
        // thread's transaction that ended for it (groupedTransaction yieldAfter) must not take the
        // lock straight back before that thread has woken.
        if (!this.dead && Atomics.load(this.lock, 1) !== 0) {
          const w = waitAsync(this.lock, 1, 1, 100);
          if (w.async) await w.value;
          continue;
        }
        if (Atomics.compareExchange(this.lock, 0, 0, 1) === 0) return;
        const w = waitAsync(this.lock, 0, 1, 100);
        if (w.async) await w.value;
      }
    },
    release: () => {
      Atomics.store(this.lock, 0, 0);
      Atomics.notify(this.lock, 0);
    },
    contended: () => Atomics.load(this.lock, 1) !== 0,
  };

  constructor(file: string) {
    const entry = workerEntry(import.meta.url, 'queue-writer-thread');
    this.worker = new Worker(entry.script, {
      eval: entry.eval, workerData: { file, lock: this.lock.buffer }, stdout: false, stderr: false,
      resourceLimits: { maxYoungGenerationSizeMb: HELPER_THREAD_YOUNG_MB },
    });
    this.worker.unref();
    const booted = (w: Worker, what: string) => new Promise<void>((resolve, reject) => {
      w.once('message', () => resolve());
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`${what} exited with code ${code}`)));
    });
    this.started = booted(this.worker, 'queue writer');
    this.worker.on('message', (m: QueueWriterReply | 'ready') => {
      if (m === 'ready') return;
      if ('heap' in m) {
        this.heapRequests.answer(m.heap);
        return;
      }
      for (const s of m.seqs) {
        const w = this.waiting.get(s);
        this.waiting.delete(s);
        if (!w) continue;
        if (m.ok) w.resolve();
        else w.reject(new Error(`inbound queue write failed: ${m.error}`));
      }
    });
    const fail = (err: Error) => {
      this.dead ??= err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`queue writer exited with code ${code}`)));
  }

  private readonly heapRequests = new ThreadHeapRequests(() => this.worker.postMessage('heap'));

  /** The thread's V8 heap (its own isolate; /metrics), or null if it does not answer within waitMs. */
  heap(waitMs = 1000): Promise<ThreadHeap | null> {
    return this.dead ? Promise.resolve(null) : this.heapRequests.request(waitMs);
  }

  /** Resolves once the thread has opened the database (a broken install fails the boot). */
  ready(): Promise<void> {
    return this.started;
  }

  /** Whether the thread still runs (a dead writer's caller falls back to the main connection). */
  alive(): boolean {
    return this.dead === null;
  }

  /**
   * Insert one row; resolves after its commit. A raw buffer that owns its whole memory is moved
   * to the thread rather than copied (the caller must not use it afterwards).
   */
  insert(row: QueueWriterRow): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    // The rows inserted by one callback (with its microtasks) go over in one message: one wake-up of
    // the thread and one postMessage for them; the thread commits every row that reached it
    // together anyway, so they succeed or fail together as before. Posted at the end of the
    // callback (a microtask), not of the event-loop turn (setImmediate): waiting for the rest of a
    // busy turn put 4-12 ms on the p99 of end of DATA -> 250 (bench/README.md, session 6).
    if (!this.turnRows) {
      const rows: QueueWriterRow[] = [];
      this.turnRows = rows;
      this.turnDone = new Promise<void>((resolve, reject) => {
        queueMicrotask(() => {
          this.turnRows = null;
          if (this.dead) {
            reject(this.dead);
            return;
          }
          const seq = ++this.seq;
          // A pooled Buffer (small messages share one ArrayBuffer) is copied; a large one moved.
          const move = rows.flatMap((r) => (Array.isArray(r.raw) ? r.raw : [r.raw])).filter((p) => owns(p) && p.byteLength > 64 * 1024).map((p) => p.buffer as ArrayBuffer);
          this.waiting.set(seq, { resolve, reject });
          this.worker.postMessage({ seq, rows } satisfies QueueWriterRequest, [...new Set(move)]);
        });
      });
    }
    this.turnRows.push(row);
    return this.turnDone!;
  }

  /** Rows inserted during this callback, posted together at its end (insert). */
  private turnRows: QueueWriterRow[] | null = null;
  private turnDone: Promise<void> | null = null;

  /**
   * Store blobs (replacing any of the same id) on the writer's connection, committed without a
   * sync of their own: the transaction that references them syncs the WAL, which holds these
   * pages too. Large byte strings are thus written by this thread, not by the main thread, whose
   * every write() of them could stall it (the kernel throttles a writer of much dirty data).
   * Buffers that own their memory are moved, not copied (the caller must not use them afterwards).
   */
  writeBlobs(blobs: QueueWriterBlob[], move: boolean): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    const seq = ++this.seq;
    const transfer = move ? blobs.map((b) => b.data).filter(owns).map((d) => d.buffer as ArrayBuffer) : [];
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.postMessage({ seq, blobs } satisfies QueueWriterRequest, [...new Set(transfer)]);
    });
  }

  /**
   * Insert request-log rows on the writer's connection (services/request-log.ts): the rows are
   * built from the flat batch of values (db/request-log-rows.ts) and inserted on that thread, off
   * the main thread. Committed without a sync of their own, like the main connection's
   * request-log batches (db/open.ts CommitSync 'none'); resolves once committed.
   */
  writeLogs(logs: unknown[]): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    const seq = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.postMessage({ seq, logs } satisfies QueueWriterRequest);
    });
  }

  async close(): Promise<void> {
    if (this.dead) return;
    const exit = new Promise((r) => this.worker.once('exit', r));
    this.worker.postMessage('close');
    await exit;
  }
}
