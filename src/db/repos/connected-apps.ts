import type { Db, Decoded } from '../schema.js';
import type { OauthGrantsTable } from '../tables/connected-apps.js';
import { json, paginate, type PageRequest, type PageResult } from '../paginate.js';
import type { Scope } from '../../contract/common.js';
import type { GrantAccess } from '../../contract/oauth.js';

export type GrantRow = Decoded<OauthGrantsTable, { access: GrantAccess; scopes: Scope[] }>;

function decode(r: OauthGrantsTable): GrantRow {
  return { ...r, access: r.access as GrantAccess, scopes: json<Scope[]>(r.scopes, []) };
}

export async function insertGrant(db: Db, row: GrantRow): Promise<void> {
  await db.insertInto('oauth_grants').values({ ...row, scopes: JSON.stringify(row.scopes) }).execute();
}

export async function getGrant(db: Db, workspaceId: string, id: string): Promise<GrantRow | undefined> {
  const r = await db.selectFrom('oauth_grants').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export async function getGrantById(db: Db, id: string): Promise<GrantRow | undefined> {
  const r = await db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export async function listGrants(db: Db, workspaceId: string, page: PageRequest): Promise<PageResult<GrantRow>> {
  const q = db.selectFrom('oauth_grants').selectAll().where('workspace_id', '=', workspaceId);
  const res = await paginate<OauthGrantsTable>(q, 'id', page, 'connected apps');
  return { ...res, rows: res.rows.map(decode) };
}

export async function grantByRefreshHash(db: Db, hash: string): Promise<GrantRow | undefined> {
  const r = await db.selectFrom('oauth_grants').selectAll().where('refresh_token_hash', '=', hash).executeTakeFirst();
  return r && decode(r);
}

/**
 * Swap the refresh token only if the presented one is still the current one, so two concurrent
 * refreshes with the same token cannot both succeed. Returns false when it lost that race.
 */
export async function rotateRefreshHash(db: Db, id: string, oldHash: string, newHash: string, usedAt: string): Promise<boolean> {
  const r = await db.updateTable('oauth_grants').set({ refresh_token_hash: newHash, last_used_at: usedAt })
    .where('id', '=', id).where('refresh_token_hash', '=', oldHash).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function setGrantLastUsed(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** Revoke once: a grant already revoked keeps its first revoked_at. */
export async function revokeGrantRow(db: Db, id: string, at: string): Promise<string> {
  await db.updateTable('oauth_grants').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  await db.deleteFrom('oauth_access_tokens').where('grant_id', '=', id).execute();
  const r = await db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow();
  return r.revoked_at ?? at;
}

export async function insertAccessToken(db: Db, row: { token_hash: string; grant_id: string; expires_at: string; created_at: string }): Promise<void> {
  await db.insertInto('oauth_access_tokens').values(row).execute();
}

/** Expired access tokens of a grant are useless; drop them when the grant gets a new one. */
export async function pruneAccessTokens(db: Db, grantId: string, now: string): Promise<void> {
  await db.deleteFrom('oauth_access_tokens').where('grant_id', '=', grantId).where('expires_at', '<=', now).execute();
}

/** The grant behind an access token, with the token's expiry (one indexed lookup each). */
export async function grantByAccessHash(db: Db, hash: string): Promise<{ expires_at: string; grant: GrantRow } | undefined> {
  const t = await db.selectFrom('oauth_access_tokens').select(['grant_id', 'expires_at']).where('token_hash', '=', hash).executeTakeFirst();
  if (!t) return undefined;
  const grant = await getGrantById(db, t.grant_id);
  return grant && { expires_at: t.expires_at, grant };
}
