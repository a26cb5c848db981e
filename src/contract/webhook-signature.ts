/**
 * Webhook signatures (compat.md: "Webhook signature those clients verify"; docs/events-webhooks.md).
 * The ONE implementation: the daemon signs deliveries with it (services/webhook-signing.ts) and the
 * CLI signs `webhooks listen` forwards and checks `webhooks verify` with it.
 *
 * It lives in the contract because the scheme is part of the public contract and the contract is
 * the only module both sides may import (cli → client → contract; services → … → contract). The
 * contract may not use node: modules, so it uses WebCrypto (`globalThis.crypto.subtle`, global in
 * Node ≥ 19 and in browsers), which is why every HMAC here is async.
 *
 * - `X-Mails-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` — HMAC-SHA256 over `"<t>.<raw body>"` keyed
 *   with the WHOLE secret string, `whsec_` included. Those clients keep only the LAST `v1=`, so
 *   during a rotation the new secret's signature comes first and the previous secret's last.
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> ...`)
 *   — HMAC-SHA256 over `"<id>.<timestamp>.<raw body>"` keyed with the base64-DECODED part after
 *   `whsec_`.
 */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Default tolerance between the signed time and now (compat.md: clients reject more than 300 s). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignedBody = string | Uint8Array;

const utf8 = new TextEncoder();

function subtle(): HmacSubtle {
  const c = (globalThis as { crypto?: { subtle?: HmacSubtle } }).crypto;
  if (!c?.subtle) throw new Error('WebCrypto (globalThis.crypto.subtle) is not available: Node 20 or later is required');
  return c.subtle;
}

/** The part of WebCrypto used here (lib "DOM" is not loaded). */
type HmacSubtle = {
  importKey(format: 'raw', key: Uint8Array, alg: { name: 'HMAC'; hash: 'SHA-256' }, extractable: false, usages: ['sign']): Promise<unknown>;
  sign(alg: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
};

function concat(prefix: string, body: SignedBody): Uint8Array {
  const head = utf8.encode(prefix);
  const tail = typeof body === 'string' ? utf8.encode(body) : body;
  const out = new Uint8Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const s = subtle();
  const k = await s.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await s.sign('HMAC', k, data));
}

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function toBase64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

/**
 * The Standard Webhooks key: the base64 after `whsec_`. Lenient like Node's Buffer (whitespace and
 * missing padding tolerated) so a hand-typed secret behaves as it does with other libraries; null
 * when it is not base64 at all.
 */
export function standardKey(secret: string): Uint8Array | null {
  let b64 = (secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret).replace(/\s+/g, '');
  b64 = b64.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(b64) || b64.length % 4 === 1) return null;
  b64 += '='.repeat((4 - (b64.length % 4)) % 4);
  const bin = atob(b64);
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

/** `whsec_` + standard base64 of 24 random bytes (matches SIGNING_SECRET_PATTERN in webhooks.ts). */
export function generateSigningSecret(): string {
  const bytes = new Uint8Array(24);
  (globalThis as unknown as { crypto: { getRandomValues(a: Uint8Array): Uint8Array } }).crypto.getRandomValues(bytes);
  return SIGNING_SECRET_PREFIX + toBase64(bytes);
}

export async function mailsSignatureHex(secret: string, t: number, body: SignedBody): Promise<string> {
  return toHex(await hmacSha256(utf8.encode(secret), concat(`${t}.`, body)));
}

export async function standardSignature(secret: string, id: string, t: number, body: SignedBody): Promise<string> {
  const key = standardKey(secret);
  if (!key) throw new TypeError('the signing secret is not whsec_ followed by base64');
  return toBase64(await hmacSha256(key, concat(`${id}.${t}.`, body)));
}

export interface SignInput {
  /** Secrets in signing order: the current one first, the previous (during a rotation) last. */
  secrets: string[];
  /** Standard Webhooks `webhook-id` (the event id: the same on every retry). */
  messageId: string;
  /** Unix seconds. */
  timestamp: number;
  body: SignedBody;
}

/** `x-mails-signature`, `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
export async function signatureHeaders(s: SignInput): Promise<Record<string, string>> {
  const mails = await Promise.all(s.secrets.map((k) => mailsSignatureHex(k, s.timestamp, s.body)));
  const standard = await Promise.all(s.secrets.map((k) => standardSignature(k, s.messageId, s.timestamp, s.body)));
  return {
    'x-mails-signature': `t=${s.timestamp},` + mails.map((h) => `v1=${h}`).join(','),
    'webhook-id': s.messageId,
    'webhook-timestamp': String(s.timestamp),
    'webhook-signature': standard.map((b) => `v1,${b}`).join(' '),
  };
}

/** Constant-time comparison of two ASCII strings (the lengths are not secret). */
function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export interface VerifyResult {
  ok: boolean;
  reason?: string;
  /** The signed time (unix seconds), when the header carried one. */
  timestamp?: number;
}

function checkTime(t: number, nowSeconds: number, tolerance: number): string | null {
  const skew = nowSeconds - t;
  if (Math.abs(skew) <= tolerance) return null;
  return skew > 0
    ? `the signature is ${skew} s old (more than the ${tolerance} s tolerance)`
    : `the signature is ${-skew} s in the future (more than the ${tolerance} s tolerance)`;
}

/**
 * Verify an `X-Mails-Signature` header. Any `v1=` entry matching is enough (a strict client keeps
 * only the last; we are lenient so both secrets verify during a rotation).
 */
export async function verifyMailsSignature(
  secret: string, header: string, body: SignedBody, nowSeconds: number, tolerance = SIGNATURE_TOLERANCE_SECONDS,
): Promise<VerifyResult> {
  let t: number | null = null;
  const sigs: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1') sigs.push(v.toLowerCase());
  }
  if (t === null) return { ok: false, reason: 'the header has no t=<unix seconds>' };
  if (!sigs.length) return { ok: false, reason: 'the header has no v1= signature', timestamp: t };
  const late = checkTime(t, nowSeconds, tolerance);
  if (late) return { ok: false, reason: late, timestamp: t };
  const want = await mailsSignatureHex(secret, t, body);
  return sigs.some((s) => safeEqual(s, want))
    ? { ok: true, timestamp: t }
    : { ok: false, reason: 'no v1= signature matches this secret and body', timestamp: t };
}

/** Verify Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
export async function verifyStandardSignature(
  secret: string, h: { id: string; timestamp: string; signature: string }, body: SignedBody, nowSeconds: number,
  tolerance = SIGNATURE_TOLERANCE_SECONDS,
): Promise<VerifyResult> {
  if (!/^\d{1,12}$/.test(h.timestamp.trim())) return { ok: false, reason: 'webhook-timestamp is not unix seconds' };
  const t = Number(h.timestamp.trim());
  if (!standardKey(secret)) return { ok: false, reason: 'the secret is not whsec_ followed by base64', timestamp: t };
  const late = checkTime(t, nowSeconds, tolerance);
  if (late) return { ok: false, reason: late, timestamp: t };
  const want = await standardSignature(secret, h.id, t, body);
  const sigs = h.signature.trim().split(/\s+/).map((p) => p.split(','));
  if (!sigs.some(([v]) => v === 'v1')) return { ok: false, reason: 'webhook-signature has no v1,<base64> entry', timestamp: t };
  const ok = sigs.some(([v, s]) => v === 'v1' && s !== undefined && safeEqual(s, want));
  return ok ? { ok: true, timestamp: t } : { ok: false, reason: 'no v1, signature matches this secret, id, timestamp and body', timestamp: t };
}
