import type { AppContext } from '../../services/context.js';
import { emptyCounts, runRetention, type RetentionCounts, type RetentionPolicy } from '../../services/retention.js';
import { HOUR, MINUTE } from '../../shared/clock.js';
import type { Worker } from './index.js';

/** How often the retention pass runs; the first runs a minute after start (not in the boot rush). */
export const RETENTION_INTERVAL_MS = HOUR;
const FIRST_RUN_MS = MINUTE;

/**
 * Deletes what the retention policy says is expired (services/retention.ts), in batches, and gives
 * the freed pages back to the filesystem. runOnce() is one pass (tests and `admin purge` call the
 * service directly); start() runs it every hour, even with an empty policy (thread deletions and
 * purges leave free pages to reclaim).
 */
export class RetentionWorker implements Worker {
  readonly name = 'retention';
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<RetentionCounts> | null = null;
  private abort = new AbortController();
  /** The last pass that finished, for readiness and metrics. */
  last: { at: number; counts: RetentionCounts; error: string | null } | null = null;

  constructor(private readonly ctx: AppContext, private readonly policy: RetentionPolicy, private readonly intervalMs = RETENTION_INTERVAL_MS) {}

  runOnce(): Promise<RetentionCounts> {
    this.pass ??= runRetention(this.ctx, this.policy, { signal: this.abort.signal })
      .then((counts) => {
        this.last = { at: this.ctx.clock.now(), counts, error: null };
        const deleted = counts.received + counts.sent + counts.events + counts.webhookDeliveries + counts.requestLog;
        if (deleted || counts.pagesFreed) this.ctx.log.info({ retention: counts }, 'retention pass');
        return counts;
      }, (err: unknown) => {
        this.last = { at: this.ctx.clock.now(), counts: emptyCounts(), error: (err as Error).message };
        this.ctx.log.error({ err }, 'retention pass failed');
        return emptyCounts();
      })
      .finally(() => { this.pass = null; });
    return this.pass;
  }

  start(): void {
    if (this.timer) return;
    this.abort = new AbortController();
    const schedule = (ms: number) => {
      this.timer = setTimeout(() => { void this.runOnce().finally(() => { if (this.timer) schedule(this.intervalMs); }); }, ms);
      this.timer.unref();
    };
    schedule(Math.min(FIRST_RUN_MS, this.intervalMs));
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort(); // a pass stops between batches; each batch is its own transaction
    await this.pass;
  }

  health(): { ok: boolean; detail: string } {
    if (this.last?.error) return { ok: false, detail: `last pass failed: ${this.last.error}` };
    return { ok: true, detail: this.last ? `last pass ${new Date(this.last.at).toISOString()}` : 'no pass yet' };
  }
}
