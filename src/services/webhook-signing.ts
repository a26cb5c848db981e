import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Two signature schemes on every delivery (compat.md: "Webhook signature those clients verify"):
 *
 * - `X-Mails-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` — HMAC-SHA256 over `"<t>.<raw body>"` keyed
 *   with the WHOLE secret string, `whsec_` included. Those clients keep only the LAST `v1=`, so
 *   during a rotation the new secret's signature comes first and the previous secret's last.
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> ...`)
 *   — HMAC-SHA256 over `"<id>.<timestamp>.<raw body>"` keyed with the base64-DECODED part after
 *   `whsec_`. Our secrets are `whsec_` + standard base64 of 24 random bytes, so both work.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

export function mailsSignatureHex(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function standardSignature(secret: string, id: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', standardKey(secret)).update(`${id}.${t}.`).update(body).digest('base64');
}

export interface SignInput {
  /** Secrets in signing order: the current one first, the previous (during a rotation) last. */
  secrets: string[];
  messageId: string;
  timestamp: number;
  body: string | Buffer;
}

export function signatureHeaders(s: SignInput): Record<string, string> {
  return {
    'x-mails-signature': `t=${s.timestamp},` + s.secrets.map((k) => `v1=${mailsSignatureHex(k, s.timestamp, s.body)}`).join(','),
    'webhook-id': s.messageId,
    'webhook-timestamp': String(s.timestamp),
    'webhook-signature': s.secrets.map((k) => `v1,${standardSignature(k, s.messageId, s.timestamp, s.body)}`).join(' '),
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface VerifyResult {
  ok: boolean;
  reason?: string;
}

/** Default tolerance between the signed time and now (compat.md: clients reject more than 300 s). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Verify an `X-Mails-Signature` header. Any `v1=` entry matching is enough (a strict client keeps
 * only the last; we are lenient so both secrets verify during a rotation).
 */
export function verifyMailsSignature(
  secret: string, header: string, body: string | Buffer, nowSeconds: number, tolerance = SIGNATURE_TOLERANCE_SECONDS,
): VerifyResult {
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
  if (!sigs.length) return { ok: false, reason: 'the header has no v1= signature' };
  if (Math.abs(nowSeconds - t) > tolerance) return { ok: false, reason: `the timestamp is more than ${tolerance} s from now` };
  const want = mailsSignatureHex(secret, t, body);
  return sigs.some((s) => safeEqual(s, want)) ? { ok: true } : { ok: false, reason: 'no signature matches this secret and body' };
}

/** Verify Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
export function verifyStandardSignature(
  secret: string, h: { id: string; timestamp: string; signature: string }, body: string | Buffer, nowSeconds: number,
  tolerance = SIGNATURE_TOLERANCE_SECONDS,
): VerifyResult {
  if (!/^\d{1,12}$/.test(h.timestamp)) return { ok: false, reason: 'webhook-timestamp is not unix seconds' };
  const t = Number(h.timestamp);
  if (Math.abs(nowSeconds - t) > tolerance) return { ok: false, reason: `the timestamp is more than ${tolerance} s from now` };
  const want = standardSignature(secret, h.id, t, body);
  const ok = h.signature.split(' ').some((p) => {
    const [v, s] = p.split(',', 2);
    return v === 'v1' && s !== undefined && safeEqual(s, want);
  });
  return ok ? { ok: true } : { ok: false, reason: 'no signature matches this secret and body' };
}
