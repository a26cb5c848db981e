import type { AppContext } from '../../services/context.js';
import { createWebhookDeliveryWorker } from './webhook-delivery.js';
import { createDraftScheduler } from './draft-scheduler.js';
import { createRequestLogFlusher } from './request-log.js';
import { createOutboundScheduler } from './scheduler.js';

/** A background loop: start() begins it, stop() ends it and waits for work in flight. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/** Every background worker of the daemon; feature issues add theirs here. */
export function createWorkers(ctx: AppContext): Worker[] {
  return [
    createWebhookDeliveryWorker(ctx),
    createDraftScheduler(ctx),
    createRequestLogFlusher(ctx),
    createOutboundScheduler(ctx),
  ];
}
