import type { Db, ApiKeysTable, Decoded } from '../schema.js';
import { json, paginate, type PageRequest, type PageResult } from '../paginate.js';
import type { Scope, Mode } from '../../contract/common.js';

export type ApiKeyRow = Decoded<ApiKeysTable, { mode: Mode; scopes: Scope[] }>;

/**
 * Bumped by every write to api_keys through this module (before the statement runs and again after
 * it): services/auth.ts caches keys by hash and drops an entry whose epoch moved, so a revocation
 * made by any code path is seen by the very next request.
 */
let writeEpoch = 0;
export function apiKeysEpoch(): number {
  return writeEpoch;
}
async function write<T>(fn: () => Promise<T>): Promise<T> {
  writeEpoch++;
  try {
    return await fn();
  } finally {
    writeEpoch++;
  }
}

function decode(r: ApiKeysTable): ApiKeyRow {
  return { ...r, mode: r.mode as Mode, scopes: json<Scope[]>(r.scopes, []) };
}

export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await write(() => db.insertInto('api_keys').values({ ...row, scopes: JSON.stringify(row.scopes) }).execute());
}

export async function apiKeyByHash(db: Db, hash: string): Promise<ApiKeyRow | undefined> {
  const r = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
  return r && decode(r);
}

export async function getApiKey(db: Db, workspaceId: string, id: string): Promise<ApiKeyRow | undefined> {
  const r = await db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export async function listApiKeys(db: Db, workspaceId: string, agentId: string | null, page: PageRequest): Promise<PageResult<ApiKeyRow>> {
  let q = db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
  if (agentId) q = q.where('agent_id', '=', agentId);
  const res = await paginate<ApiKeysTable>(q, 'id', page, 'API keys');
  return { ...res, rows: res.rows.map(decode) };
}

export async function setApiKeyFields(db: Db, id: string, patch: Partial<Pick<ApiKeyRow, 'last_used_at' | 'revoked_at'>>): Promise<void> {
  const run = () => db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
  // last_used_at alone changes nothing authentication depends on: no need to drop cached keys.
  await (Object.keys(patch).every((k) => k === 'last_used_at') ? run() : write(run));
}

/** last_used_at of many keys in one go (the batched write of services/auth.ts). */
export async function setApiKeysLastUsed(db: Db, entries: { id: string; at: string }[]): Promise<void> {
  for (const e of entries) await db.updateTable('api_keys').set({ last_used_at: e.at }).where('id', '=', e.id).execute();
}

/** Revoke once: a key already revoked keeps its first revoked_at (spec: revoking again is idempotent). */
export async function revokeApiKeyRow(db: Db, id: string, at: string): Promise<string> {
  await write(() => db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute());
  const r = await db.selectFrom('api_keys').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow();
  return r.revoked_at ?? at;
}

export async function agentHasLiveKey(db: Db, agentId: string): Promise<boolean> {
  const r = await db.selectFrom('api_keys').select('id').where('agent_id', '=', agentId).where('mode', '=', 'live')
    .where('revoked_at', 'is', null).limit(1).executeTakeFirst();
  return r !== undefined;
}
