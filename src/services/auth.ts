import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { apiKeyByHash, apiKeysEpoch, setApiKeysLastUsed, type ApiKeyRow } from '../db/repos/api-keys.js';
import { grantByAccessHash, setGrantLastUsed, type GrantRow } from '../db/repos/connected-apps.js';
import { Errors } from '../shared/errors.js';
import { runTransaction, withTransactionKind } from '../db/open.js';
import { isoAt, DAY, MINUTE } from '../shared/clock.js';
import { GRANT_IDLE_DAYS } from '../contract/oauth.js';
import type { ScopeRule } from '../contract/route.js';
import type { Mode, Scope } from '../contract/common.js';
import type { AppContext, AuthContext } from './context.js';

// crypto.hash (Node ≥ 20.12) is the one-shot form: no Hash object per authenticated request.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;

export function hashKey(key: string): string {
  return oneShot ? oneShot('sha256', key, 'hex') : createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(mode: Mode): { key: string; prefix: string; hash: string } {
  const key = `mk_${mode}_${randomBytes(16).toString('hex')}`;
  return { key, prefix: key.slice(0, 12), hash: hashKey(key) };
}

/** last_used_at is written at most once a minute per key, so reads do not each cost a write. */
const LAST_USED_GRANULARITY = MINUTE;

// ------------------------------------------------------------------ key cache
/**
 * API keys by SHA-256, so an authenticated request costs no SELECT. An entry is used only while
 * (a) no write to api_keys happened since it was read (db/repos/api-keys.ts counts every write,
 * whatever the code path: revocation, a new key), (b) it is younger than KEY_CACHE_TTL_MS — the
 * bound for a change made by another process on the same database (PostgreSQL cluster, a manual
 * UPDATE) — and (c) its expiry has not passed, which is checked against the clock on every
 * request exactly as for an uncached key. Unknown hashes are not cached (no negative entries), so
 * a new key works at once and random tokens cannot fill the map.
 */
const KEY_CACHE_TTL_MS = 1000;
const KEY_CACHE_MAX = 10_000;
interface CachedKey {
  row: ApiKeyRow;
  epoch: number;
  at: number;
}
const keyCaches = new WeakMap<AppContext, Map<string, CachedKey>>();

function keyCacheOf(ctx: AppContext): Map<string, CachedKey> {
  let c = keyCaches.get(ctx);
  if (!c) keyCaches.set(ctx, (c = new Map()));
  return c;
}

/** Drop every cached key of this context (after a committed revocation: see services/api-keys.ts). */
export function forgetCachedKeys(ctx: AppContext): void {
  keyCacheOf(ctx).clear();
}

/** The cached row of a key hash while the cache may answer for it (see above); undefined otherwise. */
function cachedKey(ctx: AppContext, hash: string): ApiKeyRow | undefined {
  const hit = keyCacheOf(ctx).get(hash);
  return hit && hit.epoch === apiKeysEpoch() && performance.now() - hit.at < KEY_CACHE_TTL_MS ? hit.row : undefined;
}

async function keyByHash(ctx: AppContext, hash: string): Promise<ApiKeyRow | undefined> {
  const hit = cachedKey(ctx, hash);
  if (hit) return hit;
  const cache = keyCacheOf(ctx);
  const epoch = apiKeysEpoch();
  const now = performance.now();
  const row = await apiKeyByHash(ctx.db, hash);
  // Cache only what was read with no write in between (the epoch did not move during the read).
  if (row && apiKeysEpoch() === epoch) {
    if (cache.size >= KEY_CACHE_MAX) cache.clear();
    cache.set(hash, { row, epoch, at: now });
  } else {
    cache.delete(hash);
  }
  return row;
}

// ------------------------------------------------------------ last_used_at
/**
 * last_used_at writes are batched: the request that moves it does not wait for a commit (and its
 * fsync); the batch is written within LAST_USED_FLUSH_MS, before any read of key rows that shows
 * the field (flushLastUsed), and when the daemon stops.
 */
const LAST_USED_FLUSH_MS = 1000;
const lastUsedPending = new WeakMap<AppContext, { rows: Map<string, string>; timer: NodeJS.Timeout | null }>();

function noteLastUsed(ctx: AppContext, row: ApiKeyRow, at: string): void {
  row.last_used_at = at; // the cached row (and GET /v1/me) show it at once
  let p = lastUsedPending.get(ctx);
  if (!p) lastUsedPending.set(ctx, (p = { rows: new Map(), timer: null }));
  p.rows.set(row.id, at);
  if (!p.timer) {
    p.timer = setTimeout(() => void flushLastUsed(ctx), LAST_USED_FLUSH_MS);
    p.timer.unref();
  }
}

export async function flushLastUsed(ctx: AppContext): Promise<void> {
  const p = lastUsedPending.get(ctx);
  if (!p || !p.rows.size) return;
  if (p.timer) clearTimeout(p.timer);
  p.timer = null;
  const entries = [...p.rows].map(([id, at]) => ({ id, at }));
  p.rows.clear();
  try {
    // A usage timestamp, not a promise to a client: no fsync of its own (db/open.ts CommitSync).
    await withTransactionKind('api_keys.last_used', () => runTransaction(ctx.db, (trx) => setApiKeysLastUsed(trx, entries), 'none'));
  } catch (err) {
    ctx.log.error({ err, keys: entries.length }, 'last_used_at: could not write');
  }
}

/** The token of an Authorization header (spec: Authentication: Bearer only, no other scheme). */
function bearerToken(authorization: string | undefined): string {
  if (!authorization || !authorization.trim()) throw Errors.missingAuthorization();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  if (!m) throw Errors.invalidApiKey('The Authorization header must be `Bearer <API_KEY>`; no other scheme is accepted.');
  return m[1];
}

/**
 * Whether `key` is a live API key of this database (known, not revoked, not expired), without
 * counting it as a use. `serve` asks it of the CLI profiles' keys: a restored copy of a data dir
 * is served from a new path, and its keys are still the profile's.
 */
export async function keyIsValid(ctx: AppContext, key: string): Promise<boolean> {
  const row = await keyByHash(ctx, hashKey(key));
  try {
    assertKeyLive(row, ctx.clock.now());
    return true;
  } catch {
    return false;
  }
}

/** A key row that authenticates: known, not revoked, not expired (else the spec's refusal). */
function assertKeyLive(row: ApiKeyRow | undefined, now: number): asserts row is ApiKeyRow {
  if (!row) throw Errors.invalidApiKey();
  if (row.revoked_at) throw Errors.revokedApiKey(row.revoked_at);
  if (row.expires_at && Date.parse(row.expires_at) <= now) throw Errors.expiredApiKey(row.expires_at);
}

/** Spec: Authentication. Bearer only; no query-string key, no other header. */
export async function authenticate(ctx: AppContext, authorization: string | undefined): Promise<AuthContext> {
  const token = bearerToken(authorization);
  if (token.startsWith('moa_')) return authenticateAccessToken(ctx, token);
  return keyAuth(ctx, await keyByHash(ctx, hashKey(token)));
}

/**
 * authenticate() without a promise when the answer is known at once (the HTTP layer's hot path:
 * every request of a client whose key was read in the last second): the key's cached row, or a
 * refusal that needs no database (no or malformed header). null when only authenticate() can
 * tell (a key not in the cache, an access token). The same checks and errors as authenticate().
 */
export function authenticateCached(ctx: AppContext, authorization: string | undefined): AuthContext | null {
  const token = bearerToken(authorization);
  if (token.startsWith('moa_')) return null;
  const row = cachedKey(ctx, hashKey(token));
  return row ? keyAuth(ctx, row) : null;
}

function keyAuth(ctx: AppContext, row: ApiKeyRow | undefined): AuthContext {
  const now = ctx.clock.now();
  assertKeyLive(row, now);
  if (!row.last_used_at || now - Date.parse(row.last_used_at) >= LAST_USED_GRANULARITY) noteLastUsed(ctx, row, isoAt(now));
  return {
    keyId: row.id,
    workspaceId: row.workspace_id,
    mode: row.mode,
    scopes: row.scopes,
    agentId: row.agent_id,
    expiresAt: row.expires_at,
    keyRow: row,
  };
}

/** When a grant disconnects unless used first (spec: used at least once in 60 days stays connected). */
export function grantExpiresAt(g: Pick<GrantRow, 'last_used_at' | 'created_at'>): number {
  return Date.parse(g.last_used_at ?? g.created_at) + GRANT_IDLE_DAYS * DAY;
}

/**
 * Spec: Connected apps. An access token acts for its grant's workspace in live mode with the
 * scopes of the approved access; expired, revoked or idle → 401 invalid_access_token.
 */
async function authenticateAccessToken(ctx: AppContext, token: string): Promise<AuthContext> {
  const found = await grantByAccessHash(ctx.db, hashKey(token));
  const now = ctx.clock.now();
  if (!found || Date.parse(found.expires_at) <= now) throw Errors.invalidAccessToken();
  const g = found.grant;
  if (g.revoked_at || grantExpiresAt(g) <= now) throw Errors.invalidAccessToken();
  if (!g.last_used_at || now - Date.parse(g.last_used_at) >= LAST_USED_GRANULARITY) {
    await setGrantLastUsed(ctx.db, g.id, isoAt(now));
  }
  return {
    keyId: g.id,
    workspaceId: g.workspace_id,
    mode: 'live',
    scopes: g.scopes,
    agentId: null,
    // The grant, not the hour-long token, is the caller's identity; it has no fixed end.
    expiresAt: null,
    connectedAppId: g.id,
  };
}

export function hasScope(auth: AuthContext, scope: Scope): boolean {
  return auth.scopes.includes(scope);
}

/** Spec: Scopes. A key with no scopes authenticates and is authorised for nothing. */
export function authorize(auth: AuthContext, rule: ScopeRule, action: string): void {
  if (rule === null || rule === 'public') return;
  const missing = (need: Scope[]) => need.filter((s) => !auth.scopes.includes(s));
  if (typeof rule === 'string') {
    if (!auth.scopes.includes(rule)) throw Errors.insufficientScope(`This key lacks the \`${rule}\` scope needed to ${action}.`);
  } else if ('anyOf' in rule) {
    if (!rule.anyOf.some((s) => auth.scopes.includes(s))) {
      throw Errors.insufficientScope(`To ${action} this key needs one of the scopes: ${rule.anyOf.join(', ')}.`);
    }
  } else {
    const lack = missing(rule.allOf);
    if (lack.length) throw Errors.insufficientScope(`To ${action} this key needs the scopes ${rule.allOf.join(' and ')}; it lacks ${lack.join(', ')}.`);
  }
}

/** Spec: Agent-bound keys → 403 insufficient_scope for the listed actions. */
export function requireUnbound(auth: AuthContext, action: string): void {
  if (auth.agentId) throw Errors.insufficientScope(`An agent-bound key cannot ${action}; use a key that is not bound to an agent.`);
}

/** Spec: Connected apps → 403 connected_app_not_allowed for the listed actions. */
export function requireNotConnectedApp(auth: AuthContext, action: string): void {
  if (auth.connectedAppId) throw Errors.connectedAppNotAllowed(action);
}

/**
 * Spec: live_mode_required. A test key gets 403 when it changes live material: `rowMode` is the
 * mode of the key that made the object (webhook endpoints, sending domains: migration 0008).
 */
export function requireModeFor(auth: AuthContext, rowMode: string, what: string): void {
  if (auth.mode === 'test' && rowMode !== 'test') throw Errors.liveModeRequired(what);
}
