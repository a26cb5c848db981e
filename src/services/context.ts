import { EventEmitter } from 'node:events';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  assertOutsideTransaction, batchesCommits, inTransactionChain, runTransaction, runTransactionThenSync, writeLockWanted, type Isolation,
} from '../db/open.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Event } from '../contract/events.js';
import type { Mode, Scope } from '../contract/common.js';
import { sleepOrWake } from '../shared/wake.js';
import type { MessageWork } from './message-work.js';
import type { ApiKeyRow } from '../db/repos/api-keys.js';

/** What services need of the configuration (the daemon's Config carries more). */
export interface ServiceConfig {
  /** Agent addresses are <name>@<workspace_slug>.<agentDomain>; the test domain is test.<agentDomain>. */
  agentDomain: string;
  /** Public base URL of this daemon (raw_url, unsubscribe links). */
  publicUrl: string;
  /** Price charged per live message, USD (cost_usd). */
  priceUsdPerMessage: number;
  /** SMTP relay URL for mail to outside addresses, or null (live external sends answer 503). */
  relayUrl: string | null;
  /** Allow webhook URLs on private / loopback addresses. */
  allowPrivateWebhooks: boolean;
  /** Custom sending domains (POST /v1/domains); off → 400 feature_not_enabled. */
  customDomains: boolean;
  dataDir: string;
  version: string;
}

/** In-process notification of committed events (the live stream and the delivery worker listen). */
export class EventBus extends EventEmitter {
  private relayed = false;
  /**
   * Several daemons on one store: every committed event, this daemon's own included, reaches
   * the bus through the store's commit feed (server/event-relay.ts), in commit order; the
   * after-commit publish of the writing daemon is then dropped so nothing is heard twice.
   */
  relayFromStore(): void {
    this.relayed = true;
  }
  publish(event: Event): void {
    if (!this.relayed) this.emit('event', event);
  }
  /** An event read from the store's commit feed. */
  deliver(event: Event): void {
    this.emit('event', event);
  }
}

export interface AppContext {
  config: ServiceConfig;
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  bus: EventBus;
  /** Parse / classify / screen off the main thread (the daemon's worker pool); inline when absent. */
  work?: MessageWork;
  /**
   * The SMTP listener's inbound queue (services/inbound-queue.ts): resolves once the mail
   * acknowledged so far is processed (bounded). Reads of received mail, threads and events await
   * it, so a read that follows a 250 sees the message. Absent: mail is stored before its 250.
   */
  inboundSettled?: () => Promise<void>;
  /**
   * Writes request-log rows on another thread's connection (SQLite: the inbound queue's writer,
   * db/queue-writer.ts writeLogs); resolves once committed. Absent: the main connection writes them.
   */
  writeRequestLog?: (batch: unknown[]) => Promise<void>;
  /**
   * Writes blobs (db/repos/blobs.ts) on the queue writer's thread and connection (SQLite,
   * db/queue-writer.ts writeBlobs), committed without a sync of their own; resolves once committed.
   * The send path writes large attachments with it before its transaction names them. Absent: the
   * transaction writes them in pieces itself.
   */
  writeBlobs?: (blobs: { id: string; data: Uint8Array }[], move: boolean) => Promise<void>;
  /**
   * Set on a context bound to an open transaction (withinTransaction): `db` is that transaction,
   * and inTransaction / groupedTransaction join it under a savepoint.
   */
  enclosing?: Tx;
}

/**
 * A context whose every statement runs in `tx`: for work that must commit or roll back with it as
 * a whole, written against a context (it reads through ctx.db and opens transactions of its own,
 * which join `tx` under a savepoint). The one user: the test address's reply, ingested in the
 * transaction that marks it delivered (server/workers/scheduler.ts). State kept per context
 * (caches, rate windows) is not shared with it; reads through a transaction are not cached anyway.
 */
export function withinTransaction(ctx: AppContext, tx: Tx): AppContext {
  return { ...ctx, db: tx.db, enclosing: tx };
}

/**
 * Wait for acknowledged SMTP mail to be processed (see AppContext.inboundSettled). Never inside a
 * transaction: processing needs the database the transaction holds.
 */
export async function inboundSettled(ctx: AppContext): Promise<void> {
  if (ctx.inboundSettled && !inTransactionChain(ctx.db)) await ctx.inboundSettled();
}

/** The authenticated caller (an API key or a connected app), as every service sees it. */
export interface AuthContext {
  keyId: string;
  workspaceId: string;
  mode: Mode;
  scopes: Scope[];
  agentId: string | null;
  expiresAt: string | null;
  /**
   * Set when the caller is a connected app (an `moa_` access token): the grant id, which is
   * also `keyId`. Spec: Connected apps → some actions answer 403 connected_app_not_allowed.
   */
  connectedAppId?: string | null;
  /** The key's row as authentication read it (GET /v1/me answers from it without a second SELECT). */
  keyRow?: ApiKeyRow;
}

/** A unit of work: the transaction plus callbacks to run once it has committed. */
export interface Tx {
  db: Kysely<Database>;
  afterCommit(fn: () => void): void;
}

let savepoints = 0;

/**
 * Run fn in one short transaction. An event row, its webhook delivery rows and the change
 * that caused them commit together; bus notifications run only after the commit.
 *
 * The transaction is passed explicitly: everything fn does in it goes through `tx.db` (or a helper
 * handed `tx`, or a context bound to it: withinTransaction). Nothing joins it implicitly — a query
 * on `ctx.db` or another inTransaction(ctx) from inside fn would wait for the connection the
 * transaction holds (SQLite) or run beside it (PostgreSQL). Tests run with the check of db/open.ts
 * (MAILAGENT_CHECK_TX=1), which refuses exactly that; the daemon carries no AsyncLocalStorage
 * (its promise hooks cost every request).
 *
 * On a context bound to a transaction (withinTransaction), fn joins it under a savepoint: if fn
 * fails, only its work is undone (and its afterCommit callbacks dropped); otherwise its callbacks
 * wait for the enclosing commit.
 */
export async function inTransaction<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>, opts: { isolation?: Isolation } = {}): Promise<T> {
  const outer = ctx.enclosing;
  if (outer) {
    const name = `sp_${++savepoints}`;
    const inner: (() => void)[] = [];
    await sql.raw(`savepoint ${name}`).execute(outer.db);
    try {
      const value = await fn({ db: outer.db, afterCommit: (f) => inner.push(f) });
      await sql.raw(`release savepoint ${name}`).execute(outer.db);
      for (const f of inner) outer.afterCommit(f);
      return value;
    } catch (err) {
      await sql.raw(`rollback to savepoint ${name}`).execute(outer.db);
      await sql.raw(`release savepoint ${name}`).execute(outer.db);
      throw err;
    }
  }
  assertOutsideTransaction(ctx.db);
  let after: (() => void)[] = [];
  const result = await runTransaction(ctx.db, (trx: Transaction<Database>) => {
    // The storage layer may run this again after a conflict with a concurrent transaction:
    // callbacks queued by a rolled-back attempt are dropped with it.
    after = [];
    return fn({ db: trx, afterCommit: (f) => after.push(f) });
  }, { isolation: opts.isolation });
  for (const f of after) {
    try {
      f();
    } catch (err) {
      ctx.log.error({ err }, 'after-commit callback failed');
    }
  }
  return result;
}

// ---------------------------------------------------------------- group commit

/**
 * Group commit for write paths under load (inbound mail, sends). Every acknowledged write must be
 * on disk (synchronous=FULL), and one fsync per operation caps throughput at the disk's fsync
 * rate. Units queued while a batch is being formed are written in ONE transaction (a failing
 * unit is rolled back alone and rejects alone: see runBatch); each caller resolves only after
 * that transaction has committed and is on disk, and afterCommit callbacks run then, as with
 * inTransaction.
 *
 * better-sqlite3 commits synchronously: during an fsync no other request progresses, so nothing
 * would ever join a batch on its own. Callers therefore *announce* work that is on its way to a
 * grouped transaction (an SMTP message at the end of DATA, a send request once authenticated); a
 * batch waits for announced work to arrive, at most GATHER_MS. With nothing announced it does not
 * wait at all, so a lone request pays no latency.
 */
interface GroupJob {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
  /** The largest batch this unit may share (groupedTransaction's maxGroup). */
  maxGroup: number;
  /** groupedTransaction's holdMs: a batch that has run this long does not start this unit… */
  holdMs: number;
  /** …nor one that has run this many units while another thread's writer waits for the lock (yieldAfter). */
  yieldAfter: number;
}
interface CommitQueue {
  jobs: GroupJob[];
  running: boolean;
  /** Announced units not yet queued. */
  announced: number;
  wake: (() => void) | null;
}
const commitQueues = new WeakMap<AppContext, CommitQueue>();
const MAX_GROUP = 128;
const GATHER_MS = 20;

function commitQueueOf(ctx: AppContext): CommitQueue {
  let q = commitQueues.get(ctx);
  if (!q) commitQueues.set(ctx, (q = { jobs: [], running: false, announced: 0, wake: null }));
  return q;
}

/** Work on its way to groupedTransaction; release() is idempotent. */
export interface WriteAnnouncement {
  release(): void;
}

/** Announce a unit of work that will reach groupedTransaction soon (see above); pass it there. */
export function announceWrite(ctx: AppContext): WriteAnnouncement {
  const q = commitQueueOf(ctx);
  q.announced++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      q.announced--;
      q.wake?.();
    },
  };
}

/**
 * inTransaction, committed together with concurrent units (group commit, above); on a context
 * bound to a transaction (withinTransaction) it joins that one, as inTransaction does.
 * `announced`: the announcement of this unit (announceWrite), released once the unit is queued,
 * so a batch being formed does not wait for it. `isolation` applies where the unit is its own transaction (PostgreSQL: db/open.ts
 * Isolation); a batch (SQLite) has one writer.
 *
 * `opts.maxGroup`: the unit joins a batch of at most this many units (default MAX_GROUP). A batch
 * holds SQLite's write lock for all of its units, and the queue writer's acknowledgements wait for
 * it (and the main thread runs a batch's units without serving anything else).
 *
 * `opts.holdMs`, `opts.yieldAfter` (SQLite): the batch commits before this unit, and the unit goes
 * first into the next batch, once the batch has run holdMs, or has run yieldAfter units while the
 * queue writer's thread waits for the write lock (db/open.ts writeLockWanted). So inbound
 * processing stores large batches (one COMMIT for many messages) while no acknowledgement waits,
 * and a waiting acknowledgement waits for at most yieldAfter units and a COMMIT, not for the whole
 * batch (services/inbound-queue.ts STORE_GROUP_MAX). Default: no limit. A batch's first unit always runs.
 */
export function groupedTransaction<T>(
  ctx: AppContext, fn: (tx: Tx) => Promise<T>, announced?: WriteAnnouncement,
  opts: { isolation?: Isolation; maxGroup?: number; holdMs?: number; yieldAfter?: number } = {},
): Promise<T> {
  // Bound to a transaction: join it. On a storage engine whose concurrent transactions already
  // share their commit flushes, each unit is simply its own transaction.
  if (ctx.enclosing || !batchesCommits(ctx.db)) {
    announced?.release();
    return inTransaction(ctx, fn, opts);
  }
  assertOutsideTransaction(ctx.db);
  const q = commitQueueOf(ctx);
  return new Promise<T>((resolve, reject) => {
    q.jobs.push({
      fn, resolve: resolve as (v: unknown) => void, reject,
      maxGroup: Math.max(1, Math.min(MAX_GROUP, opts.maxGroup ?? MAX_GROUP)),
      holdMs: opts.holdMs ?? Infinity, yieldAfter: Math.max(1, opts.yieldAfter ?? Infinity),
    });
    announced?.release();
    q.wake?.();
    if (!q.running) void flushGroup(ctx, q);
  });
}

/**
 * Yield once (setImmediate runs after the I/O callbacks already due, so requests that have
 * arrived are handled and queue their units), then wait until nothing announced is outstanding,
 * the batch is full, or GATHER_MS has passed.
 */
async function gatherGroup(q: CommitQueue): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  const deadline = performance.now() + GATHER_MS;
  while (q.announced > 0 && q.jobs.length < MAX_GROUP) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    await sleepOrWake(left, (w) => (q.wake = w));
  }
}

/** Raised inside a batch run without savepoints when one unit fails: the batch is run again. */
class UnitFailed {
  constructor(readonly index: number, readonly err: unknown) {}
}

interface UnitDone {
  job: GroupJob;
  value: unknown;
  after: (() => void)[];
}

/**
 * One batch in one transaction. `isolated`: every unit in its own savepoint, so a failing unit
 * is undone alone. Otherwise units run back to back with no savepoint (a savepoint is not free:
 * SQLite journals every page a unit touches again, and FTS5 flushes its pending index entries at
 * each one, one index segment per message instead of one per batch); the first unit that fails
 * aborts the whole transaction with UnitFailed, and the caller runs the others again, isolated.
 * Units may run more than once either way (as on PostgreSQL, runTransaction): they keep their
 * effects inside the transaction and defer the rest to afterCommit.
 */
interface BatchResult {
  done: UnitDone[];
  failed: { job: GroupJob; err: unknown }[];
  /** Units not started: the batch committed before them (GroupJob.holdMs); they lead the next batch. */
  unrun: GroupJob[];
  /** Resolves once the batch's commit is on disk; rejects if that is not known. */
  durable: Promise<void>;
}

async function runBatch(ctx: AppContext, batch: GroupJob[], isolated: boolean): Promise<BatchResult> {
  let done: UnitDone[] = [];
  let failed: { job: GroupJob; err: unknown }[] = [];
  let unrun: GroupJob[] = [];
  const { durable } = await runTransactionThenSync(ctx.db, async (trx: Transaction<Database>) => {
    done = [];
    failed = [];
    unrun = [];
    const start = performance.now();
    for (const [i, job] of batch.entries()) {
      if (i > 0 && ((i >= job.yieldAfter && writeLockWanted(ctx.db)) || (job.holdMs !== Infinity && performance.now() - start >= job.holdMs))) {
        unrun = batch.slice(i);
        break;
      }
      const after: (() => void)[] = [];
      const tx: Tx = { db: trx, afterCommit: (f) => after.push(f) };
      if (!isolated) {
        try {
          done.push({ job, value: await job.fn(tx), after });
        } catch (err) {
          throw new UnitFailed(i, err);
        }
        continue;
      }
      await sql.raw('savepoint group_unit').execute(trx);
      try {
        const value = await job.fn(tx);
        await sql.raw('release savepoint group_unit').execute(trx);
        done.push({ job, value, after });
      } catch (err) {
        await sql.raw('rollback to savepoint group_unit').execute(trx);
        await sql.raw('release savepoint group_unit').execute(trx);
        failed.push({ job, err });
      }
    }
    // Durable before any unit resolves (flushGroup waits for `durable`), but flushed on the
    // thread pool (db/open.ts CommitSync): requests keep being read, validated and queued, and
    // the next batch written, during the fsync.
  });
  return { done, failed, unrun, durable };
}

/** How many of the queued units (oldest first) the next batch takes: none past any taken unit's maxGroup. */
function batchSize(jobs: GroupJob[]): number {
  let cap = MAX_GROUP;
  let n = 0;
  while (n < jobs.length && n < cap) {
    cap = Math.min(cap, jobs[n].maxGroup);
    if (n >= cap) break;
    n++;
  }
  return Math.max(1, n);
}

async function flushGroup(ctx: AppContext, q: CommitQueue): Promise<void> {
  q.running = true;
  try {
    while (q.jobs.length) {
      await gatherGroup(q);
      let batch = q.jobs.splice(0, batchSize(q.jobs));
      let result: BatchResult;
      const early: { job: GroupJob; err: unknown }[] = [];
      try {
        try {
          // A lone unit needs no savepoint either way: its failure is the transaction's.
          result = await runBatch(ctx, batch, false);
        } catch (err) {
          if (!(err instanceof UnitFailed)) throw err;
          early.push({ job: batch[err.index], err: err.err });
          batch = batch.filter((_, i) => i !== err.index);
          result = batch.length ? await runBatch(ctx, batch, true) : { done: [], failed: [], unrun: [], durable: Promise.resolve() };
        }
      } catch (err) {
        for (const e of early) e.job.reject(e.err);
        for (const job of batch) job.reject(err);
        continue;
      }
      for (const f of [...early, ...result.failed]) f.job.reject(f.err);
      // Cut short (holdMs): the rest leads the next batch, in order.
      if (result.unrun.length) q.jobs.unshift(...result.unrun);
      // Committed, not yet on disk: the units resolve (and their afterCommit callbacks run) once
      // the flush is done, while the loop goes on to gather and write the next batch — two
      // cohorts of requests alternate between writing and waiting for their flush. A later
      // batch's flush starts after this one's (db/open.ts walSyncer), so units resolve in order.
      const { done } = result;
      result.durable.then(() => {
        for (const d of done) {
          for (const f of d.after) {
            try {
              f();
            } catch (err) {
              ctx.log.error({ err }, 'after-commit callback failed');
            }
          }
          d.job.resolve(d.value);
        }
      }, (err: unknown) => {
        for (const d of done) d.job.reject(err);
      });
    }
  } finally {
    q.running = false;
  }
}
