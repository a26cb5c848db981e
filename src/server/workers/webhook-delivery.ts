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
  /** Attempts in flight at once to endpoints in good standing (the fast lane), over all of them. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint in good standing. */
  perEndpoint?: number;
  /**
   * Attempts in flight at once to demoted endpoints (slow or failing: the slow lane), one per
   * endpoint. Default: concurrency.
   */
  slowConcurrency?: number;
  /**
   * An attempt still running after this long (ms) demotes its endpoint and moves to the slow lane,
   * freeing its fast slot. Default: 5 s, at most a third of the timeout.
   */
  slowAfterMs?: number;
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
  /** Fast slots only an endpoint with no attempt in flight may take. */
  private readonly reserve: number;
  private readonly slowConcurrency: number;
  private readonly slowAfterMs: number;
  /** Endpoints this daemon has seen slow or failing (kept across passes; see Standing). */
  private readonly standing = new Map<string, Standing>();
  /** Passes running now: a kick wakes them (a new delivery is due: it must not wait for an attempt to end). */
  private readonly passes = new Set<Pass>();
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
    this.reserve = Math.ceil(this.concurrency / 4);
    this.slowConcurrency = opts.slowConcurrency ?? this.concurrency;
    this.timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.slowAfterMs = opts.slowAfterMs ?? Math.min(SLOW_AFTER_MS, Math.ceil(this.timeoutMs / 3));
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
      for (const p of this.passes) {
        p.woken = true;
        p.notify?.();
      }
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

  /**
   * One pass at ctx.clock.now(): attempt every due delivery; resolves with how many were attempted.
   *
   * Two lanes, so endpoints that answer promptly never wait behind ones that do not, however many
   * of those there are. The fast lane: `concurrency` slots for endpoints in good standing, at most
   * `perEndpoint` each, and the last `reserve` of them only for an endpoint with nothing in flight.
   * The slow lane: `slowConcurrency` slots for demoted endpoints (see Standing), one attempt each. An
   * attempt in the fast lane still running after `slowAfterMs` demotes its endpoint and moves to
   * the slow lane (over its cap if need be: it only ends), so a hanging receiver holds a fast slot
   * for `slowAfterMs` at most, once. Slots are handed out round-robin by endpoint (endpoints with
   * fewer attempts in flight first, then the oldest due), oldest due first within one endpoint.
   * The pass looks for due deliveries again when an attempt ends (once half the fast slots are
   * free: one claim commit per batch), when the slow lane frees a slot, and at once when woken
   * (kick: a new event), never waiting for an attempt to end.
   */
  async runDue(): Promise<number> {
    const pass: Pass = { flights: new Map(), lanes: { fast: 0, slow: 0, perEndpoint: new Map() }, ended: [], woken: false, notify: null };
    const { flights, lanes } = pass;
    this.passes.add(pass);
    let attempted = 0;
    let look = true;
    try {
      for (;;) {
        if (this.abort.signal.aborted) break;
        this.moveSlow(flights, lanes);
        if (pass.woken) look = true;
        pass.woken = false;
        if (look && (lanes.fast < this.concurrency || lanes.slow < this.slowConcurrency)) {
          const now = this.ctx.clock.now();
          const picked = await this.pick(flights, lanes, isoAt(now));
          const won = new Set(await claimDeliveries(this.ctx.db, picked.map((p) => p.d.id), isoAt(now), isoAt(now + this.leaseMs)));
          for (const { d, lane } of picked) {
            if (!won.has(d.id)) continue;
            attempted++;
            this.startFlight(d, lane, pass);
          }
        }
        if (!flights.size && !pass.woken) break;
        if (!flights.size) continue;
        // Wait for an attempt to end, a fast attempt to turn slow, or a wake; then look again.
        const next = Math.min(...[...flights.values()].filter((f) => f.lane === 'fast').map((f) => f.started + this.slowAfterMs));
        const ended = await this.waitForChange(pass, next);
        look = !ended.length || this.concurrency - lanes.fast >= Math.ceil(this.concurrency / 2)
          || ended.some((f) => f.lane === 'slow') || lanes.fast === 0;
      }
      await Promise.allSettled([...flights.values()].map((f) => f.promise));
    } finally {
      this.passes.delete(pass);
    }
    return attempted;
  }

  /** The flights that ended since the last call; none when woken or a fast attempt is due to turn slow. */
  private async waitForChange(pass: Pass, slowAt: number): Promise<Flight[]> {
    if (!pass.ended.length && !pass.woken) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        pass.notify = resolve;
        if (Number.isFinite(slowAt)) timer = setTimeout(resolve, Math.max(0, slowAt - performance.now()) + 1);
      });
      pass.notify = null;
      if (timer) clearTimeout(timer);
    }
    return pass.ended.splice(0);
  }

  /** Fast attempts running for slowAfterMs or longer: their endpoint is demoted, they move lane. */
  private moveSlow(flights: Map<string, Flight>, lanes: Lanes): void {
    const now = performance.now();
    for (const f of flights.values()) {
      if (f.lane !== 'fast' || now - f.started < this.slowAfterMs) continue;
      f.lane = 'slow';
      lanes.fast--;
      lanes.slow++;
      this.standingOf(f.endpointId).demoted = true;
    }
  }

  /**
   * Due deliveries for the free slots, round-robin by endpoint. A page of due deliveries may be
   * all one backlogged endpoint's: endpoints with no slot now (or already seen) are left out of
   * the next page, a few pages at most.
   */
  private async pick(flights: Map<string, Flight>, lanes: Lanes, now: string): Promise<{ d: DueDelivery; lane: Lane }[]> {
    const picked: { d: DueDelivery; lane: Lane }[] = [];
    const planned = new Map(lanes.perEndpoint);
    let fast = lanes.fast;
    let slow = lanes.slow;
    const exclude = new Set<string>();
    for (const [endpointId, n] of lanes.perEndpoint) {
      if (n > 0 && (n >= this.perEndpoint || this.standing.get(endpointId)?.demoted)) exclude.add(endpointId);
    }
    const limit = Math.max(32, 4 * (this.concurrency + this.slowConcurrency - fast - slow));
    for (let page = 0; page < PICK_PAGES; page++) {
      if (fast >= this.concurrency && slow >= this.slowConcurrency) break;
      // The fast lane full: only demoted endpoints can take a slot (none known: nothing to read).
      const only = fast >= this.concurrency
        ? [...this.standing].filter(([id, h]) => h.demoted && !exclude.has(id)).slice(-MAX_ONLY).map(([id]) => id)
        : null;
      const rows = await dueDeliveries(this.ctx.db, now, limit, [...exclude], only);
      const byEndpoint = new Map<string, DueDelivery[]>();
      for (const d of rows) {
        if (flights.has(d.id)) continue;
        const list = byEndpoint.get(d.webhook_endpoint_id);
        if (list) list.push(d);
        else byEndpoint.set(d.webhook_endpoint_id, [d]);
      }
      // Round k hands a slot to each endpoint with k attempts in flight or planned, oldest due first.
      for (let round = 0; round < this.perEndpoint; round++) {
        for (const [endpointId, list] of byEndpoint) {
          if (!list.length) continue;
          const n = planned.get(endpointId) ?? 0;
          if (n !== round) continue;
          let lane: Lane | null = null;
          if (this.standing.get(endpointId)?.demoted) {
            if (n === 0 && slow < this.slowConcurrency) lane = 'slow';
          } else if (fast < this.concurrency && (n === 0 || this.concurrency - fast > this.reserve)) {
            lane = 'fast';
          }
          if (!lane) continue;
          if (lane === 'fast') fast++;
          else slow++;
          planned.set(endpointId, n + 1);
          picked.push({ d: list.shift()!, lane });
        }
      }
      if (rows.length < limit) break;
      for (const endpointId of byEndpoint.keys()) exclude.add(endpointId);
    }
    return picked;
  }

  private startFlight(d: DueDelivery, lane: Lane, pass: Pass): void {
    const { flights, lanes } = pass;
    const f: Flight = { endpointId: d.webhook_endpoint_id, lane, started: performance.now(), promise: Promise.resolve() };
    if (lane === 'fast') lanes.fast++;
    else lanes.slow++;
    lanes.perEndpoint.set(f.endpointId, (lanes.perEndpoint.get(f.endpointId) ?? 0) + 1);
    flights.set(d.id, f);
    f.promise = this.attempt(d).finally(() => {
      flights.delete(d.id);
      if (f.lane === 'fast') lanes.fast--;
      else lanes.slow--;
      const left = (lanes.perEndpoint.get(f.endpointId) ?? 1) - 1;
      if (left > 0) lanes.perEndpoint.set(f.endpointId, left);
      else lanes.perEndpoint.delete(f.endpointId);
      pass.ended.push(f);
      pass.notify?.();
    });
  }

  /**
   * An attempt's outcome updates its endpoint's standing: slow (slowAfterMs or more, a timeout
   * included) demotes it at once, FAILURES_TO_DEMOTE failures in a row too; a prompt success
   * restores it. Skipped attempts (paused, shutdown) are not judged.
   */
  private judge(endpointId: string, outcome: AttemptOutcome, postMs: number): void {
    const slow = postMs >= this.slowAfterMs;
    if (outcome === 'succeeded' && !slow) {
      this.standing.delete(endpointId);
      return;
    }
    const h = this.standingOf(endpointId);
    if (outcome === 'succeeded') h.failures = 0;
    else h.failures++;
    if (slow || h.failures >= FAILURES_TO_DEMOTE) h.demoted = true;
  }

  private standingOf(endpointId: string): Standing {
    let h = this.standing.get(endpointId);
    if (h) {
      this.standing.delete(endpointId); // most recently judged last: the oldest go first past the cap
    } else {
      h = { demoted: false, failures: 0 };
      while (this.standing.size >= MAX_HEALTH_ENTRIES) this.standing.delete(this.standing.keys().next().value!);
    }
    this.standing.set(endpointId, h);
    return h;
  }

  private async attempt(d: DueDelivery): Promise<AttemptOutcome | void> {
    this.posting++;
    let posted = false;
    try {
      const r = await performAttempt(this.ctx, d, { timeoutMs: this.timeoutMs, signal: this.abort.signal });
      posted = true;
      this.posted();
      if (typeof r === 'string') return r;
      // Judged by the POST alone (our own database work and recording are not the receiver's).
      this.judge(d.webhook_endpoint_id, r.outcome, r.attempt.duration_ms);
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

type Lane = 'fast' | 'slow';

interface Flight {
  endpointId: string;
  lane: Lane;
  /** performance.now() when the attempt started. */
  started: number;
  promise: Promise<unknown>;
}

/** One runDue pass: its attempts in flight and how its loop is woken. */
interface Pass {
  flights: Map<string, Flight>;
  lanes: Lanes;
  /** Flights ended since the loop last looked. */
  ended: Flight[];
  /** A kick arrived: look for due deliveries now. */
  woken: boolean;
  notify: (() => void) | null;
}

interface Lanes {
  fast: number;
  slow: number;
  /** Attempts in flight per endpoint (both lanes). */
  perEndpoint: Map<string, number>;
}

/**
 * This daemon's view of an endpoint that was slow or failed (one in good standing has no entry).
 * Demoted: one attempt at a time, in the slow lane, until an attempt succeeds within slowAfterMs.
 * In memory, per daemon: after a restart, or on another daemon, an endpoint starts in good
 * standing and is demoted by its first slow attempt there.
 */
interface Standing {
  demoted: boolean;
  /** Failed attempts in a row. */
  failures: number;
}

/** Default slowAfterMs. */
const SLOW_AFTER_MS = 5_000;
/** Failed attempts in a row (answered promptly, e.g. 500s) that demote an endpoint. */
const FAILURES_TO_DEMOTE = 3;
/** Endpoints whose standing is kept (the least recently judged go first). */
export const MAX_HEALTH_ENTRIES = 10_000;
/** Pages of due deliveries one look reads at most (see pick). */
const PICK_PAGES = 4;
/** Demoted endpoints one page may be limited to (the most recently judged). */
const MAX_ONLY = 500;

const MAX_RECORD_BATCH = 200;
/** How long a finished attempt's record may wait for the attempts still in flight (see gather). */
const GATHER_MS = 10;

export function createWebhookDeliveryWorker(ctx: AppContext, opts?: WebhookWorkerOptions): WebhookDeliveryWorker {
  return new WebhookDeliveryWorker(ctx, opts);
}
