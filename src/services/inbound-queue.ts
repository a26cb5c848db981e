import {
  allQueuedIds, claimableIds, countQueued, deferQueued, insertQueued, leaseQueued, queuedByIds, readQueuedRaw, type QueuedInbound,
} from '../db/repos/inbound-queue.js';
import { isSharedStore, setWriteGate, withTransactionKind } from '../db/open.js';
import { QueueWriter } from '../db/queue-writer.js';
import type { ThreadHeap } from '../shared/thread-heap.js';
import { BLOB_CHUNK_BYTES, isLarge, yieldTurn } from '../db/repos/blobs.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { announceWrite, groupedTransaction, inTransaction, type AppContext, type WriteAnnouncement } from './context.js';
import { AlreadyProcessed, prepareIngest, routeRecipient, type InboundInput } from './inbound.js';
import type { Tx } from './context.js';
import { splitPlus } from './plus-addresses.js';

/**
 * The inbound queue: acknowledge SMTP mail once its raw bytes are on disk, process it right after
 * (docs/inbound.md → Durability).
 *
 * accept() writes the raw message, its envelope and the rcv ids it will be stored under to
 * `inbound_queue`, group-committed with synchronous=FULL like every write: the SMTP 250 follows
 * that commit. Processing (SPF/DKIM/DMARC, parse and classify in the worker pool, threading,
 * storage, events) runs next, at most `concurrency` messages at once, and stores each message and
 * deletes its queue row in ONE transaction (group-committed too): a SIGKILL at any instant leaves
 * either the row (processed again at the next start) or the stored message with its events, never
 * both and never neither. Events are therefore emitted exactly once.
 *
 * Backpressure: past `maxDepth` queued messages, MAIL FROM and the end of DATA answer 451 (the
 * sender's queue keeps the mail and retries); disk space is the low-disk guard's (452).
 *
 * Ownership: a SQLite file has one daemon (the data-dir lock), which owns every row and takes all
 * of them at start. On PostgreSQL several daemons share the table: a row is leased to the daemon
 * that wrote it, and rows whose lease ran out (their daemon died) are taken over by a poll.
 */
export interface InboundQueueOptions {
  /** SPF/DKIM/DMARC (or the trusted-network stamp) for a queued message; returns the bytes to store. */
  authenticate(m: { raw: Buffer; ip: string | null; helo: string | null; mailFrom: string }): Promise<{ auth: InboundInput['auth']; raw: Buffer }>;
  /** Queued messages at most; past it new mail is answered 451. */
  maxDepth: number;
  /** Messages processed at once (each holds a pool job, then a unit of a group commit). */
  concurrency: number;
  /** How long the daemon processing a row holds it (shared store), ms: above the worst case of one message. */
  leaseMs: number;
  /** Shared store: how often rows of a daemon that died are looked for, ms. */
  pollMs: number;
  /** A failed attempt is tried again after this, doubled per attempt (at most an hour). */
  retryMs: number;
  /**
   * During a burst of SMTP mail (acknowledgements arriving and the main thread mostly busy),
   * processing holds back so the acknowledgements go first, until the oldest message waiting has
   * waited this long (ms), half of `maxDepth` is waiting, or a read waits for it (settled()).
   * 0: processing starts at once, whatever the load (docs/inbound.md → Bursts).
   */
  maxDelayMs?: number;
  /**
   * Holding back for a burst also ends once the backlog is what processing clears in this long
   * (ms) at the rate it was measured to process (at least one round, `concurrency`): whatever the
   * delay, mail acknowledged in a burst is then stored about this long after the burst ends.
   * Default AFTER_BURST_MS.
   */
  afterBurstMs?: number;
  /**
   * Whether SMTP mail arrives in a burst now; default: an acknowledgement in the last QUIET_MS and
   * the main thread busy for at least BUSY_UTILISATION of the last ELU_SAMPLE_MS (tests set it).
   */
  burst?: () => boolean;
  /**
   * SQLite: the database file, for the writer thread that commits acknowledgements off the main
   * thread (db/queue-writer.ts). Absent (an in-memory database, PostgreSQL, whose driver never
   * blocks the thread): rows are written on the main connection, group-committed.
   */
  file?: string | null;
}

export const DEFAULT_QUEUE_MAX_DEPTH = 10_000;
export const DEFAULT_QUEUE_CONCURRENCY = 32;

/** The size of the pieces a listener hands a message over in (QueueInput.raw). */
export const QUEUE_PIECE_BYTES = BLOB_CHUNK_BYTES;

/** The message a queue row holds, as ingestInbound takes it. */
export interface QueueInput {
  /**
   * The message, whole or in pieces (in order). Pieces go to the writer thread as they are (moved,
   * not copied): the main thread never holds the whole message in one buffer.
   */
  raw: Buffer | Buffer[];
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string | null;
  helo: string | null;
}

export interface QueueAccepted {
  accepted: { rcpt: string; messageId: string }[];
  refused: { rcpt: string; reason: string }[];
}

/** Whether a message must be processed before its 250: a plus address's hold or refusal is said in the reply. */
export function needsReplyFromProcessing(rcptTo: readonly string[]): boolean {
  return rcptTo.some((r) => splitPlus(r)?.tag != null);
}

export class InboundQueue {
  /** Ids this daemon will process, oldest first. */
  private backlog: string[] = [];
  private readonly inflight = new Map<string, Promise<void>>();
  /** Acknowledged (or found at start) and not processed yet: what a read waits for (settled()). */
  private readonly pending = new Set<string>();
  private waiters: { ids: string[]; resolve: () => void }[] = [];
  private depth = 0;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly shared: boolean;
  private readonly counters = { accepted: 0, processed: 0, failed: 0 };
  /** Messages taken and not yet ready to store (authenticating, in the pool). */
  private preparing = 0;
  /** Prepared messages waiting to be handed to the group commit together. */
  private ready: (() => void)[] = [];
  private collectTimer: NodeJS.Timeout | null = null;
  private writer: QueueWriter | null = null;
  /**
   * Small messages this daemon just acknowledged, by queue id, as their rows hold them: processing
   * takes them from here instead of SELECTing the rows it has just written (one statement and a
   * decode of the row less per message). Only messages up to HELD_MAX_BYTES, HELD_TOTAL_BYTES in
   * all; any other message, a retry, or a row found at start is read from the table.
   */
  private readonly held = new Map<string, QueuedInbound>();
  private heldBytes = 0;
  /** When each message in the backlog was acknowledged (performance.now()); rows found at start have none (oldest). */
  private readonly ackedAt = new Map<string, number>();
  /** The last acknowledgement, performance.now(). */
  private lastAck = -Infinity;
  /** The main thread's utilisation over the last sample (eventLoopUtilization), and when it was taken. */
  private elu = performance.eventLoopUtilization();
  private eluAt = 0;
  private mainBusy = false;
  /** Set while processing holds back for a burst: the pump looks again when it fires. */
  private holdTimer: NodeJS.Timeout | null = null;
  /**
   * The processing rate (drainBound): messages processed and the wall time, ms, during which some
   * were in flight, decayed so it follows the recent rate; the start a prior of PRIOR_RATE.
   */
  private drained = { n: PRIOR_RATE / 10, ms: 100 };
  private busySince: number | null = null;

  constructor(private readonly ctx: AppContext, private readonly opts: InboundQueueOptions) {
    this.shared = isSharedStore(ctx.db);
  }

  /** Take what an earlier run left (a lone daemon: every row), then start processing. */
  async start(): Promise<void> {
    if (!this.shared && this.opts.file && this.opts.file !== ':memory:') {
      this.writer = new QueueWriter(this.opts.file);
      await this.writer.ready();
      setWriteGate(this.ctx.db, this.writer.gate);
      // The request log's batches are written by the writer too (services/request-log.ts), while it lives.
      const writer = this.writer;
      this.ctx.writeRequestLog = (batch) => writer.writeLogs(batch);
      // And large sent attachments (services/send.ts), while it lives.
      this.ctx.writeBlobs = (blobs, move) => (writer.alive() ? writer.writeBlobs(blobs, move) : Promise.reject(new Error('queue writer stopped')));
    }
    if (this.shared) {
      this.depth = await countQueued(this.ctx.db);
      this.schedulePoll(0);
    } else {
      this.backlog = await allQueuedIds(this.ctx.db);
      this.depth = this.backlog.length;
      for (const id of this.backlog) this.pending.add(id);
      if (this.backlog.length) this.ctx.log.info({ queued: this.backlog.length }, 'inbound queue: processing mail acknowledged before the last stop');
    }
    this.pump();
  }

  /** Too much waiting: new mail gets a 451 until processing catches up. */
  full(): boolean {
    return this.depth >= this.opts.maxDepth;
  }

  stats(): { depth: number; inflight: number; accepted: number; processed: number; failed: number } {
    return { depth: this.depth, inflight: this.inflight.size, ...this.counters };
  }

  /**
   * Store the raw message durably and return the ids the 250 names. Recipients are routed again
   * (they were checked at RCPT); ones that no longer route are refused, as the direct path does.
   */
  async accept(input: QueueInput): Promise<QueueAccepted> {
    const ctx = this.ctx;
    // Written on the main connection: announced, so a group commit being formed waits for it.
    const announced = this.writer?.alive() ? NOT_ANNOUNCED : announceWrite(ctx);
    const result: QueueAccepted = { accepted: [], refused: [] };
    const ids = new Map<string, string>();
    try {
      for (const rcpt of input.rcptTo) {
        const r = await routeRecipient(ctx, rcpt);
        if (r.kind !== 'agent') {
          result.refused.push({ rcpt, reason: r.reason });
          continue;
        }
        let id = ids.get(r.agent.id);
        if (!id) ids.set(r.agent.id, (id = newId('rcv', ctx.clock)));
        result.accepted.push({ rcpt, messageId: id });
      }
    } catch (err) {
      announced.release();
      throw err;
    }
    if (!result.accepted.length) {
      announced.release();
      return result;
    }
    const now = ctx.clock.now();
    const row = {
      id: newId('inq', ctx.clock), receivedAt: isoAt(now), mailFrom: input.mailFrom, rcptTo: input.rcptTo,
      messageIds: [...ids].map(([agent_id, message_id]) => ({ agent_id, message_id })),
      remoteAddress: input.remoteAddress, helo: input.helo, raw: input.raw,
    };
    const whole = (): Buffer => (Array.isArray(row.raw) ? (row.raw.length === 1 ? row.raw[0] : Buffer.concat(row.raw)) : row.raw);
    const size = Array.isArray(row.raw) ? row.raw.reduce((n, p) => n + p.length, 0) : row.raw.length;
    const lease = this.shared ? isoAt(now + this.opts.leaseMs) : null;
    if (this.shared) {
      // One INSERT of a new id, reading nothing: atomic and durable (synchronous_commit) as a
      // statement of its own. As a SERIALIZABLE transaction it also queued behind the serial
      // lane (db/open.ts) whenever a store transaction was running alone there, and the 250
      // waited with it.
      announced.release();
      const one = { ...row, raw: whole() };
      // A large message writes its pieces first (repos/blobs.ts): then all of it in one transaction.
      if (isLarge(one.raw.length)) await withTransactionKind('inbound.accept', () => inTransaction(ctx, (tx) => insertQueued(tx.db, one, lease)));
      else await insertQueued(ctx.db, one, lease);
    } else if (announced === NOT_ANNOUNCED && this.writer?.alive()) {
      await this.writer.insert({
        id: row.id, received_at: row.receivedAt, mail_from: row.mailFrom, rcpt_to: JSON.stringify(row.rcptTo),
        message_ids: JSON.stringify(row.messageIds), remote_address: row.remoteAddress, helo: row.helo, raw: row.raw,
      });
    } else {
      const one = { ...row, raw: whole() };
      await withTransactionKind('inbound.accept', () => groupedTransaction(ctx, (tx) => insertQueued(tx.db, one, lease), announced));
    }
    this.counters.accepted++;
    this.depth++;
    // The pieces of a small message were copied to the writer thread, not moved (db/queue-writer.ts):
    // still whole here (a moved piece would read as empty, and the message is then not held).
    const kept = size <= HELD_MAX_BYTES && this.heldBytes + size <= HELD_TOTAL_BYTES ? whole() : null;
    if (kept && kept.length === size) {
      this.held.set(row.id, {
        id: row.id, receivedAt: row.receivedAt, mailFrom: row.mailFrom, rcptTo: row.rcptTo, messageIds: row.messageIds,
        remoteAddress: row.remoteAddress, helo: row.helo, raw: kept, rawBlob: null, attempts: 0,
      });
      this.heldBytes += size;
    }
    this.pending.add(row.id);
    this.backlog.push(row.id);
    this.lastAck = performance.now();
    this.ackedAt.set(row.id, this.lastAck);
    this.pump();
    return result;
  }

  /**
   * Resolves once every message acknowledged before the call has been processed (or after
   * `timeoutMs`): a read that starts after a 250 then sees the message it names. The wait makes
   * held-back processing run at once; what was held back is up to maxDelayMs of a burst's
   * acknowledgements, so the default bound grows by maxDelayMs (2 s without holding back).
   */
  settled(timeoutMs = SETTLE_MS + (this.opts.maxDelayMs ?? 0)): Promise<void> {
    if (!this.pending.size || this.stopped) return Promise.resolve();
    const ids = [...this.pending];
    return new Promise<void>((resolve) => {
      const w = { ids, resolve: () => { clearTimeout(t); resolve(); } };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve();
      }, timeoutMs);
      t.unref();
      this.waiters.push(w);
      // A read waits: whatever processing held back for a burst runs now.
      this.pump();
    });
  }

  /** The writer thread's V8 heap (SQLite; /metrics), or null without one. */
  async writerHeap(): Promise<ThreadHeap | null> {
    return this.writer ? this.writer.heap() : null;
  }

  /** Stop taking rows; let the messages being processed finish (the rest waits for the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    await Promise.allSettled([...this.inflight.values()]);
    this.held.clear();
    this.heldBytes = 0;
    this.ackedAt.clear();
    for (const w of this.waiters.splice(0)) w.resolve();
    if (this.writer) {
      this.ctx.writeRequestLog = undefined;
      this.ctx.writeBlobs = undefined;
      await this.writer.close();
      setWriteGate(this.ctx.db, null);
    }
  }

  /**
   * Whether processing holds back now for a burst of SMTP mail (burstNow: acknowledgements keep
   * arriving and the main thread is mostly busy; processing competes with them for this thread,
   * the write lock and the cores). Never when a read waits, the oldest message has waited
   * maxDelayMs, or half of maxDepth waits: those bound what holding back costs.
   */
  private holdingBack(now: number): boolean {
    const maxDelay = this.opts.maxDelayMs ?? 0;
    if (maxDelay <= 0 || this.waiters.length) return false;
    if (this.backlog.length >= this.opts.maxDepth / 2) return false;
    if (this.backlog.length >= this.drainBound(now)) return false;
    if (now - (this.ackedAt.get(this.backlog[0]) ?? -Infinity) >= maxDelay) return false;
    return this.opts.burst ? this.opts.burst() : this.burstNow(now);
  }

  /**
   * How many waiting messages processing clears in afterBurstMs at its measured rate (at least one
   * round): holding back never leaves more than that for after the burst.
   */
  private drainBound(now: number): number {
    const ms = this.drained.ms + (this.busySince === null ? 0 : now - this.busySince);
    const rate = this.drained.n / Math.max(1, ms);
    return Math.max(this.opts.concurrency, Math.floor(rate * (this.opts.afterBurstMs ?? AFTER_BURST_MS)));
  }

  /** Processing's busy time (drainBound): some message in flight, from the first taken to the last done. */
  private busy(now: number, processed: number): void {
    if (this.busySince !== null) this.drained.ms += now - this.busySince;
    this.drained.n += processed;
    this.busySince = this.inflight.size ? now : null;
    // Decay: the last ~RATE_WINDOW_MS of processing count.
    if (this.drained.ms > RATE_WINDOW_MS) {
      this.drained.n /= 2;
      this.drained.ms /= 2;
    }
  }

  /** The default burst test (InboundQueueOptions.burst). */
  private burstNow(now: number): boolean {
    if (now - this.lastAck > QUIET_MS) return false;
    if (now - this.eluAt >= ELU_SAMPLE_MS) {
      const elu = performance.eventLoopUtilization();
      this.mainBusy = performance.eventLoopUtilization(elu, this.elu).utilization >= BUSY_UTILISATION;
      this.elu = elu;
      this.eluAt = now;
    }
    return this.mainBusy;
  }

  private pump(): void {
    if (this.stopped || !this.backlog.length) return;
    const now = performance.now();
    if (this.holdingBack(now)) {
      // Look again once the burst may be over or the oldest message is due.
      if (!this.holdTimer) {
        const due = (this.ackedAt.get(this.backlog[0]) ?? now) + (this.opts.maxDelayMs ?? 0) - now;
        this.holdTimer = setTimeout(() => {
          this.holdTimer = null;
          this.pump();
        }, Math.max(1, Math.min(QUIET_MS, due)));
        this.holdTimer.unref();
      }
      return;
    }
    while (this.inflight.size < this.opts.concurrency && this.backlog.length) {
      const take = this.backlog.splice(0, this.opts.concurrency - this.inflight.size);
      // One SELECT for the batch (of the rows not held in memory); each message then goes its own
      // way (pool, group commit).
      const unheld = take.filter((id) => !this.held.has(id));
      const loaded = unheld.length ? queuedByIds(this.ctx.db, unheld) : Promise.resolve([]);
      loaded.catch((err: unknown) => {
        // The rows stay queued: look again shortly (the error is the database's, e.g. busy).
        this.ctx.log.error({ err }, 'inbound queue: reading queued messages failed');
        this.later(this.opts.retryMs, () => {
          this.backlog.unshift(...unheld);
          this.pump();
        });
      });
      for (const id of take) {
        this.preparing++;
        const held = this.held.get(id);
        if (held) {
          this.held.delete(id);
          this.heldBytes -= held.raw.length;
        }
        const p = held ? this.processOne(id, held) : loaded.then((rows) => this.processOne(id, rows.find((r) => r.id === id)), () => {
          this.preparing--;
          this.maybeFlush();
        });
        this.inflight.set(id, p);
        if (this.busySince === null) this.busySince = performance.now();
        void p.finally(() => {
          this.inflight.delete(id);
          this.busy(performance.now(), 1);
          this.pump();
        });
      }
    }
  }

  private async processOne(id: string, row: QueuedInbound | undefined): Promise<void> {
    let prepared = false;
    const isPrepared = () => {
      if (prepared) return;
      prepared = true;
      this.preparing--;
      this.maybeFlush();
    };
    if (!row) {
      // Gone already: processed by another daemon (shared store).
      isPrepared();
      this.done(id);
      return;
    }
    try {
      // A large message is read in pieces (repos/blobs.ts); its blob becomes the stored message's.
      const queued = await readQueuedRaw(this.ctx.db, row);
      // Each step over a large message's bytes (the copy just made, a prepended header, the
      // hand-off to the pool) gets a turn of the event loop of its own, not one long turn.
      if (isLarge(queued.length)) await yieldTurn();
      const { auth, raw } = await this.opts.authenticate({ raw: queued, ip: row.remoteAddress, helo: row.helo, mailFrom: row.mailFrom });
      if (isLarge(queued.length)) await yieldTurn();
      const p = await prepareIngest(this.ctx, {
        raw, mailFrom: row.mailFrom, rcptTo: row.rcptTo, source: 'smtp', remoteAddress: row.remoteAddress, auth,
        storedTail: row.rawBlob ? { blobId: row.rawBlob, bytes: queued.length - row.raw.length } : undefined,
        queued: {
          id: row.id, receivedAt: Date.parse(row.receivedAt), messageIds: new Map(row.messageIds.map((m) => [m.agent_id, m.message_id])),
          writeBlobs: this.writer?.alive() ? (blobs, move) => this.writer!.writeBlobs(blobs, move) : undefined,
        },
      });
      await this.store(p.store!, isPrepared);
      this.counters.processed++;
      this.done(id);
    } catch (err) {
      isPrepared();
      if (err instanceof AlreadyProcessed) {
        this.done(id);
        return;
      }
      if (this.stopped) return; // the pool closed under it: the row stays for the next start
      this.counters.failed++;
      const delay = Math.min(3_600_000, this.opts.retryMs * 2 ** Math.min(row.attempts, 12));
      this.ctx.log.error({ err, queued: id, attempt: row.attempts + 1, retryInMs: delay }, 'inbound queue: processing a message failed; it stays queued');
      await deferQueued(this.ctx.db, id, isoAt(this.ctx.clock.now() + delay), err instanceof Error ? err.message : String(err)).catch(() => undefined);
      this.later(delay, () => {
        if (this.shared) return; // the poll takes it once its lease (the backoff) has passed
        this.backlog.push(id);
        this.pump();
      });
    }
  }

  /**
   * Hand a prepared message to the group commit together with the others being prepared: units
   * queued in the same tick share one transaction (one fsync), so the stores are collected until
   * every message taken is ready, or COLLECT_MS passed (a slow message does not hold the rest).
   */
  private store(unit: (tx: Tx) => Promise<void>, isPrepared: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // Not announced: a batch of acknowledgements must not wait for processing.
      this.ready.push(() => { withTransactionKind('inbound.store', () => groupedTransaction(this.ctx, unit, NOT_ANNOUNCED, { maxGroup: STORE_GROUP_MAX, holdMs: STORE_HOLD_MS, yieldAfter: STORE_YIELD_AFTER })).then(() => resolve(), reject); });
      isPrepared();
    });
  }

  private maybeFlush(): void {
    if (!this.ready.length) return;
    if (this.preparing <= 0 || this.ready.length >= this.opts.concurrency) {
      this.flushReady();
      return;
    }
    this.collectTimer ??= setTimeout(() => this.flushReady(), COLLECT_MS);
  }

  private flushReady(): void {
    if (this.collectTimer) clearTimeout(this.collectTimer);
    this.collectTimer = null;
    for (const submit of this.ready.splice(0)) submit();
  }

  private done(id: string): void {
    if (this.pending.delete(id) || this.shared) this.depth = Math.max(0, this.depth - 1);
    this.ackedAt.delete(id);
    if (!this.waiters.length) return;
    const left: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.ids.some((x) => this.pending.has(x))) left.push(w);
      else w.resolve();
    }
    this.waiters = left;
  }

  private later(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Shared store: take over rows whose daemon died (lease passed), and refresh the depth. */
  private schedulePoll(ms: number): void {
    this.later(ms, () => {
      void (async () => {
        const db = this.ctx.db;
        const nowIso = isoAt(this.ctx.clock.now());
        this.depth = await countQueued(db);
        const free = this.opts.concurrency - this.inflight.size;
        if (free > 0) {
          for (const id of await claimableIds(db, nowIso, free)) {
            if (this.inflight.has(id) || this.backlog.includes(id)) continue;
            if (await leaseQueued(db, id, nowIso, isoAt(this.ctx.clock.now() + this.opts.leaseMs))) this.backlog.push(id);
          }
          this.pump();
        }
      })().catch((err: unknown) => this.ctx.log.warn({ err }, 'inbound queue: poll failed')).finally(() => this.schedulePoll(this.opts.pollMs));
    });
  }
}

/** A message up to this size is handed from its acknowledgement to its processing in memory (InboundQueue.held). */
const HELD_MAX_BYTES = 64 * 1024;
/** …and at most this much of them at once (a backlog beyond it is read from the table). */
const HELD_TOTAL_BYTES = 8 * 1024 * 1024;

/** How long a read waits for mail acknowledged before it (settled), ms, before holding back's share. */
const SETTLE_MS = 2_000;

/** Bursts (holdingBack): no acknowledgement for this long, ms, and the burst is over. */
const QUIET_MS = 50;
/** Bursts: how often the main thread's utilisation is sampled, ms… */
const ELU_SAMPLE_MS = 50;
/** …and above which share of the sample it counts as busy. */
const BUSY_UTILISATION = 0.5;

/**
 * Messages stored in one transaction at most: a whole round of processing (DEFAULT_QUEUE_CONCURRENCY),
 * one COMMIT for all of it. The transaction holds SQLite's write lock, which the queue writer's
 * commit of an acknowledgement waits for, and the main thread runs its units back to back without
 * serving anything else. So a batch commits early (groupedTransaction holdMs, yieldAfter): after
 * STORE_YIELD_AFTER messages if the writer waits for the lock (an acknowledgement waits at most as
 * long as behind the fixed batches of 8 of session 8), after STORE_HOLD_MS in any case; the rest
 * of the round goes in the next transaction. Fixed batches of 128 made a 250 wait tens of
 * milliseconds behind processing (bench/README.md, round 2 session 7); fixed batches of 8 cost a
 * COMMIT per 8 messages even when no acknowledgement was waiting (round 2 session 9).
 */
const STORE_GROUP_MAX = 32;
/** Messages a store transaction runs before it commits for a waiting acknowledgement (see STORE_GROUP_MAX). */
const STORE_YIELD_AFTER = 8;
/** How long one store transaction runs its units at most before it commits, ms (see STORE_GROUP_MAX). */
const STORE_HOLD_MS = 8;

/**
 * Holding back for a burst leaves at most what processing clears in this long, ms (drainBound):
 * mail acknowledged in a burst is stored about this long after it ends, however long the hold.
 */
const AFTER_BURST_MS = 1_000;
/** The processing rate assumed before any was measured, messages a second (drainBound). */
const PRIOR_RATE = 200;
/** The processing rate follows about the last this much of processing time, ms. */
const RATE_WINDOW_MS = 4_000;

/** How long prepared messages wait for the others of their round before they are stored anyway, ms. */
const COLLECT_MS = 20;

/** Processing units are not announced: a batch of acknowledgements must not wait for them. */
const NOT_ANNOUNCED: WriteAnnouncement = { release() { /* nothing to release */ } };
