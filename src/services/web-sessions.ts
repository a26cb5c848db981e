import { randomBytes, timingSafeEqual } from 'node:crypto';
import { getApiKey } from '../db/repos/api-keys.js';
import {
  deleteExpiredWebSessions, deleteWebSession, insertWebSession, ownerKeyIds, spendLink, trimWebSessionsOfKey, webSessionByHash,
} from '../db/repos/web-sessions.js';
import { Errors } from '../shared/errors.js';
import { isoAt, MINUTE, HOUR } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { Mode, Scope } from '../contract/common.js';
import type { AppContext, AuthContext } from './context.js';
import { authenticate, hashKey } from './auth.js';

/**
 * Web inbox sign-in (docs/web.md#sign-in). A browser session acts as exactly one API key: the
 * key typed on the sign-in page, or the key that asked for a one-time link (`mailagent ui`, or
 * the owner key when `serve` starts). Scopes, mode and agent binding are the key's; revoking or
 * expiring the key ends its sessions at their next request.
 *
 * Caps: a link is good for LINK_TTL and one use; a session for SESSION_TTL; a key holds at most
 * MAX_SESSIONS_PER_KEY sessions and links (the oldest go first). Tokens are stored as SHA-256.
 */
export const LINK_TTL = 10 * MINUTE;
export const SESSION_TTL = 12 * HOUR;
export const MAX_SESSIONS_PER_KEY = 20;

export interface WebSession {
  token: string;
  csrfToken: string;
  expiresAt: string;
}

const token = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;

async function keyAuth(ctx: AppContext, keyId: string, workspaceId: string): Promise<AuthContext> {
  const k = await getApiKey(ctx.db, workspaceId, keyId);
  if (!k) throw Errors.invalidApiKey('The key this web session was made from no longer exists; sign in again.');
  if (k.revoked_at) throw Errors.revokedApiKey(k.revoked_at);
  if (k.expires_at && Date.parse(k.expires_at) <= ctx.clock.now()) throw Errors.expiredApiKey(k.expires_at);
  return { keyId: k.id, workspaceId: k.workspace_id, mode: k.mode as Mode, scopes: k.scopes as Scope[], agentId: k.agent_id, expiresAt: k.expires_at };
}

async function store(ctx: AppContext, kind: 'link' | 'session', auth: Pick<AuthContext, 'keyId' | 'workspaceId'>, ttl: number) {
  const now = ctx.clock.now();
  await deleteExpiredWebSessions(ctx.db, isoAt(now));
  const t = token(kind === 'link' ? 'mwl' : 'mws');
  const csrf = kind === 'session' ? randomBytes(24).toString('base64url') : null;
  const expiresAt = isoAt(now + ttl);
  await insertWebSession(ctx.db, {
    id: newId('wbs', ctx.clock), token_hash: hashKey(t), kind, workspace_id: auth.workspaceId, api_key_id: auth.keyId,
    csrf_token: csrf, created_at: isoAt(now), expires_at: expiresAt, used_at: null,
  });
  await trimWebSessionsOfKey(ctx.db, auth.keyId, MAX_SESSIONS_PER_KEY);
  return { token: t, csrfToken: csrf ?? '', expiresAt };
}

/** POST /v1/web/links: a one-time sign-in link acting as the calling key. */
export async function createSignInLink(ctx: AppContext, auth: AuthContext): Promise<{ token: string; expiresAt: string }> {
  if (auth.connectedAppId) throw Errors.connectedAppNotAllowed('open the web inbox');
  const s = await store(ctx, 'link', auth, LINK_TTL);
  return { token: s.token, expiresAt: s.expiresAt };
}

/**
 * The link `serve` prints for the local owner: acts as the workspace's test owner key (all
 * scopes, unbound; test mode so the forms cannot send real mail), else a live one; null when no
 * such key is left (the sign-in page then asks for a key).
 */
export async function createOwnerLink(ctx: AppContext): Promise<{ token: string; expiresAt: string } | null> {
  const now = ctx.clock.now();
  const keys = (await ownerKeyIds(ctx.db)).filter((k) => {
    const scopes = JSON.parse(k.scopes) as string[];
    return ['send', 'read', 'manage', 'draft'].every((s) => scopes.includes(s)) && (!k.expires_at || Date.parse(k.expires_at) > now);
  });
  const k = keys.find((x) => x.mode === 'test') ?? keys[0];
  if (!k) return null;
  const s = await store(ctx, 'link', { keyId: k.id, workspaceId: k.workspace_id }, LINK_TTL);
  return { token: s.token, expiresAt: s.expiresAt };
}

/** Spend a one-time link for a session. An unknown, used or expired link is 401. */
export async function redeemSignInLink(ctx: AppContext, linkToken: string): Promise<WebSession> {
  const row = await webSessionByHash(ctx.db, hashKey(linkToken));
  const now = ctx.clock.now();
  if (!row || row.kind !== 'link' || Date.parse(row.expires_at) <= now || !(await spendLink(ctx.db, row.id, isoAt(now)))) {
    throw Errors.invalidApiKey('This sign-in link is not valid: it was used already or has expired. Run `mailagent ui` for a new one.');
  }
  const auth = await keyAuth(ctx, row.api_key_id, row.workspace_id);
  return store(ctx, 'session', auth, SESSION_TTL);
}

/** Sign in with an API key typed into the page (checked exactly as a Bearer key would be). */
export async function signInWithKey(ctx: AppContext, apiKey: string): Promise<WebSession> {
  const auth = await authenticate(ctx, `Bearer ${apiKey.trim()}`);
  if (auth.connectedAppId) throw Errors.connectedAppNotAllowed('open the web inbox');
  return store(ctx, 'session', auth, SESSION_TTL);
}

/** The key a session cookie acts as, and the session's anti-CSRF token. */
export async function authenticateSession(ctx: AppContext, sessionToken: string): Promise<{ auth: AuthContext; csrfToken: string }> {
  const row = await webSessionByHash(ctx.db, hashKey(sessionToken));
  if (!row || row.kind !== 'session' || Date.parse(row.expires_at) <= ctx.clock.now()) {
    throw Errors.invalidApiKey('Your web session has ended; sign in again.');
  }
  return { auth: await keyAuth(ctx, row.api_key_id, row.workspace_id), csrfToken: row.csrf_token ?? '' };
}

/** Constant-time comparison of the X-CSRF-Token header with the session's token. */
export function csrfMatches(expected: string, given: string | undefined): boolean {
  if (!expected || !given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function endSession(ctx: AppContext, sessionToken: string): Promise<void> {
  await deleteWebSession(ctx.db, hashKey(sessionToken));
}
