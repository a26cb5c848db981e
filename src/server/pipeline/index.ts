import { availableParallelism } from 'node:os';
import type {
  Classification, InboundInput as ClassifierInput, OutboundInput, ScreenResult,
} from '../../classifier/index.js';
import { headersOnly, PARSE_CUT_SHORT, type ParsedInbound, type PreparedInbound } from '../../mail/parse.js';
import type { ClassifyAlong, MessageWork, ParsedAndClassified } from '../../services/message-work.js';
import { authenticateInRounds, type AuthCheckInput, type AuthOutcome, type AuthRound } from '../../mail/auth.js';
import type { Logger } from '../../shared/log.js';
import type { ThreadHeap } from '../../shared/thread-heap.js';
import type { SanitizedHtml, SanitizeOptions } from '../../mail/html-sanitize.js';
import { Errors } from '../../shared/errors.js';
import { failClosed } from '../../classifier/quarantine.js';
import { authWorkers, PoolClosed, WorkerPool, type PoolStats } from './pool.js';

export { authWorkers, BudgetExceeded, GROW_AFTER_HELD_MS, PoolClosed, WorkerFailed, WorkerPool, type PoolStats } from './pool.js';

/** Defaults (README configuration table; docs/inbound.md "Limits"). */
export const DEFAULT_BUDGET_MS = 5_000;
export const DEFAULT_WORKER_HEAP_MB = 512;
/**
 * A worker's young generation (new space 2/3 of it: 2 MB instead of V8's 32 MB; pool.ts): ~2 MB
 * less resident per worker than 6 MB, ~6 MB less than 12 MB, CPU time per message within what
 * the runs resolve (bench/README.md round 2 sessions 11, 12 and 13). Hostile HTML parses slower
 * with a smaller one (20,000 nested divs: ~1.6–2.2 s at 6 MB instead of ~1.1–1.6 s at 12 MB, at
 * load 16), so a loaded machine may cut that parse at the budget; the safe pass then still gives
 * the text (mail/parse.ts).
 */
export const DEFAULT_WORKER_YOUNG_MB = 3;
/** One worker per core, at least two: a message that holds one worker for its whole budget leaves another for the rest. */
export function defaultWorkerCount(): number {
  return Math.max(2, availableParallelism());
}
/**
 * Workers started with the daemon; the others (up to `pipelineWorkers`) start when mail waits
 * behind busy workers — a job that has held its worker GROW_AFTER_HELD_MS, or one that has waited
 * a budget's length for a worker (pool.ts watchWaiting) — and then stay. One worker keeps up
 * with a steady stream of ordinary mail on its own (the main thread's part of a message costs
 * more than the worker's), and each worker not started is ~20–25 MB less resident
 * (bench/README.md, round 2 session 14).
 */
export const WORKERS_AT_START = 1;

/** What a bounded retry keeps of a message's text once the full pass overran (classifier, screen). */
const RETRY_TEXT_CHARS = 16 * 1024;
/** The last resort runs on the main thread, so it gets almost nothing: the subject, cut short. */
const LAST_RESORT_SUBJECT_CHARS = 200;

/**
 * HTML renders (MessageWork.sanitizeHtml) running in the pool at once: half the workers, at least
 * one, so a flood of views of crafted HTML leaves the other workers to the mail coming in.
 */
export function htmlRenderSlots(workers: number): number {
  return Math.max(1, Math.floor(workers / 2));
}
/** HTML renders waiting for a slot; one more is refused with 503 (docs/web.md, docs/security.md). */
export const HTML_RENDERS_WAITING = 16;

export interface PipelineOptions {
  /** Workers at most. */
  workers: number;
  /** Workers started at once (default WORKERS_AT_START); the rest when mail waits (pool.ts PoolOptions.startSize). */
  workersAtStart?: number;
  /** pool.ts PoolOptions.growAfterHeldMs / growAfterWaitMs (defaults GROW_AFTER_HELD_MS, the budget). */
  growAfterHeldMs?: number;
  growAfterWaitMs?: number;
  budgetMs: number;
  maxHeapMb?: number;
  maxYoungMb?: number;
  /** The workers' entry (tests: a broken install). */
  workerUrl?: URL;
  log: Logger;
}

export interface Pipeline {
  work: MessageWork;
  /** Resolves once every worker has started; rejects if they keep failing to, or take longer than `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  stats(): PoolStats;
  /** Each pool worker's V8 heap (null: starting, or busy; /metrics mailagent_thread_heap_bytes). */
  heap(): Promise<(ThreadHeap | null)[]>;
  close(): Promise<void>;
}

/**
 * The classifier on the main thread, for the last resort only: loaded then, not at start-up (the
 * workers classify; the main thread would otherwise carry the weights for nothing).
 */
const lastResort = () => import('../../classifier/index.js');

/** A Buffer again: structured clone delivers Buffers as plain Uint8Arrays. */
const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

function revive<T extends PreparedInbound>(p: T): T {
  for (const a of p.parsed.attachments) a.content = asBuffer(a.content);
  return p;
}

/**
 * The daemon's MessageWork: every job runs in the worker pool under the budget. When a job overruns
 * (or its worker dies), a cheaper, linear pass runs instead, again in the pool, and the result says
 * `truncated`; only if that fails too does a bounded last resort run here. A closed pool (shutdown)
 * is the one error that reaches the caller, who answers a temporary failure (SMTP 451).
 */
export function createPipeline(opts: PipelineOptions): Pipeline {
  const pool = new WorkerPool({
    size: opts.workers, startSize: opts.workersAtStart ?? WORKERS_AT_START,
    growAfterHeldMs: opts.growAfterHeldMs, growAfterWaitMs: opts.growAfterWaitMs,
    budgetMs: opts.budgetMs, maxHeapMb: opts.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB,
    maxYoungMb: opts.maxYoungMb ?? DEFAULT_WORKER_YOUNG_MB, log: opts.log, workerUrl: opts.workerUrl,
  });
  const cutShort = (what: string, err: unknown) => {
    if (err instanceof PoolClosed) throw err;
    const why = err instanceof Error ? err.message : String(err);
    opts.log.warn({ reason: why }, `pipeline: ${what} cut short`);
    return why;
  };

  const renders = { running: 0, waiting: [] as (() => void)[] };
  const renderSlots = htmlRenderSlots(opts.workers);

  const work: MessageWork = {
    async parse(raw: Buffer, along?: ClassifyAlong): Promise<ParsedAndClassified> {
      let why: string;
      try {
        // Classified in the same job when the sender is the expected one (one trip instead of
        // two). If this overruns, the retries below parse only: the caller classifies apart.
        return revive(await pool.run({ kind: 'parse', raw, safe: false, along }) as ParsedAndClassified);
      } catch (err) {
        why = cutShort('message parse', err);
      }
      // Safe mode: no HTML-to-text pass (the superlinear part), linear in the input.
      try {
        const p = revive(await pool.run({ kind: 'parse', raw, safe: true }) as PreparedInbound);
        p.parsed.problems.push(`extraction cut short: the full parse ran ${why}; parsed again without HTML-to-text conversion`);
        return { ...p, truncated: true };
      } catch (err) {
        why = cutShort('safe message parse', err);
      }
      const parsed: ParsedInbound = headersOnly(raw, `${PARSE_CUT_SHORT} ${why}; headers and body bytes kept only`);
      return { parsed, extracted: '', truncated: true };
    },

    async classify(input: ClassifierInput, now: number): Promise<{ classification: Classification; truncated: boolean }> {
      try {
        return { classification: await pool.run({ kind: 'classify', input, now }) as Classification, truncated: false };
      } catch (err) {
        cutShort('classification', err);
      }
      // Fail closed (session 13): a retry that could not read every body's text must not leave the
      // message reading as clean (an unscanned injection would reach an agent's model): its score is
      // raised to the quarantine point (classifier/quarantine.ts failClosed). A retry that read the
      // bodies whole (both within RETRY_TEXT_CHARS) stands as it is.
      const whole = input.text.length <= RETRY_TEXT_CHARS && (input.html ?? '').length <= RETRY_TEXT_CHARS;
      try {
        const bounded: ClassifierInput = { ...input, text: input.text.slice(0, RETRY_TEXT_CHARS), html: input.html ? input.html.slice(0, RETRY_TEXT_CHARS) : null };
        const c = await pool.run({ kind: 'classify', input: bounded, now }) as Classification;
        return { classification: whole ? c : failClosed(c), truncated: true };
      } catch (err) {
        cutShort('bounded classification', err);
      }
      const minimal: ClassifierInput = { ...input, subject: input.subject.slice(0, LAST_RESORT_SUBJECT_CHARS), text: '', html: null, headers: {} };
      const c = (await lastResort()).classifyInbound(minimal, new Date(now));
      const unread = Boolean(input.text.trim() || input.html?.trim()) || input.subject.length > LAST_RESORT_SUBJECT_CHARS;
      return { classification: unread ? failClosed(c) : c, truncated: true };
    },

    async screen(input: OutboundInput): Promise<ScreenResult> {
      try {
        return await pool.run({ kind: 'screen', input }) as ScreenResult;
      } catch (err) {
        cutShort('outbound screen', err);
      }
      try {
        const bounded: OutboundInput = { ...input, text: (input.text ?? '').slice(0, RETRY_TEXT_CHARS), html: input.html ? input.html.slice(0, RETRY_TEXT_CHARS) : null, attachmentText: null };
        return await pool.run({ kind: 'screen', input: bounded }) as ScreenResult;
      } catch (err) {
        cutShort('bounded outbound screen', err);
      }
      return (await lastResort()).screenOutbound({ ...input, subject: input.subject.slice(0, LAST_RESORT_SUBJECT_CHARS), text: '', html: null, attachmentText: null });
    },

    authenticate(input: AuthCheckInput): Promise<AuthOutcome> {
      return authenticateInRounds(input, async (round) => {
        // No cheaper pass exists (DKIM hashes the body or proves nothing): a round past the budget
        // (or a crashed worker) leaves the message "not checked" (null), as a DNS failure does.
        try {
          return await pool.run({ kind: 'auth', input: round }) as AuthRound;
        } catch (err) {
          cutShort('authentication', err);
          return { outcome: { spf: null, dkim: null, dmarc: null, header: null } };
        }
      });
    },

    async warmAuth(): Promise<void> {
      // Every worker that takes rounds (pool.ts authWorkers) loads mailauth; one job each.
      await Promise.all(Array.from({ length: authWorkers(opts.workers) }, () => pool.run({ kind: 'auth', input: null }).catch(() => undefined)));
    },

    async sanitizeHtml(html: string, options: SanitizeOptions): Promise<SanitizedHtml | { cut: string }> {
      if (renders.running >= renderSlots) {
        if (renders.waiting.length >= HTML_RENDERS_WAITING) {
          throw Errors.serviceUnavailable(`${renderSlots + HTML_RENDERS_WAITING} HTML views are being rendered or wait for it; try again in a few seconds, or read the message's text body.`, 5);
        }
        await new Promise<void>((resolve) => renders.waiting.push(resolve));
      } else {
        renders.running++;
      }
      try {
        return await pool.run({ kind: 'sanitize', html, remoteImages: options.remoteImages, inline: [...(options.inline ?? [])] }) as SanitizedHtml;
      } catch (err) {
        // No cheaper pass that is still safe: the caller shows a note instead of the HTML.
        if (err instanceof PoolClosed) throw Errors.serviceUnavailable('The daemon is stopping; try again in a moment.', 5);
        return { cut: cutShort('HTML render', err) };
      } finally {
        // The slot passes straight to the next waiter (running stays counted), or is freed.
        const next = renders.waiting.shift();
        if (next) next();
        else renders.running--;
      }
    },
  };

  return { work, ready: (timeoutMs) => pool.ready(timeoutMs), stats: () => pool.stats(), heap: () => pool.heap(), close: () => pool.close() };
}
