// A pipeline worker thread: parse, classify, screen. Imports mail and classifier only (checked by
// test/architecture.test.ts): no database, no events, nothing with side effects, so the pool can
// terminate it at any instant without losing or half-writing anything.
import { parentPort } from 'node:worker_threads';
import { parseAndExtract } from '../../mail/parse.js';
import { classifyInbound, screenOutbound } from '../../classifier/index.js';
import { threadHeap } from '../../shared/thread-heap.js';
import type { FromWorker, Job, ToWorker } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('pipeline worker: not started as a worker thread');

async function run(job: Job): Promise<unknown> {
  switch (job.kind) {
    case 'parse':
      return parseAndExtract(Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength), { safe: job.safe });
    case 'classify':
      return classifyInbound(job.input, new Date(job.now));
    case 'screen':
      return screenOutbound(job.input);
  }
}

port.on('message', (msg: ToWorker) => {
  if ('heap' in msg) {
    port.postMessage({ heap: msg.heap, stats: threadHeap() } satisfies FromWorker);
    return;
  }
  run(msg.job).then(
    (result) => port.postMessage({ id: msg.id, ok: true, result } satisfies FromWorker),
    (err: unknown) => port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies FromWorker),
  );
});
port.postMessage({ ready: true } satisfies FromWorker);
