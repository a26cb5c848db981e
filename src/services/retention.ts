import {
  agentsOverCount, deleteDeliveries, deleteEvents, deleteMessages, excessIds, oldDeliveryIds, oldEventIds, receivedIdsMatching, sentIdsMatching, type MessageFilter,
} from '../db/repos/retention.js';
import { reclaimSpace, VACUUM_STEP_PAGES } from '../db/maintenance.js';
import type { Db } from '../db/schema.js';
import { DAY, isoAt } from '../shared/clock.js';
import { expireRequestLog } from '../db/repos/request-log.js';
import { runTransaction } from '../db/open.js';
import type { AppContext } from './context.js';

/** The operator's retention policy (config: retention*); 0 means "keep for ever" everywhere, the default. */
export interface RetentionPolicy {
  /** Received and sent messages (with raw bytes and attachments) older than this many days go. */
  messagesDays: number;
  /** Keep at most this many received and this many sent messages per agent (the newest stay). */
  messagesPerAgent: number;
  /** Events (with their finished webhook deliveries) older than this many days go. */
  eventsDays: number;
  /** Finished webhook delivery records (and their attempts) older than this many days go. */
  webhookDeliveriesDays: number;
  /** Request-log entries (GET /v1/logs?category=request) older than this many days go. */
  requestLogDays: number;
}

export interface RetentionCounts {
  received: number;
  sent: number;
  threads: number;
  events: number;
  webhookDeliveries: number;
  requestLog: number;
  /** Pages returned to the filesystem (incremental vacuum). */
  pagesFreed: number;
}

export interface RetentionOptions {
  /** Rows per transaction; each batch is one short write (default 200). */
  batchSize?: number;
  /** Awaited between batches so SMTP and the API write in between (default: one macrotask turn). */
  pause?: () => Promise<void>;
  /** Stop early (the daemon is stopping). */
  signal?: AbortSignal;
  /** Free pages per incremental-vacuum step (default VACUUM_STEP_PAGES, 256: 1 MiB with 4 KiB pages). */
  vacuumPages?: number;
}

export const emptyCounts = (): RetentionCounts => ({ received: 0, sent: 0, threads: 0, events: 0, webhookDeliveries: 0, requestLog: 0, pagesFreed: 0 });

const yieldTurn = () => new Promise<void>((r) => setTimeout(r, 5));

/**
 * One retention pass at ctx.clock.now(): delete what the policy says is too old or too many, in
 * batches of batchSize rows (one short transaction each, a pause between), then give freed pages
 * back to the filesystem. Expiry is housekeeping, not a change a client made: no event is emitted
 * and no webhook is sent (issue #16). Scheduled sends and sends in flight are never deleted, nor
 * events whose webhook delivery is still owed.
 */
export async function runRetention(ctx: AppContext, policy: RetentionPolicy, opts: RetentionOptions = {}): Promise<RetentionCounts> {
  const counts = emptyCounts();
  const now = ctx.clock.now();
  const b = { ...opts, batchSize: opts.batchSize ?? 200 };
  if (policy.messagesDays > 0) {
    const f: MessageFilter = { before: isoAt(now - policy.messagesDays * DAY), agentId: null };
    await deleteMessagesBatched(ctx, f, counts, b);
  }
  if (policy.messagesPerAgent > 0) {
    for (const table of ['received_messages', 'sent_messages'] as const) {
      for (const agentId of await agentsOverCount(ctx.db, table, policy.messagesPerAgent)) {
        await batched(b, async () => {
          const ids = await excessIds(ctx.db, table, agentId, policy.messagesPerAgent, b.batchSize);
          if (!ids.length) return 0;
          await removeMessages(ctx, table === 'received_messages' ? ids : [], table === 'sent_messages' ? ids : [], counts);
          return ids.length;
        });
      }
    }
  }
  if (policy.eventsDays > 0) {
    const before = isoAt(now - policy.eventsDays * DAY);
    counts.events += await idBatches(ctx, b, (db, n) => oldEventIds(db, before, n), deleteEvents);
  }
  if (policy.webhookDeliveriesDays > 0) {
    const before = isoAt(now - policy.webhookDeliveriesDays * DAY);
    counts.webhookDeliveries += await idBatches(ctx, b, (db, n) => oldDeliveryIds(db, before, n), deleteDeliveries);
  }
  if (policy.requestLogDays > 0) {
    const before = isoAt(now - policy.requestLogDays * DAY);
    // Stored a batch to a row (repos/request-log.ts): a row with newer entries too is kept with those.
    await batched(b, async () => {
      const r = await runTransaction(ctx.db, (trx) => expireRequestLog(trx, before, b.batchSize), 'off-thread');
      counts.requestLog += r.removed;
      return r.rows;
    });
  }
  counts.pagesFreed += await reclaimInSteps(ctx, b);
  return counts;
}

/**
 * `mailagent admin purge`: delete every message matching the filter (one agent, older than a
 * date, or both) and, for an agent, its events older than the date (all of them without one).
 * Same batches as retention, same silence towards webhooks.
 */
export async function purgeMessages(ctx: AppContext, f: MessageFilter, opts: RetentionOptions = {}): Promise<RetentionCounts> {
  const counts = emptyCounts();
  const b = { ...opts, batchSize: opts.batchSize ?? 200 };
  await deleteMessagesBatched(ctx, f, counts, b);
  if (f.agentId) {
    const before = f.before ?? isoAt(ctx.clock.now() + DAY);
    counts.events += await idBatches(ctx, b, (db, n) => oldEventIds(db, before, n, f.agentId), deleteEvents);
  }
  counts.pagesFreed += await reclaimInSteps(ctx, b);
  return counts;
}

async function deleteMessagesBatched(ctx: AppContext, f: MessageFilter, counts: RetentionCounts, b: RetentionOptions & { batchSize: number }): Promise<void> {
  await batched(b, async () => {
    const ids = await receivedIdsMatching(ctx.db, f, b.batchSize);
    if (ids.length) await removeMessages(ctx, ids, [], counts);
    return ids.length;
  });
  await batched(b, async () => {
    const ids = await sentIdsMatching(ctx.db, f, b.batchSize);
    if (ids.length) await removeMessages(ctx, [], ids, counts);
    return ids.length;
  });
}

/**
 * Counts are added once the transaction has committed, from the rows it really deleted: the
 * callback may run again (PostgreSQL re-runs a transaction after a serialization failure), and
 * another daemon's retention worker may have deleted some of the same ids first.
 */
async function removeMessages(ctx: AppContext, received: string[], sent: string[], counts: RetentionCounts): Promise<void> {
  // The commit's WAL flush off the main thread ('off-thread'): a batch of large messages frees
  // many pages, and an inline fsync of their WAL frames would hold the event loop.
  const r = await runTransaction(ctx.db, (trx) => deleteMessages(trx, received, sent, isoAt(ctx.clock.now())), 'off-thread');
  counts.threads += r.emptiedThreads.length;
  counts.received += r.received;
  counts.sent += r.sent;
}

/**
 * Select up to batchSize ids and delete them, one transaction per batch, until none is left;
 * resolves with the rows deleted (counted after commit, as in removeMessages).
 */
async function idBatches(
  ctx: AppContext, b: RetentionOptions & { batchSize: number },
  select: (db: Db, limit: number) => Promise<string[]>, remove: (db: Db, ids: string[]) => Promise<number>,
): Promise<number> {
  let total = 0;
  await batched(b, async () => {
    const r = await runTransaction(ctx.db, async (trx) => {
      const ids = await select(trx, b.batchSize);
      return { selected: ids.length, deleted: await remove(trx, ids) };
    }, 'off-thread');
    total += r.deleted;
    return r.selected;
  });
  return total;
}

/** Run step until it reports fewer rows than a full batch, pausing between batches. */
async function batched(b: RetentionOptions & { batchSize: number }, step: () => Promise<number>): Promise<void> {
  for (;;) {
    if (b.signal?.aborted) return;
    const n = await step();
    if (n < b.batchSize) return;
    await (b.pause ?? yieldTurn)();
  }
}

async function reclaimInSteps(ctx: AppContext, b: RetentionOptions): Promise<number> {
  let total = 0;
  for (;;) {
    if (b.signal?.aborted) return total;
    const freed = await reclaimSpace(ctx.db, b.vacuumPages ?? VACUUM_STEP_PAGES);
    total += freed;
    if (freed === 0) return total;
    await (b.pause ?? yieldTurn)();
  }
}
