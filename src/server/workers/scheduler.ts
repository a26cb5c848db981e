import type { AppContext } from '../../services/context.js';
import { claimDueScheduled, claimDueSimulatedReplies, completeSimulatedReply, requeueStalledSends } from '../../db/repos/messages.js';
import { inTransaction, withinTransaction } from '../../services/context.js';
import { dispatchScheduled } from '../../services/send.js';
import { deliverSimulatedReply, closeRelay } from '../../services/outbound-delivery.js';
import { purgeExpiredIdempotencyKeys } from '../../services/idempotency.js';
import { isoAt } from '../../shared/clock.js';
import type { Worker } from './index.js';

/**
 * Outbound scheduler. Its queue is the database (sent_messages with status `scheduled` and a
 * due_at; simulated_replies), so scheduled sends survive a restart. runDue() does one pass at
 * ctx.clock.now() — tests call it after moving a ManualClock; start() runs it on a timer.
 */
export class OutboundScheduler implements Worker {
  readonly name = 'outbound-scheduler';
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<number> | null = null;
  private lastPurge = 0;

  constructor(private readonly ctx: AppContext, private readonly pollMs = 500) {}

  /** One pass: every due scheduled send and test-address reply. Returns how many were handled. */
  runDue(): Promise<number> {
    this.pass ??= this.once().finally(() => { this.pass = null; });
    return this.pass;
  }

  private async once(): Promise<number> {
    const ctx = this.ctx;
    let handled = 0;
    // Scheduled sends a daemon claimed (status `sending`) and never finished: it died mid-send.
    // After the lease they are due again (at least once: the relay may have taken the message
    // just before the crash; receivers de-duplicate on Message-ID).
    await requeueStalledSends(ctx.db, isoAt(ctx.clock.now() - SEND_LEASE_MS), isoAt(ctx.clock.now()));
    for (;;) {
      const now = isoAt(ctx.clock.now());
      // One send claimed at a time (status `sending`; another daemon skips it), just before it is
      // sent: SEND_LEASE_MS then bounds one send, not a batch queued behind slow ones.
      // Every row a claim returns is dispatched (a claim that returned more than it was asked
      // for once left the rest `sending` until the lease: dialect.ts claimIn).
      let sends = 0;
      for (let rows; sends < 50 && (rows = await claimDueScheduled(ctx.db, isoAt(ctx.clock.now()), 1)).length;) {
        for (const row of rows) {
          try {
            await dispatchScheduled(ctx, row);
          } catch (err) {
            ctx.log.error({ err, message_id: row.id }, 'scheduled send failed');
          }
          handled++;
          sends++;
        }
      }
      // Leased first (another daemon skips them), then each marked done and delivered in one
      // transaction: delivered exactly once, and a crash in between leaves it to the next lease.
      const replies = await claimDueSimulatedReplies(ctx.db, now, 50, isoAt(ctx.clock.now() + REPLY_LEASE_MS));
      for (const r of replies) {
        try {
          await inTransaction(ctx, async (tx) => {
            if (await completeSimulatedReply(tx.db, r.message_id, now)) await deliverSimulatedReply(withinTransaction(ctx, tx), r.message_id);
          });
        } catch (err) {
          ctx.log.error({ err, message_id: r.message_id }, 'test-address reply failed');
          await completeSimulatedReply(ctx.db, r.message_id, now); // as before: a failing reply is not retried forever
        }
        handled++;
      }
      if (sends < 50 && replies.length < 50) break;
    }
    if (ctx.clock.now() - this.lastPurge > 60 * 60 * 1000) {
      this.lastPurge = ctx.clock.now();
      await purgeExpiredIdempotencyKeys(ctx);
    }
    return handled;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { void this.runDue().catch((err) => this.ctx.log.error({ err }, 'scheduler pass failed')); }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass?.catch(() => undefined);
    closeRelay(this.ctx);
  }
}

/** How long a daemon may hold a test-address reply before another may deliver it. */
const REPLY_LEASE_MS = 2 * 60_000;
/**
 * How long a scheduled send may stay `sending` before it counts as abandoned: longer than any
 * relay attempt (connection, greeting and data timeouts together stay well under this).
 */
export const SEND_LEASE_MS = 10 * 60_000;

export function createOutboundScheduler(ctx: AppContext): OutboundScheduler {
  return new OutboundScheduler(ctx);
}
