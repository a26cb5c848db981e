import { randomBytes } from 'node:crypto';
import type { ListQuery, PageOf, Scope } from '../contract/common.js';
import {
  ACCESS_TOKEN_TTL_SECONDS, type GrantAccess, type OauthGrant, type OauthGrantConnected, type OauthToken,
  type OauthTokenRequest,
} from '../contract/oauth.js';
import {
  getGrant, grantByRefreshHash, insertAccessToken, insertGrant, listGrants, pruneAccessTokens, revokeGrantRow,
  rotateRefreshHash, type GrantRow,
} from '../db/repos/connected-apps.js';
import { firstWorkspace } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isoAt, SECOND } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext, type Tx } from './context.js';
import { grantExpiresAt, hashKey, requireModeFor, requireNotConnectedApp } from './auth.js';
import { recordAudit } from './audit-log.js';
import { pageOf } from '../db/paginate.js';

/** Spec: Connected apps → approved access to token scopes. */
export const ACCESS_SCOPES: Record<GrantAccess, Scope[]> = {
  read: ['read'],
  send: ['send', 'read'],
  full_access: ['send', 'read', 'manage'],
};

/** 256 random bits, base64url: `moa_` access tokens, `mor_` refresh tokens. */
function newToken(prefix: 'moa' | 'mor'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function toGrant(r: GrantRow, now: number): OauthGrant {
  const expiresAt = grantExpiresAt(r);
  const status = r.revoked_at ? 'revoked' : expiresAt <= now ? 'expired' : 'active';
  return {
    id: r.id, object: 'oauth_grant', app_name: r.app_name, access: r.access, scopes: r.scopes, status,
    created_at: r.created_at, last_used_at: r.last_used_at, expires_at: r.revoked_at ? null : isoAt(expiresAt),
    revoked_at: r.revoked_at,
  };
}

/** A fresh access token for the grant; only its SHA-256 is stored. */
async function issueAccessToken(ctx: AppContext, tx: Tx, g: GrantRow, now: number): Promise<string> {
  const token = newToken('moa');
  await pruneAccessTokens(tx.db, g.id, isoAt(now));
  await insertAccessToken(tx.db, {
    token_hash: hashKey(token), grant_id: g.id, expires_at: isoAt(now + ACCESS_TOKEN_TTL_SECONDS * SECOND), created_at: isoAt(now),
  });
  return token;
}

function tokenAnswer(g: GrantRow, accessToken: string, refreshToken: string): OauthToken {
  return {
    access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refreshToken,
    scope: g.scopes.join(' '),
  };
}

export interface ConnectAppInput {
  name: string;
  access?: GrantAccess;
  /** Workspace to connect to; the instance's own workspace when absent (a self-hosted data dir has one). */
  workspaceId?: string;
  /** Who approved it: `operator` for the CLI on the data dir. */
  createdBy: string;
}

/**
 * Approve an app: a grant plus its first access token (one hour) and refresh token, returned once.
 * A self-hosted daemon has no dashboard sign-in, so the operator approves from the CLI.
 */
export async function connectApp(ctx: AppContext, input: ConnectAppInput): Promise<OauthGrantConnected> {
  const name = input.name.trim();
  if (!name || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw Errors.invalidParam('name', 'The app name must be 1 to 200 characters without control characters.');
  }
  const access: GrantAccess = input.access ?? 'full_access';
  if (!(access in ACCESS_SCOPES)) throw Errors.invalidParam('access', `"${access}" is not an access level; use read, send or full_access.`);
  return inTransaction(ctx, async (tx) => {
    const workspaceId = input.workspaceId ?? (await firstWorkspace(tx.db))?.id;
    if (!workspaceId) throw Errors.notFound('workspace', '(none: run `mailagent init` first)');
    const now = ctx.clock.now();
    const refreshToken = newToken('mor');
    const row: GrantRow = {
      id: newId('grt', ctx.clock), workspace_id: workspaceId, app_name: name, access, scopes: ACCESS_SCOPES[access],
      refresh_token_hash: hashKey(refreshToken), created_by: input.createdBy, last_used_at: null, created_at: isoAt(now),
      revoked_at: null,
    };
    await insertGrant(tx.db, row);
    const accessToken = await issueAccessToken(ctx, tx, row, now);
    await recordAudit(ctx, tx.db, {
      workspaceId, category: 'oauth_grant', action: 'oauth_grant.created', targetId: row.id,
      metadata: { app_name: name, access, scopes: row.scopes, by: input.createdBy },
    });
    return { grant: toGrant(row, now), ...tokenAnswer(row, accessToken, refreshToken) };
  });
}

/**
 * POST /v1/oauth/token (RFC 6749 §6). The refresh token is rotated on every use: the one
 * presented stops working. A revoked grant, an unknown or already-used refresh token, or an app
 * idle for 60 days → 401 invalid_access_token.
 */
export async function refreshAccessToken(ctx: AppContext, body: OauthTokenRequest): Promise<OauthToken> {
  const oldHash = hashKey(body.refresh_token);
  return inTransaction(ctx, async (tx) => {
    const g = await grantByRefreshHash(tx.db, oldHash);
    const now = ctx.clock.now();
    if (!g || g.revoked_at || grantExpiresAt(g) <= now) throw Errors.invalidAccessToken();
    const refreshToken = newToken('mor');
    // Renewing is a use of the app: it keeps the connection alive like any request.
    if (!(await rotateRefreshHash(tx.db, g.id, oldHash, hashKey(refreshToken), isoAt(now)))) throw Errors.invalidAccessToken();
    const accessToken = await issueAccessToken(ctx, tx, g, now);
    return tokenAnswer(g, accessToken, refreshToken);
  });
}

/** GET /v1/oauth/grants: every grant of the workspace (revoked and expired ones too), newest first. */
export async function listGrantsPage(ctx: AppContext, auth: AuthContext, q: ListQuery): Promise<PageOf<OauthGrant>> {
  requireNotConnectedApp(auth, 'list connected apps');
  const res = await listGrants(ctx.db, auth.workspaceId, q);
  const now = ctx.clock.now();
  return pageOf(res, res.rows.map((r) => toGrant(r, now)));
}

/**
 * DELETE /v1/oauth/grants/{id}: the app's tokens stop working at once. Keys and webhooks it
 * created, and signing secrets it saw, are left alone (spec: Connected apps).
 */
export async function revokeGrant(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; revoked_at: string }> {
  requireNotConnectedApp(auth, 'revoke connected apps');
  // Connected apps act in live mode: revoking one changes live configuration.
  requireModeFor(auth, 'live', 'revoke a connected app (apps act in live mode)');
  const g = await getGrant(ctx.db, auth.workspaceId, id);
  if (!g) throw Errors.notFound('connected app', id);
  if (g.revoked_at) return { id: g.id, revoked_at: g.revoked_at };
  return inTransaction(ctx, async (tx) => {
    const revokedAt = await revokeGrantRow(tx.db, g.id, isoAt(ctx.clock.now()));
    await recordAudit(ctx, tx.db, {
      workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'oauth_grant', action: 'oauth_grant.revoked', targetId: g.id,
      metadata: { app_name: g.app_name, access: g.access },
    });
    return { id: g.id, revoked_at: revokedAt };
  });
}
