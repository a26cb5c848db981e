// A pipeline worker thread: parse, classify, screen, authenticate (SPF/DKIM/DMARC rounds), sanitise HTML for display. Imports mail and classifier only (checked by
// test/architecture.test.ts): no database, no events, nothing with side effects, so the pool can
// terminate it at any instant without losing or half-writing anything.
import { parentPort } from 'node:worker_threads';
import { classifierFields, parseAndExtract, preloadParser, type PreparedInbound } from '../../mail/parse.js';
import { classifyInbound, screenOutbound, type Classification } from '../../classifier/index.js';
import { threadHeap } from '../../shared/thread-heap.js';
import type { ClassifyAlong, FromWorker, Job, ToWorker } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('pipeline worker: not started as a worker thread');

async function run(job: Job): Promise<unknown> {
  switch (job.kind) {
    case 'parse': {
      const prepared = await parseAndExtract(Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength), { safe: job.safe });
      const classification = classifyAlong(prepared, job.along);
      return classification ? { ...prepared, classification } : prepared;
    }
    case 'classify':
      return classifyInbound(job.input, new Date(job.now));
    case 'screen':
      return screenOutbound(job.input);
    case 'auth':
      // mailauth (~8 MB of heap in each thread that loads it) loads on a worker's first check: a
      // daemon whose mail all comes from trusted networks (local development) never loads it.
      return job.input ? (await import('../../mail/auth-check.js')).authRound(job.input) : (await import('../../mail/auth-check.js'), null);
    case 'sanitize':
      // sanitize-html loads on a worker's first view (most daemons never render one).
      return (await import('../../mail/html-sanitize.js')).sanitizeMailHtml(job.html, { remoteImages: job.remoteImages, inline: new Map(job.inline) });
  }
}

/**
 * The classification of a just-parsed message, when its sender is the one the main thread read the
 * history of (services/message-work.ts ClassifyAlong); else undefined, and the main thread asks
 * again with the right history.
 */
function classifyAlong(prepared: PreparedInbound, along: ClassifyAlong | undefined): Classification | undefined {
  if (!along) return undefined;
  const fields = classifierFields(prepared.parsed, along.mailFrom);
  if (fields.from !== along.expectFrom) return undefined;
  return classifyInbound({ ...fields, classifyIntent: along.classifyIntent, history: along.history }, new Date(along.now));
}

/**
 * Attachment contents go back to the main thread moved, not copied: structured clone would copy
 * every byte again on the main thread when the message arrives (10 MB: milliseconds of its time).
 * A content that shares its memory (a slice of a larger buffer) is first copied here, off the
 * main thread, into memory of its own.
 */
function movable(result: unknown): ArrayBuffer[] {
  const attachments = (result as PreparedInbound | null)?.parsed?.attachments;
  if (!Array.isArray(attachments)) return [];
  const out: ArrayBuffer[] = [];
  for (const a of attachments) {
    if (a.content.byteLength < MOVE_MIN_BYTES) continue;
    if (a.content.byteOffset !== 0 || a.content.byteLength !== a.content.buffer.byteLength || out.includes(a.content.buffer as ArrayBuffer)) {
      a.content = Buffer.from(new Uint8Array(a.content).buffer);
    }
    out.push(a.content.buffer as ArrayBuffer);
  }
  return out;
}
/** Below this, copying is cheaper than moving memory between threads. */
const MOVE_MIN_BYTES = 64 * 1024;

port.on('message', (msg: ToWorker) => {
  if ('heap' in msg) {
    port.postMessage({ heap: msg.heap, stats: threadHeap() } satisfies FromWorker);
    return;
  }
  void (async () => {
    // In order, each answered as soon as it is done (the pool times each job from the previous answer).
    for (const { id, job } of msg.jobs) {
      try {
        const result = await run(job);
        port.postMessage({ id, ok: true, result } satisfies FromWorker, movable(result));
      } catch (err) {
        port.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies FromWorker);
      }
    }
  })();
});
// mail/parse.ts loads mailparser on first use (the main thread never parses): here, before the
// worker says it is ready, so the first message does not pay for it.
preloadParser();
port.postMessage({ ready: true } satisfies FromWorker);
