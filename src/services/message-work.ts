import {
  classifyInbound, screenOutbound, type Classification, type InboundInput as ClassifierInput, type OutboundInput, type ScreenResult,
} from '../classifier/index.js';
import { parseAndExtract, type PreparedInbound } from '../mail/parse.js';
import type { AppContext } from './context.js';

/**
 * The CPU-heavy, side-effect-free work of the pipelines: MIME parse and reply extraction, inbound
 * classification, the outbound cold-email screen. The daemon runs it on a pool of worker threads
 * with a hard per-message budget (src/server/pipeline); without a pool (in-process tests,
 * `mailagent admin`) it runs inline on the calling thread, with no budget.
 *
 * Every method is total: a budget overrun or a crashed worker yields what could still be
 * computed, with `truncated: true`, never an error that would lose the message.
 */
export interface MessageWork {
  /** Parse and extract one message. */
  parse(raw: Buffer): Promise<PreparedInbound>;
  /** classifyInbound, off the main thread; `now` anchors relative dates. */
  classify(input: ClassifierInput, now: number): Promise<{ classification: Classification; truncated: boolean }>;
  /** screenOutbound, off the main thread. */
  screen(input: OutboundInput): Promise<ScreenResult>;
}

export const inlineWork: MessageWork = {
  parse: (raw) => parseAndExtract(raw),
  classify: async (input, now) => ({ classification: classifyInbound(input, new Date(now)), truncated: false }),
  screen: async (input) => screenOutbound(input),
};

/** The context's pool, or the same work inline. */
export function workOf(ctx: AppContext): MessageWork {
  return ctx.work ?? inlineWork;
}
