import { parentPort } from 'node:worker_threads';
import { ApiError } from '../../contract/errors.js';
import { threadHeap } from '../../shared/thread-heap.js';
import { parseJsonBytes } from './json-body.js';
import { liftAttachments } from './body-lift.js';
import type { BodyJob, BodyReply } from './body-worker.js';

/**
 * The body worker's thread (body-worker.ts): a large JSON request body's UTF-8 check, decoding,
 * depth/item scan and JSON.parse, and for the send routes the lifting of large base64
 * attachments (body-lift.ts). It imports json-body, body-lift, the contract and shared only.
 */
const port = parentPort!;
port.on('message', (m: BodyJob | 'heap') => {
  if (m === 'heap') {
    port.postMessage({ heap: threadHeap() });
    return;
  }
  let reply: BodyReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const value = parseJsonBytes(Buffer.from(m.bytes, 0, m.length));
    const lifted = m.lift ? liftAttachments(value, m.digest) : [];
    for (const l of lifted) transfer.push(l.bytes);
    reply = { id: m.id, value, lifted };
  } catch (err) {
    reply = err instanceof ApiError
      ? { id: m.id, error: { status: err.status, type: err.type, code: err.code, message: err.message, param: err.param } }
      : { id: m.id, error: null, message: (err as Error)?.message ?? String(err) };
  }
  port.postMessage(reply, transfer);
});
port.postMessage('ready');
