import { setMaxListeners } from 'node:events';
import type { AppContext } from '../../services/context.js';
import { performAttempt, recordAttempts, type AttemptOutcome, type AttemptRecord } from '../../services/webhooks.js';
import { hasNoDeliveries } from '../../services/events.js';
import { closeWebhookAgents, DELIVERY_TIMEOUT_MS } from '../../services/webhook-dispatch.js';
import { claimDeliveries, dueDeliveries, type DueDelivery } from '../../db/repos/webhooks.js';
import { isoAt } from '../../shared/clock.js';
import type { Worker } from './index.js';
import { sleepOrWake } from '../../shared/wake.js';

export interface WebhookWorkerOptions {
  /** Attempts in flight at once, over all endpoints. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint (a hanging receiver cannot take every slot). */
  perEndpoint?: number;
  timeoutMs?: number;
  /** How often the real timer looks for due retries (ms). */
  pollMs?: number;
  /**
   * How long a claimed delivery stays this daemon's (ms; config webhookLeaseSeconds): another
   * daemon attempts it only once this has run out. Default: the timeout + 60 s to record it.
   */
  leaseMs?: number;
}

/**
 * The webhook delivery worker. The queue is the webhook_deliveries table (written by emitEvent
 * in the event's own transaction), so pending deliveries survive a restart. runDue() does one
 * pass at ctx.clock.now(): it claims due deliveries (a lease, so two daemons never attempt the
 * same one) and attempts them with bounded concurrency until none is due. start() runs passes on
 * a timer and whenever the bus announces an event, for low latency.
 */
export class WebhookDeliveryWorker implements Worker {
  readonly name = 'webhook-delivery';
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<number> | null = null;
  private again = false;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly onBus = () => this.kick();
  // Every event used to start a pass (a due-deliveries query on the main thread: two per send);
  // one written with no delivery row has nothing for this worker.
  private readonly onEvent = (event: object) => {
    if (!hasNoDeliveries(event)) this.kick();
  };

  constructor(private readonly ctx: AppContext, opts: WebhookWorkerOptions = {}) {
    this.concurrency = opts.concurrency ?? 16;
    this.perEndpoint = opts.perEndpoint ?? 4;
    this.timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.pollMs = opts.pollMs ?? 1000;
    // Never shorter than an attempt can last: a live daemon's attempt must not be taken over.
    this.leaseMs = Math.max(opts.leaseMs ?? this.timeoutMs + 60_000, this.timeoutMs + 5_000);
    setMaxListeners(0, this.abort.signal); // one listener per attempt in flight
  }

  start(): void {
    this.stopped = false;
    this.ctx.bus.on('event', this.onEvent);
    this.ctx.bus.on('webhook-deliveries', this.onBus);
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ctx.bus.off('event', this.onEvent);
    this.ctx.bus.off('webhook-deliveries', this.onBus);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // In-flight attempts are abandoned, not recorded: their leases are released and they are
    // attempted again after the restart (receivers de-duplicate by webhook-id).
    this.abort.abort();
    await this.pass?.catch(() => 0);
    closeWebhookAgents(this.ctx);
  }

  /** Run a pass now, or once more after the current one. */
  private kick(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.runDue()
      .catch((err) => {
        this.ctx.log.error({ err }, 'webhook delivery pass failed');
        return 0;
      })
      .finally(() => {
        this.pass = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** One pass at ctx.clock.now(): attempt every due delivery; resolves with how many were attempted. */
  async runDue(): Promise<number> {
    const inflight = new Map<string, Promise<AttemptOutcome | void>>();
    const perEndpoint = new Map<string, number>();
    let attempted = 0;
    for (;;) {
      if (this.abort.signal.aborted) break;
      const free = this.concurrency - inflight.size;
      let claimed = 0;
      // Refill when half the slots are free (or none is busy): each claim is a commit, and one
      // commit per claimed batch instead of one per delivery is what makes a backlog drain fast.
      if (free > 0 && (free >= Math.ceil(this.concurrency / 2) || inflight.size === 0)) {
        const now = this.ctx.clock.now();
        const candidates = await dueDeliveries(this.ctx.db, isoAt(now), free * 4 + inflight.size);
        const picked: DueDelivery[] = [];
        const planned = new Map(perEndpoint);
        for (const d of candidates) {
          if (picked.length >= free) break;
          if (inflight.has(d.id) || (planned.get(d.webhook_endpoint_id) ?? 0) >= this.perEndpoint) continue;
          planned.set(d.webhook_endpoint_id, (planned.get(d.webhook_endpoint_id) ?? 0) + 1);
          picked.push(d);
        }
        const won = new Set(await claimDeliveries(this.ctx.db, picked.map((d) => d.id), isoAt(now), isoAt(now + this.leaseMs)));
        for (const d of picked) {
          if (!won.has(d.id)) continue;
          claimed++;
          attempted++;
          perEndpoint.set(d.webhook_endpoint_id, (perEndpoint.get(d.webhook_endpoint_id) ?? 0) + 1);
          inflight.set(d.id, this.attempt(d).finally(() => {
            inflight.delete(d.id);
            perEndpoint.set(d.webhook_endpoint_id, (perEndpoint.get(d.webhook_endpoint_id) ?? 1) - 1);
          }));
        }
      }
      if (!inflight.size) break;
      // Wait for one attempt to finish, then look again (new events may be due by then).
      await Promise.race(inflight.values());
    }
    await Promise.allSettled(inflight.values());
    return attempted;
  }

  private async attempt(d: DueDelivery): Promise<AttemptOutcome | void> {
    this.posting++;
    let posted = false;
    try {
      const r = await performAttempt(this.ctx, d, { timeoutMs: this.timeoutMs, signal: this.abort.signal });
      posted = true;
      this.posted();
      if (typeof r === 'string') return r;
      // For /metrics (server/ops/metrics.ts): outcome and POST duration of every attempt.
      this.ctx.bus.emit('webhook-attempt', { outcome: r.outcome, durationMs: r.attempt.duration_ms });
      await this.record(r);
      return r.outcome;
    } catch (err) {
      this.ctx.log.error({ err, delivery_id: d.id }, 'webhook delivery attempt failed');
    } finally {
      if (!posted) this.posted();
    }
  }

  // Group commit: attempts finishing together are written in one transaction (one fsync with
  // synchronous=FULL instead of one each); each attempt resolves once its record is on disk.
  private writes: { r: AttemptRecord; done: (err?: unknown) => void }[] = [];
  private flushing = false;
  /** Attempts whose POST has not finished yet. */
  private posting = 0;
  private wake: (() => void) | null = null;

  private posted(): void {
    this.posting--;
    this.wake?.();
  }

  private record(r: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.writes.push({ r, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) void this.flush();
    });
  }

  /**
   * better-sqlite3 commits synchronously, so no other answer is read while one batch commits and
   * batches stayed at one record each (measured: 2.2 commits per delivery). Before writing, wait
   * for the POSTs still in flight to finish, at most GATHER_MS: a slow receiver delays the others'
   * records by that much, never by its own timeout.
   */
  private async gather(): Promise<void> {
    const deadline = performance.now() + GATHER_MS;
    while (this.posting > 0 && this.writes.length < MAX_RECORD_BATCH) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await sleepOrWake(left, (w) => (this.wake = w));
    }
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.writes.length) {
      await this.gather();
      const batch = this.writes.splice(0, MAX_RECORD_BATCH);
      try {
        await recordAttempts(this.ctx, batch.map((w) => w.r));
        for (const w of batch) w.done();
      } catch (err) {
        for (const w of batch) w.done(err);
      }
    }
    this.flushing = false;
  }
}

const MAX_RECORD_BATCH = 200;
/** How long a finished attempt's record may wait for the attempts still in flight (see gather). */
const GATHER_MS = 10;

export function createWebhookDeliveryWorker(ctx: AppContext, opts?: WebhookWorkerOptions): WebhookDeliveryWorker {
  return new WebhookDeliveryWorker(ctx, opts);
}
