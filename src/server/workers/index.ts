import type { AppContext } from '../../services/context.js';
import { createWebhookDeliveryWorker } from './webhook-delivery.js';
import { createDraftScheduler } from './draft-scheduler.js';
import { createRequestLogFlusher } from './request-log.js';
import { createOutboundScheduler } from './scheduler.js';
import { RetentionWorker } from './retention.js';
import { createSearchIndexer } from './search-index.js';
import type { RetentionPolicy } from '../../services/retention.js';

/** A background loop: start() begins it, stop() ends it and waits for work in flight. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
  /** Liveness for the readiness check (GET /health/ready); a worker without it counts as alive while started. */
  health?(): { ok: boolean; detail: string };
}

/** Every background worker of the daemon; feature issues add theirs here. */
export function createWorkers(ctx: AppContext, opts: { retention?: RetentionPolicy; webhookLeaseMs?: number } = {}): Worker[] {
  const none: RetentionPolicy = { messagesDays: 0, messagesPerAgent: 0, eventsDays: 0, webhookDeliveriesDays: 0, requestLogDays: 0 };
  return [
    new RetentionWorker(ctx, opts.retention ?? none),
    createWebhookDeliveryWorker(ctx, { leaseMs: opts.webhookLeaseMs }),
    createDraftScheduler(ctx),
    createRequestLogFlusher(ctx),
    createOutboundScheduler(ctx),
    createSearchIndexer(ctx),
  ];
}
