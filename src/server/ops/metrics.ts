import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from '../../services/context.js';
import type { Event } from '../../contract/events.js';
import { databaseSize } from '../../db/maintenance.js';
import { transactionCounts } from '../../db/open.js';
import { queueDepths } from '../../db/repos/stats.js';
import type { DiskGuard } from './disk-guard.js';
import { threadHeap, type ThreadHeap } from '../../shared/thread-heap.js';
import { HttpMetrics } from './http-metrics.js';

/** Heaps of the daemon's other threads (each its own V8 isolate), by thread name; null: no answer. */
export type ThreadHeapSource = () => Promise<{ thread: string; heap: ThreadHeap | null }[]>;

/** What a webhook attempt reports on the bus (workers/webhook-delivery.ts). */
export interface WebhookAttemptReport {
  outcome: string;
  durationMs: number;
}

/** Hooks the SMTP listener calls (server/smtp/listener.ts). */
export interface SmtpObserver {
  sessionOpened(): void;
  sessionClosed(): void;
  refused(reason: string): void;
  /** The inbound queue's writer thread heap, for mailagent_thread_heap_bytes. */
  threads?(source: ThreadHeapSource): void;
}

export const HTTP_REQUESTS = { name: 'mailagent_http_requests_total', help: 'HTTP requests, by method, route template and status' };
export const HTTP_LATENCY = { name: 'mailagent_http_request_duration_seconds', help: 'HTTP request duration, by method, route template and status', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10] };

/**
 * Prometheus metrics (prom-client), one registry per daemon. Counters fed by the event bus
 * (received, sent, verdicts, quarantine), the webhook worker, the SMTP listener and the HTTP app;
 * gauges read at scrape time (queue depths, database size, free disk); prom-client's default
 * process metrics (CPU, memory, file descriptors, event-loop lag, GC). Names follow the
 * Prometheus conventions (mailagent_ prefix, _total counters, _seconds / _bytes units).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly received: Counter<'type' | 'mode'>;
  private readonly sent: Counter<'type' | 'mode'>;
  private readonly refusedCounter: Counter<'channel' | 'reason'>;
  private readonly verdicts: Counter<'intent'>;
  private readonly quarantined: Counter;
  private readonly webhookOutcomes: Counter<'outcome'>;
  private readonly webhookLatency: Histogram;
  private readonly smtpSessions: Counter;
  private readonly smtpOpen: Gauge;
  private readonly httpMetrics: HttpMetrics;
  private readonly reports: Counter<'outcome'>;
  private readonly onEvent = (e: Event) => this.observeEvent(e);
  private readonly onReport = (outcome: string) => this.reports.inc({ outcome });
  private readonly threadSources: ThreadHeapSource[] = [];
  private readonly onAttempt = (a: WebhookAttemptReport) => {
    this.webhookOutcomes.inc({ outcome: a.outcome });
    this.webhookLatency.observe(a.durationMs / 1000);
  };

  constructor(private readonly ctx: AppContext, opts: { dbFile: string; disk?: DiskGuard }) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, eventLoopMonitoringPrecision: 20 });
    this.received = new Counter({ name: 'mailagent_messages_received_total', help: 'Inbound messages stored, by event type and mode', labelNames: ['type', 'mode'], registers: [r] });
    this.sent = new Counter({ name: 'mailagent_messages_sent_total', help: 'Outbound messages by outcome event (message.sent, message.failed, message.bounced, ...) and mode', labelNames: ['type', 'mode'], registers: [r] });
    this.refusedCounter = new Counter({ name: 'mailagent_messages_refused_total', help: 'Messages refused, by channel (smtp, api) and reason (SMTP reply class or API error code)', labelNames: ['channel', 'reason'], registers: [r] });
    this.verdicts = new Counter({ name: 'mailagent_classifier_verdicts_total', help: 'Classifier verdicts on inbound mail, by intent', labelNames: ['intent'], registers: [r] });
    this.quarantined = new Counter({ name: 'mailagent_messages_quarantined_total', help: 'Inbound messages quarantined (injection score >= 0.95)', registers: [r] });
    this.webhookOutcomes = new Counter({ name: 'mailagent_webhook_deliveries_total', help: 'Webhook delivery attempts, by outcome (succeeded, failed, dlq)', labelNames: ['outcome'], registers: [r] });
    this.webhookLatency = new Histogram({ name: 'mailagent_webhook_delivery_duration_seconds', help: 'Webhook POST duration', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [r] });
    this.reports = new Counter({ name: 'mailagent_delivery_reports_total', help: 'Delivery and feedback reports received, by outcome: applied (at a signed return path, or carrying one), unverified (proves nothing: stored as mail, not applied), discarded (mail at a return path that is not a report)', labelNames: ['outcome'], registers: [r] });
    this.smtpSessions = new Counter({ name: 'mailagent_smtp_sessions_total', help: 'SMTP connections accepted', registers: [r] });
    this.smtpOpen = new Gauge({ name: 'mailagent_smtp_sessions_open', help: 'SMTP connections open now', registers: [r] });
    // The two metrics every API request feeds: plain counts, exposed like prom-client's (http-metrics.ts).
    this.httpMetrics = new HttpMetrics(r, HTTP_REQUESTS, HTTP_LATENCY);

    const db = ctx.db;
    new Gauge({
      name: 'mailagent_queue_depth', help: 'Work waiting in the database queues', labelNames: ['queue'], registers: [r],
      async collect() {
        const q = await queueDepths(db);
        this.set({ queue: 'scheduled_sends' }, q.scheduledSends);
        this.set({ queue: 'webhook_deliveries' }, q.pendingWebhookDeliveries);
      },
    });
    new Gauge({
      name: 'mailagent_database_bytes', help: 'Database size on disk: main file, free pages inside it, write-ahead log', labelNames: ['part'], registers: [r],
      async collect() {
        const s = await databaseSize(db, opts.dbFile);
        this.set({ part: 'file' }, s.bytes);
        this.set({ part: 'free' }, s.freeBytes);
        this.set({ part: 'wal' }, s.walBytes);
      },
    });
    // What PostgreSQL's re-runs cost, per kind of transaction (db/open.ts runTransaction; on
    // SQLite every transaction commits at its first attempt). Read from the counters at scrape time.
    const txMetric = (name: string, help: string, field: 'transactions' | 'serialLane' | 'failed') => new Counter({
      name, help, labelNames: ['kind'], registers: [r],
      collect() {
        this.reset();
        for (const [kind, c] of transactionCounts(db)) this.inc({ kind }, c[field]);
      },
    });
    txMetric('mailagent_db_transactions_total', 'PostgreSQL: transactions run, by kind (each counted once, whatever its attempts)', 'transactions');
    txMetric('mailagent_db_transaction_serial_lane_total', 'PostgreSQL: transaction attempts run alone in the serial lane (after 3 lost conflicts), by kind', 'serialLane');
    txMetric('mailagent_db_transaction_failures_total', 'PostgreSQL: transactions that failed (an error, or a conflict on the last attempt), by kind', 'failed');
    new Counter({
      name: 'mailagent_db_transaction_retries_total', help: 'PostgreSQL: transaction attempts lost to a serialization failure or a deadlock, by kind and reason', labelNames: ['kind', 'reason'], registers: [r],
      collect() {
        this.reset();
        for (const [kind, c] of transactionCounts(db)) {
          this.inc({ kind, reason: 'serialization' }, c.serializationFailures);
          this.inc({ kind, reason: 'deadlock' }, c.deadlocks);
        }
      },
    });
    const disk = opts.disk;
    if (disk) {
      new Gauge({
        name: 'mailagent_disk_free_bytes', help: 'Free bytes on the data directory\'s filesystem (the low-disk guard compares this)', registers: [r],
        async collect() { const s = await disk.check(); if (Number.isFinite(s.freeBytes)) this.set(s.freeBytes); },
      });
      new Gauge({ name: 'mailagent_disk_guard_bytes', help: 'The low-disk guard threshold (0: off)', registers: [r] }).set(disk.minFreeBytes);
    }
    const threads = this.threadSources;
    new Gauge({
      name: 'mailagent_thread_heap_bytes',
      help: 'V8 heap per thread (main, pipeline-N, ...): used, total, young (new space), external (ArrayBuffers etc.), limit',
      labelNames: ['thread', 'kind'], registers: [r],
      async collect() {
        this.reset();
        const all = [{ thread: 'main', heap: threadHeap() as ThreadHeap | null }, ...(await Promise.all(threads.map((t) => t()))).flat()];
        for (const { thread, heap } of all) {
          if (!heap) continue;
          for (const kind of ['used', 'total', 'young', 'external', 'limit'] as const) this.set({ thread, kind }, heap[kind]);
        }
      },
    });
    ctx.bus.on('event', this.onEvent);
    ctx.bus.on('webhook-attempt', this.onAttempt);
    ctx.bus.on('report', this.onReport);
  }

  private observeEvent(e: Event): void {
    const mode = e.test_mode ? 'test' : 'live';
    if (e.type.startsWith('message.received') || e.type === 'reply.received') {
      this.received.inc({ type: e.type, mode });
      const x = e as Event & { intent?: string; quarantined?: boolean };
      if (x.intent) this.verdicts.inc({ intent: x.intent });
      if (x.quarantined) this.quarantined.inc();
    } else if (['message.sent', 'message.failed', 'message.bounced', 'message.delivered', 'message.complained'].includes(e.type)) {
      this.sent.inc({ type: e.type, mode });
    }
  }

  /** Report another thread group's heaps (the pipeline pool) in mailagent_thread_heap_bytes. */
  addThreads(source: ThreadHeapSource): void {
    this.threadSources.push(source);
  }

  refused(channel: 'smtp' | 'api', reason: string): void {
    this.refusedCounter.inc({ channel, reason });
  }

  http(method: string, route: string, status: number, seconds: number): void {
    this.httpMetrics.observe(method, route, status, seconds);
  }

  smtpObserver(): SmtpObserver {
    return {
      sessionOpened: () => { this.smtpSessions.inc(); this.smtpOpen.inc(); },
      sessionClosed: () => this.smtpOpen.dec(),
      refused: (reason) => this.refused('smtp', reason),
      threads: (source) => this.addThreads(source),
    };
  }

  /** The text exposition format (Content-Type: this.contentType). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    this.ctx.bus.off('event', this.onEvent);
    this.ctx.bus.off('webhook-attempt', this.onAttempt);
    this.ctx.bus.off('report', this.onReport);
    this.registry.clear();
  }
}
