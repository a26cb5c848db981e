import type {
  Classification, InboundInput as ClassifierInput, OutboundInput, ScreenResult, SenderHistory,
} from '../classifier/index.js';
import type { PreparedInbound } from '../mail/parse.js';
import type { AuthCheckInput, AuthOutcome } from '../mail/auth.js';
import type { SanitizedHtml, SanitizeOptions } from '../mail/html-sanitize.js';
import type { AppContext } from './context.js';

/**
 * The CPU-heavy, side-effect-free work of the pipelines: MIME parse and reply extraction, inbound
 * classification, the outbound cold-email screen; and the sanitising of received HTML for display. The daemon runs it on a pool of worker threads
 * with a hard per-message budget (src/server/pipeline); without a pool (in-process tests,
 * `mailagent admin`) it runs inline on the calling thread, with no budget.
 *
 * Every method is total: a budget overrun or a crashed worker yields what could still be
 * computed, with `truncated: true`, never an error that would lose the message.
 */
/**
 * Classify in the same step as the parse (one trip to the pool instead of two), when the parsed
 * message's sender (From, else `mailFrom`: mail/parse.ts classifierFields) is `expectFrom`, the
 * address whose history the caller read before parsing. Any other sender, or work that does not
 * do it (inline): no classification in the result, and the caller classifies with the right
 * history. The pool's worker does it (server/pipeline/worker.ts).
 */
export interface ClassifyAlong {
  mailFrom: string;
  expectFrom: string;
  classifyIntent: boolean;
  history: SenderHistory;
  /** Anchors relative dates, as classify's `now`. */
  now: number;
}

/** A parse that may carry its classification (ClassifyAlong). */
export type ParsedAndClassified = PreparedInbound & { classification?: Classification };

export interface MessageWork {
  /** Parse and extract one message; with `along`, classify it in the same step when its sender is the expected one. */
  parse(raw: Buffer, along?: ClassifyAlong): Promise<ParsedAndClassified>;
  /** classifyInbound, off the main thread; `now` anchors relative dates. */
  classify(input: ClassifierInput, now: number): Promise<{ classification: Classification; truncated: boolean }>;
  /** screenOutbound, off the main thread. */
  screen(input: OutboundInput): Promise<ScreenResult>;
  /**
   * SPF/DKIM/DMARC of one message (never throws: "not checked" on failure). The pool runs it off
   * the main thread in rounds (DKIM hashes the whole body), the DNS questions asked here between
   * rounds through `input.resolver` (mail/auth.ts authenticateInRounds); inline, one pass.
   */
  authenticate(input: AuthCheckInput): Promise<AuthOutcome>;
  /**
   * Load what authenticate needs now (mailauth loads on first use: a daemon whose mail all comes from
   * trusted networks never loads it), so the first message to authenticate does not wait for it.
   */
  warmAuth(): Promise<void>;
  /**
   * sanitizeMailHtml of a received HTML body, for display (GET /v1/messages/received/{id}/html):
   * nested markup can cost sanitize-html seconds, so the pool runs it under the budget, a few at a
   * time (server/pipeline/index.ts). `{ cut }` when it overran the budget or killed its worker: the
   * caller shows a note, never the unsanitised HTML. Throws a 503 ApiError when too many views
   * already wait for a render, or the pool is closed (the daemon is stopping).
   */
  sanitizeHtml(html: string, opts: SanitizeOptions): Promise<SanitizedHtml | { cut: string }>;
}

// The parser, the classifier and mailauth load on first use: the daemon has a pool (its workers load them),
// and its main thread must not carry them too (test/unit/server/thread-modules.test.ts).
export const inlineWork: MessageWork = {
  // Inline, a second call costs nothing more than one: `along` is ignored and the caller classifies.
  parse: async (raw) => (await import('../mail/parse.js')).parseAndExtract(raw),
  classify: async (input, now) => ({ classification: (await import('../classifier/index.js')).classifyInbound(input, new Date(now)), truncated: false }),
  screen: async (input) => (await import('../classifier/index.js')).screenOutbound(input),
  authenticate: async (input) => (await import('../mail/auth-check.js')).checkAuthentication(input),
  warmAuth: () => import('../mail/auth-check.js').then(() => undefined, () => undefined),
  // No pool, no budget: in-process tests and one-shot commands render inline, one request at a time.
  sanitizeHtml: async (html, opts) => (await import('../mail/html-sanitize.js')).sanitizeMailHtml(html, opts),
};

/** The context's pool, or the same work inline. */
export function workOf(ctx: AppContext): MessageWork {
  return ctx.work ?? inlineWork;
}
