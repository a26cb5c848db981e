import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SinkRequest } from '../../helpers/sink.js';

/**
 * Signature checks written from compat.md and the Standard Webhooks spec, independently of
 * src/services/webhook-signing.ts, so a bug there cannot hide in a shared helper.
 */

/** compat.md: t=<unix>,v1=<hex HMAC-SHA256("t.body") keyed with the whole whsec_ string>. */
export function mailsEntries(header: string): { t: number; v1: string[] } {
  const parts = header.split(',').map((p) => p.split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  return { t, v1: parts.filter(([k]) => k === 'v1').map(([, v]) => v) };
}

export function mailsHex(secret: string, t: number, raw: Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.concat([Buffer.from(`${t}.`), raw])).digest('hex');
}

/** What a strict client does: keep only the LAST v1 entry, constant-time compare. */
export function strictClientAccepts(secret: string, r: SinkRequest): boolean {
  const { t, v1 } = mailsEntries(String(r.headers['x-mails-signature']));
  const last = v1[v1.length - 1];
  const want = mailsHex(secret, t, r.raw);
  return last.length === want.length && timingSafeEqual(Buffer.from(last), Buffer.from(want));
}

/** Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body", key = base64-decoded secret after whsec_. */
export function standardAccepts(secret: string, r: SinkRequest): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const want = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), r.raw])).digest('base64');
  return String(r.headers['webhook-signature']).split(' ').some((p) => p === `v1,${want}`);
}
