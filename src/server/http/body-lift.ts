import { createHash } from 'node:crypto';
import { AttachmentInput } from '../../contract/messages.js';

/**
 * Lifting large attachments out of a parsed send body, on the body worker's thread
 * (body-worker.ts): each base64 string of at least LIFT_MIN_CHARS in `attachments[i].content_base64`
 * or `.content` (of the body, of each batch item, or of `messages[i]`) is checked against the
 * contract's base64 pattern and decoded there, and replaced in the body by a stand-in:
 * - valid: `''`, or with `digest` the string's SHA-256 in hex (a request's idempotency fingerprint,
 *   services/idempotency.ts, then still tells two attachments apart); both pass the pattern, and the
 *   decoded bytes go to the main thread beside the body (shared/lifted-attachments.ts);
 * - not base64: NOT_BASE64, which fails the pattern, so the main thread's validation answers the
 *   same 400 it would have for the whole string, without running the pattern over 33 MB.
 * What is left for the main thread is a small object: its validation walks no large string.
 */
export const LIFT_MIN_CHARS = 64 * 1024;
export const NOT_BASE64 = '!';
const FIELDS = ['content_base64', 'content'] as const;
/** ajv compiles `pattern` with the `u` flag: the same here, so both agree on every string. */
const BASE64 = new RegExp((AttachmentInput.properties.content_base64 as unknown as { pattern: string }).pattern, 'u');

export interface LiftedPart {
  /** The attachment item: keys from the body's root (`['attachments', 0]`, `[3, 'attachments', 0]`). */
  path: (string | number)[];
  field: string;
  /** The decoded bytes, an ArrayBuffer of their own (transferable). */
  bytes: ArrayBuffer;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The send requests a body holds: itself, a batch's items (a JSON array, or `{messages: [...]}`). */
function sendsOf(body: unknown): [unknown, (string | number)[]][] {
  if (Array.isArray(body)) return body.map((v, i) => [v, [i]]);
  const out: [unknown, (string | number)[]][] = [[body, []]];
  if (isObject(body) && Array.isArray(body.messages)) body.messages.forEach((v, i) => out.push([v, ['messages', i]]));
  return out;
}

/** Decode and replace the body's large base64 attachment strings in place; the decoded parts. */
export function liftAttachments(body: unknown, digest: boolean): LiftedPart[] {
  const out: LiftedPart[] = [];
  for (const [send, at] of sendsOf(body)) {
    const list = isObject(send) ? send.attachments : undefined;
    if (!Array.isArray(list)) continue;
    list.forEach((item, j) => {
      if (!isObject(item)) return;
      for (const field of FIELDS) {
        const s = item[field];
        if (typeof s !== 'string' || s.length < LIFT_MIN_CHARS) continue;
        if (!BASE64.test(s)) {
          item[field] = NOT_BASE64;
          continue;
        }
        const bytes = Buffer.from(s, 'base64');
        item[field] = digest ? createHash('sha256').update(s).digest('hex') : '';
        out.push({ path: [...at, 'attachments', j], field, bytes: ownArrayBuffer(bytes) });
      }
    });
  }
  return out;
}

/** The bytes as an ArrayBuffer holding nothing else (a pooled Buffer's would move its neighbours too). */
export function ownArrayBuffer(b: Buffer): ArrayBuffer {
  if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer) return b.buffer;
  const copy = new ArrayBuffer(b.byteLength);
  new Uint8Array(copy).set(b);
  return copy;
}

/** The object at `path` in a parsed body (the main thread ties the decoded bytes to it). */
export function itemAt(body: unknown, path: (string | number)[]): object | null {
  let v = body;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return null;
    v = (v as Record<string | number, unknown>)[k];
  }
  return typeof v === 'object' && v !== null ? v : null;
}
