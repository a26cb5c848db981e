import { Worker } from 'node:worker_threads';
import type { Logger } from '../../shared/log.js';
import type { ThreadHeap } from '../../shared/thread-heap.js';
import { workerEntry } from '../../shared/worker-entry.js';
import type { FromWorker, Job } from './protocol.js';

/** The job ran past its budget; its worker was terminated and replaced. */
export class BudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`over its ${budgetMs} ms budget`);
  }
}

/** The worker died under the job (an uncaught error, out of memory) or the job itself failed. */
export class WorkerFailed extends Error {}

/** The pool is closed (the daemon is stopping): the caller answers a temporary failure. */
export class PoolClosed extends Error {
  constructor() {
    super('the pipeline pool is closed');
  }
}

export interface PoolOptions {
  /** Worker threads at most. */
  size: number;
  /**
   * Workers started with the pool (default: `size`); the others start one at a time, only when
   * mail waits behind busy workers (growAfterHeldMs, growAfterWaitMs), and then stay. Each worker is an
   * isolate of its own (~20–25 MB resident with its copy of the parser and the classifier).
   * See watchWaiting.
   */
  startSize?: number;
  /** A job that has held its worker this long, with jobs waiting and no worker free, starts another (default GROW_AFTER_HELD_MS). */
  growAfterHeldMs?: number;
  /** A job that has waited this long for a worker, none free, starts another (default: budgetMs). */
  growAfterWaitMs?: number;
  /** Jobs a worker answers before growAfterHeldMs counts for it (default GROW_WARM_JOBS): its first jobs run while V8 still compiles its code. */
  growWarmJobs?: number;
  /** Hard limit on one job's wall time in a worker, ms. */
  budgetMs: number;
  /** V8 old-generation heap cap per worker, MB (a message that needs more kills only its worker). */
  maxHeapMb: number;
  /**
   * V8 young-generation cap per worker, MB. V8 grows a busy isolate's new space to 32 MB (two
   * 16 MB semi-spaces) and keeps it; a worker's garbage per message is small and short-lived, so
   * a small new space costs a few more scavenges and saves that memory per worker. Big objects
   * (a message's bytes, long strings) live in the large-object space and are not limited by it.
   */
  maxYoungMb?: number;
  log: Logger;
  /** The worker entry (tests); default: worker.js beside this file, or worker.ts under tsx/vitest. */
  workerUrl?: URL;
}

export interface PoolStats {
  /** Workers started (the pool grows to `max` when mail waits: PoolOptions.startSize). */
  size: number;
  max: number;
  busy: number;
  queued: number;
  jobs: number;
  overruns: number;
  crashes: number;
  restarts: number;
}

interface Pending {
  id: number;
  job: Job;
  /** performance.now() when queued: how long it waited (grow). */
  queuedAt: number;
  resolve: (v: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Terminated by the pool (budget, close) or exited: ignore its later events. */
  gone: boolean;
  current: Pending | null;
  /** performance.now() when `current` started (watchWaiting). */
  startedAt: number;
  /** Jobs it answered (watchWaiting: growWarmJobs). */
  answered: number;
  /** Jobs sent with `current` in one message, to run after it, in order. */
  next: Pending[];
  timer: NodeJS.Timeout | null;
}

/** Jobs sent to a worker in one message at most (dispatch). */
const MAX_BATCH = 8;
/** A parse job over this many bytes is sent alone: the small jobs of a batch must not wait behind it. */
const BATCH_MAX_BYTES = 64 * 1024;
/** PoolOptions.growAfterHeldMs's default. */
export const GROW_AFTER_HELD_MS = 1_000;
/**
 * PoolOptions.growWarmJobs's default. A new worker's first jobs are slow while V8 compiles the
 * parser and the classifier (for ~2,000 messages: bench/README.md, round 2 session 10); on a loaded
 * machine one took over a second, and the pool started its second worker in the first burst of
 * ordinary mail (round 2 session 14).
 */
export const GROW_WARM_JOBS = 1_000;

/**
 * A pool of up to `size` worker threads for CPU-heavy, side-effect-free jobs, `startSize` of them
 * started at once and the rest when jobs wait for one (grow). One job per worker at
 * a time, FIFO queue; jobs queued in the same turn of the event loop are sent to a worker several
 * in one message (dispatch), run one after another there, each answered and timed on its own. A
 * job that outlives its budget has its worker terminated (the only way to stop synchronous work)
 * and replaced; the job rejects with BudgetExceeded. Nothing a worker does has side effects, so
 * killing it mid-job loses nothing.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private readonly entry: { script: string; eval: boolean };
  private readonly counters = { jobs: 0, overruns: 0, crashes: 0, restarts: 0 };
  private bootFailures = 0;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly heapWaiters = new Map<number, (h: ThreadHeap) => void>();
  private dispatchSoon = false;
  private growTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: PoolOptions) {
    this.entry = workerEntry(import.meta.url, 'worker', opts.workerUrl);
    const start = Math.max(1, Math.min(opts.size, opts.startSize ?? opts.size));
    for (let i = 0; i < start; i++) this.slots.push(this.spawn());
  }

  get budgetMs(): number {
    return this.opts.budgetMs;
  }

  /**
   * Resolves once every worker has started (the daemon waits, so a broken install fails at boot):
   * rejects after three workers in a row died before they were ready, or after `timeoutMs` (a
   * worker that hangs while it loads would otherwise hold the start-up forever).
   */
  ready(timeoutMs = 60_000): Promise<void> {
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.readyWaiters = this.readyWaiters.filter((w) => w !== waiter);
        reject(new WorkerFailed(`pipeline workers did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: () => { clearTimeout(timer); resolve(); },
        reject: (e: Error) => { clearTimeout(timer); reject(e); },
      };
      this.readyWaiters.push(waiter);
    });
  }

  stats(): PoolStats {
    return {
      size: this.slots.length, max: this.opts.size, busy: this.slots.filter((s) => s.current).length, queued: this.queue.length, ...this.counters,
    };
  }

  /**
   * Each worker's V8 heap (its own isolate), in slot order; null for a worker that is starting, or
   * busy past `waitMs` (a worker answers between jobs, so a long job delays its answer).
   */
  heap(waitMs = 1000): Promise<(ThreadHeap | null)[]> {
    return Promise.all(this.slots.map((slot) => {
      if (!slot.ready || slot.gone) return null;
      const id = this.nextId++;
      return new Promise<ThreadHeap | null>((resolve) => {
        const timer = setTimeout(() => {
          this.heapWaiters.delete(id);
          resolve(null);
        }, waitMs);
        this.heapWaiters.set(id, (h) => {
          clearTimeout(timer);
          resolve(h);
        });
        slot.worker.postMessage({ heap: id });
      });
    }));
  }

  /** Run one job; rejects with BudgetExceeded, WorkerFailed or PoolClosed. */
  run(job: Job): Promise<unknown> {
    if (this.closed) return Promise.reject(new PoolClosed());
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, queuedAt: performance.now(), resolve, reject });
      // Dispatched once the jobs of this turn are queued (the inbound queue prepares the messages
      // of one acknowledged batch together): one message wakes a worker for several of them
      // instead of one wake-up each, the main thread's cost of waking a thread on a busy machine.
      if (this.dispatchSoon) return;
      this.dispatchSoon = true;
      setImmediate(() => {
        this.dispatchSoon = false;
        this.dispatch();
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.growTimer) clearTimeout(this.growTimer);
    this.growTimer = null;
    for (const p of this.queue.splice(0)) p.reject(new PoolClosed());
    for (const w of this.readyWaiters.splice(0)) w.reject(new PoolClosed());
    for (const s of this.slots) for (const p of s.next.splice(0)) p.reject(new PoolClosed());
    await Promise.allSettled(this.slots.map((s) => this.retire(s, new PoolClosed())));
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry.script, {
      eval: this.entry.eval,
      resourceLimits: {
        maxOldGenerationSizeMb: this.opts.maxHeapMb,
        ...(this.opts.maxYoungMb ? { maxYoungGenerationSizeMb: this.opts.maxYoungMb } : {}),
      },
      stdout: false,
      stderr: false,
    });
    // A pool left open must not keep the process alive; a running job's budget timer does.
    worker.unref();
    const slot: Slot = { worker, ready: false, gone: false, current: null, startedAt: 0, answered: 0, next: [], timer: null };
    worker.on('message', (msg: FromWorker) => {
      if (slot.gone) return;
      if ('ready' in msg) {
        slot.ready = true;
        this.bootFailures = 0;
        if (this.slots.every((s) => s.ready)) for (const w of this.readyWaiters.splice(0)) w.resolve();
        this.dispatch();
        return;
      }
      if ('heap' in msg) {
        const w = this.heapWaiters.get(msg.heap);
        this.heapWaiters.delete(msg.heap);
        w?.(msg.stats);
        return;
      }
      const p = slot.current;
      if (!p || p.id !== msg.id) return;
      slot.answered++;
      this.release(slot);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new WorkerFailed(msg.error));
      // The next job of its batch has started in the worker: its budget runs from now.
      if (slot.next.length) this.start(slot, slot.next.shift()!);
      else this.dispatch();
    });
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', (code) => this.lost(slot, new Error(`worker exited with code ${code}`)));
    return slot;
  }

  /** A worker died on its own (uncaught error, out of memory, exit): fail its job, replace it. */
  private lost(slot: Slot, err: Error): void {
    if (slot.gone) return;
    slot.gone = true;
    const p = slot.current;
    this.release(slot);
    if (!slot.ready) this.bootFailures++;
    this.counters.crashes++;
    this.opts.log.warn({ err: err.message }, 'pipeline: a worker stopped; starting another');
    if (p) p.reject(new WorkerFailed(`the worker stopped: ${err.message}`));
    // The rest of its batch never ran: first in line for another worker.
    this.queue.unshift(...slot.next.splice(0));
    if (this.bootFailures >= 3) {
      // The entry cannot start (a broken install): say so instead of looping.
      const e = new WorkerFailed(`pipeline workers fail to start: ${err.message}`);
      for (const w of this.readyWaiters.splice(0)) w.reject(e);
      for (const q of this.queue.splice(0)) q.reject(e);
    }
    this.replace(slot);
  }

  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i === -1 || this.closed) return;
    this.counters.restarts++;
    this.slots[i] = this.spawn();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.current = null;
  }

  private async retire(slot: Slot, reason: Error): Promise<void> {
    slot.gone = true;
    const p = slot.current;
    this.release(slot);
    if (p) p.reject(reason);
    await slot.worker.terminate().catch(() => undefined);
  }

  /**
   * Hand the queue to idle workers, one idle worker filled first (the last slot), up to MAX_BATCH
   * small jobs per message (a large parse goes alone); the next idle worker takes what is left. A batch's jobs are
   * run in order; each has the whole budget from the moment the one before it was answered, and an
   * overrun or a crash sends the batch's jobs that had not started back to the front of the queue.
   *
   * Filled in order rather than shared out evenly: each worker is an isolate of its own, which
   * compiles (V8's tiers) and collects its own copy of the parser and the classifier, and a
   * worker's code reaches its fast tier after a number of jobs *it* ran (bench/README.md, round 2
   * session 11). Shared out evenly, every worker ran every round's few jobs, each warmed at the
   * pace of 1/size of the mail and woke for each round; filled in order, one worker takes
   * rounds of up to MAX_BATCH alone and the others take what arrives while it is busy (a burst, a
   * job that holds it), as before.
   */
  private dispatch(): void {
    this.fill();
    this.watchWaiting();
  }

  private fill(): void {
    // Counted on the most workers the pool may have, so the rounds' slots do not move as it grows.
    const authSlots = authWorkers(this.opts.size);
    // The last slot first: the first authWorkers() slots are the only ones that take SPF/DKIM/DMARC
    // rounds, so they are the ones left for the overflow.
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i];
      if (!this.queue.length) return;
      if (!slot.ready || slot.gone || slot.current) continue;
      // SPF/DKIM/DMARC rounds only on the first authWorkers() slots (see there); the other jobs anywhere.
      const mayRun = (p: Pending) => p.job.kind !== 'auth' || i < authSlots;
      const first = this.queue.findIndex(mayRun);
      if (first === -1) continue;
      const take = MAX_BATCH;
      const batch = this.queue.splice(first, 1);
      while (batch.length < take && batchable(batch[0].job)) {
        const j = this.queue.findIndex(mayRun);
        if (j === -1 || !batchable(this.queue[j].job)) break;
        batch.push(...this.queue.splice(j, 1));
      }
      slot.next = batch.slice(1);
      this.start(slot, batch[0]);
      slot.worker.postMessage({ jobs: batch.map((p) => ({ id: p.id, job: p.job })) });
    }
  }

  /**
   * Jobs still queued after dispatch, no started worker free and none starting: start one more
   * worker (up to `size`) once a started worker's job has held it growAfterHeldMs (a message that
   * holds its worker: the mail behind it goes to another; not counted in a worker's first
   * growWarmJobs jobs), or the oldest queued job has waited
   * growAfterWaitMs (more mail than the started workers keep up with). Checked again after each
   * start, so a pool grows one worker at a time for as long as that lasts. Not on a shorter wait:
   * on a loaded machine a worker can go unscheduled for hundreds of milliseconds while it keeps up.
   */
  private watchWaiting(): void {
    if (this.growTimer || this.closed || !this.queue.length || this.slots.length >= this.opts.size) return;
    if (this.slots.some((s) => !s.gone && (!s.ready || !s.current))) return;
    const heldMs = this.opts.growAfterHeldMs ?? GROW_AFTER_HELD_MS;
    const waitMs = this.opts.growAfterWaitMs ?? this.opts.budgetMs;
    const warm = this.opts.growWarmJobs ?? GROW_WARM_JOBS;
    const due = () => Math.min(
      Math.min(...this.slots.map((s) => (s.answered >= warm ? s.startedAt + heldMs : Infinity))),
      Math.min(...this.queue.slice(0, 64).map((p) => p.queuedAt)) + waitMs,
    );
    this.growTimer = setTimeout(() => {
      this.growTimer = null;
      if (this.closed || !this.queue.length || this.slots.length >= this.opts.size) return;
      if (this.slots.some((s) => !s.gone && (!s.ready || !s.current))) return this.watchWaiting();
      if (performance.now() < due()) return this.watchWaiting();
      this.opts.log.info({ workers: this.slots.length + 1, max: this.opts.size }, 'pipeline: mail waits behind busy workers; starting another');
      this.slots.push(this.spawn());
    }, Math.max(0, due() - performance.now()));
    // Mail waiting keeps the process busy anyway; the timer alone must not keep it alive.
    this.growTimer.unref();
  }

  /** `p` runs in the slot's worker from now, under the budget. */
  private start(slot: Slot, p: Pending): void {
    slot.current = p;
    slot.startedAt = performance.now();
    this.counters.jobs++;
    slot.timer = setTimeout(() => {
      // Synchronous work cannot be interrupted any other way: terminate, then replace.
      this.counters.overruns++;
      this.queue.unshift(...slot.next.splice(0));
      void this.retire(slot, new BudgetExceeded(this.opts.budgetMs));
      this.replace(slot);
      this.dispatch();
    }, this.opts.budgetMs);
  }
}

/**
 * How many workers (the first ones) run SPF/DKIM/DMARC rounds: one per four workers, at least one.
 * A worker loads mailauth on its first round (~8 MB of heap it keeps: mail/auth-check.ts); with
 * every worker taking rounds, every worker would hold a copy. The rounds are short (a header parse,
 * a body hash, a few signature checks) next to a parse and classification, so one worker in four
 * keeps up; a round waits at most for that worker's current job (bounded by the budget).
 */
export function authWorkers(size: number): number {
  return Math.max(1, Math.floor(size / 4));
}

/** Whether a job may share a message with others (dispatch). */
function batchable(job: Job): boolean {
  // An HTML render may take its whole budget: it goes alone.
  if (job.kind === 'sanitize') return false;
  if (job.kind === 'parse') return job.raw.byteLength <= BATCH_MAX_BYTES;
  if (job.kind === 'auth') return !job.input || job.input.raw.byteLength <= BATCH_MAX_BYTES;
  return true;
}
