import type { InboundInput as ClassifierInput, OutboundInput } from '../../classifier/index.js';
import type { ThreadHeap } from '../../shared/thread-heap.js';
import type { ClassifyAlong } from '../../services/message-work.js';
import type { AuthRoundInput } from '../../mail/auth.js';

export type { ClassifyAlong };

/**
 * Messages between the pool (main thread) and a worker. Kept to plain data: structured clone
 * carries it (a Buffer arrives as a Uint8Array).
 */
export type Job =
  | { kind: 'parse'; raw: Uint8Array; safe: boolean; along?: ClassifyAlong }
  | { kind: 'classify'; input: ClassifierInput; now: number }
  | { kind: 'screen'; input: OutboundInput }
  /** A round of SPF/DKIM/DMARC; null: only load mailauth (MessageWork.warmAuth). */
  | { kind: 'auth'; input: AuthRoundInput | null }
  /** A received HTML body made safe to display (GET /v1/messages/received/{id}/html); `inline` as [Content-ID, data: URI] pairs. */
  | { kind: 'sanitize'; html: string; remoteImages: boolean; inline: [string, string][] };

/**
 * Jobs, run one after another, each answered on its own as it finishes (several in one message:
 * one wake-up of the worker for a group of messages, pool.ts dispatch); or a request for the
 * worker's heap statistics (answered between jobs).
 */
export type ToWorker = { jobs: { id: number; job: Job }[] } | { heap: number };

export type FromWorker =
  | { ready: true }
  | { heap: number; stats: ThreadHeap }
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string };
