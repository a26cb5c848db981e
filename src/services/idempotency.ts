import { createHash } from 'node:crypto';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, purgeIdempotencyKeys } from '../db/repos/idempotency.js';
import { Errors } from '../shared/errors.js';
import { DAY, isoAt } from '../shared/clock.js';
import { SEND_LIMITS } from '../contract/messages.js';
import type { AppContext, AuthContext } from './context.js';

/** Keys are kept 24 hours (spec: Idempotency-Key). */
export const IDEMPOTENCY_TTL_MS = DAY;

export interface StoredResponse {
  status: number;
  body: string;
  requestId: string;
}

export type IdempotencyBegin =
  | { kind: 'none' }
  | { kind: 'claimed'; scope: string; key: string }
  | { kind: 'replay'; response: StoredResponse };

/** Stable JSON (sorted keys) so the same request hashes the same however its keys are ordered. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export function requestFingerprint(routeId: string, params: unknown, body: unknown): string {
  return createHash('sha256').update(`${routeId}\n${canonical(params)}\n${canonical(body)}`).digest('hex');
}

/**
 * Start an idempotent request (spec: Idempotency-Key; compat.md: Idempotent-Replay). Keys are
 * scoped to the workspace, the key's mode and its agent binding. The first request claims the
 * key atomically; a repeat of a finished request replays it; one still in progress is 409; the
 * same key with another request is 400 invalid_idempotency_key.
 */
export async function beginIdempotent(
  ctx: AppContext, auth: AuthContext, rawKey: string | string[] | undefined, fingerprintOf: () => string,
): Promise<IdempotencyBegin> {
  if (rawKey === undefined) return { kind: 'none' };
  const key = Array.isArray(rawKey) ? rawKey.join(',') : rawKey;
  if (!key.length) throw Errors.invalidIdempotencyKey('The Idempotency-Key header is empty.');
  if (key.length > SEND_LIMITS.idempotencyKey) {
    throw Errors.invalidIdempotencyKey(`The Idempotency-Key is ${key.length} characters long; at most ${SEND_LIMITS.idempotencyKey} are allowed.`);
  }
  const scope = `${auth.workspaceId}:${auth.mode}:${auth.agentId ?? '*'}`;
  const fingerprint = fingerprintOf();
  const now = ctx.clock.now();
  const existing = await claimIdempotencyKey(ctx.db, { scope, key, request_hash: fingerprint, created_at: isoAt(now) }, isoAt(now - IDEMPOTENCY_TTL_MS));
  if (!existing) return { kind: 'claimed', scope, key };
  if (existing.request_hash !== fingerprint) {
    throw Errors.invalidIdempotencyKey('This Idempotency-Key was already used with a different request; use a new key for a new request.');
  }
  if (existing.state !== 'done' || existing.response_status === null) {
    throw Errors.duplicate('A request with this Idempotency-Key is still in progress; retry once it has finished.');
  }
  return { kind: 'replay', response: { status: existing.response_status, body: existing.response_body ?? '', requestId: existing.request_id ?? '' } };
}

/** 429 and 5xx outcomes are not stored, so a retry with the same key can succeed. */
export async function finishIdempotent(ctx: AppContext, claim: { scope: string; key: string }, r: StoredResponse): Promise<void> {
  if (r.status === 429 || r.status >= 500) await releaseIdempotencyKey(ctx.db, claim.scope, claim.key);
  else await completeIdempotencyKey(ctx.db, claim.scope, claim.key, r);
}

export async function purgeExpiredIdempotencyKeys(ctx: AppContext): Promise<void> {
  await purgeIdempotencyKeys(ctx.db, isoAt(ctx.clock.now() - IDEMPOTENCY_TTL_MS));
}
