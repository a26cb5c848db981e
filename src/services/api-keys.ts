import type { ApiKey, ApiKeyCreate, ApiKeyCreated } from '../contract/api-keys.js';
import type { ListQuery, PageOf, Scope } from '../contract/common.js';
import { getApiKey, insertApiKey, listApiKeys, revokeApiKeyRow, type ApiKeyRow } from '../db/repos/api-keys.js';
import { pauseEndpointsOfKey } from '../db/repos/webhooks.js';
import { ApiError } from '../contract/errors.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext } from './context.js';
import { recordAudit } from './audit-log.js';
import { flushLastUsed, forgetCachedKeys, generateKey, requireNotConnectedApp } from './auth.js';
import { resolveAgent } from './agents.js';
import { getAgent } from '../db/repos/agents.js';
import { pageOf } from '../db/paginate.js';

const bindingRefused = (agentId: string) =>
  Errors.insufficientScope(`This key is bound to agent ${agentId}; it can only create keys bound to the same agent.`);

export function toApiKey(r: ApiKeyRow): ApiKey {
  return {
    id: r.id, object: 'api_key', prefix: r.prefix, name: r.name, mode: r.mode, scopes: r.scopes, agent_id: r.agent_id,
    last_used_at: r.last_used_at, expires_at: r.expires_at, revoked_at: r.revoked_at, created_at: r.created_at,
  };
}

export interface NewKeySpec {
  workspaceId: string;
  name: string;
  mode: 'live' | 'test';
  scopes: Scope[];
  agentId: string | null;
  expiresAt: string | null;
  createdByKeyId: string | null;
}

/** Insert a key and return it with its plaintext, which is never stored (only its SHA-256). */
export async function insertNewKey(ctx: AppContext, db: AppContext['db'], spec: NewKeySpec): Promise<ApiKeyCreated> {
  const { key, prefix, hash } = generateKey(spec.mode);
  const row: ApiKeyRow = {
    id: newId('key', ctx.clock), workspace_id: spec.workspaceId, name: spec.name, prefix, key_hash: hash, mode: spec.mode,
    scopes: spec.scopes, agent_id: spec.agentId, created_by_key_id: spec.createdByKeyId, last_used_at: null,
    expires_at: spec.expiresAt, revoked_at: null, created_at: isoAt(ctx.clock.now()),
  };
  await insertApiKey(db, row);
  return { ...toApiKey(row), key };
}

/** Spec: Authentication rule 5 — a key made by another key cannot exceed its maker. */
export const DEFAULT_KEY_NAME = 'API key';

export async function createApiKey(ctx: AppContext, auth: AuthContext, input: ApiKeyCreate): Promise<ApiKeyCreated> {
  requireNotConnectedApp(auth, 'create an API key');
  // Defaults (contract/api-keys.ts): the maker's scopes and mode, so the new key never exceeds it.
  const body = { ...input, name: input.name ?? DEFAULT_KEY_NAME, scopes: input.scopes ?? [...auth.scopes], mode: input.mode ?? auth.mode };
  const lacking = body.scopes.filter((s) => !auth.scopes.includes(s));
  if (lacking.length) {
    throw Errors.insufficientScope(`A key cannot grant scopes it does not hold; this key lacks ${lacking.join(', ')}.`);
  }
  if (auth.mode === 'test' && body.mode === 'live') {
    throw Errors.insufficientScope('A test key can only create test keys.');
  }
  let agentId: string | null = null;
  if (body.agent_id) {
    let agent;
    try {
      agent = await resolveAgent(ctx, auth, body.agent_id, 'route', 'agent_id');
    } catch (err) {
      // A bound maker asking for another agent's binding asks for more than it has (rule 5):
      // 403, not the 404 resolveAgent gives a bound key for an agent it cannot see.
      if (auth.agentId && err instanceof ApiError && err.code === 'agent_not_found') throw bindingRefused(auth.agentId);
      throw err;
    }
    if (auth.agentId && agent.id !== auth.agentId) throw bindingRefused(auth.agentId);
    if (agent.status === 'archived') throw Errors.agentArchived(agent.id);
    agentId = agent.id;
  }
  if (auth.agentId && !agentId) {
    // The implicit binding follows the same rule as an explicit one: no new keys for an archived agent.
    const own = await getAgent(ctx.db, auth.workspaceId, auth.agentId);
    if (!own || own.status === 'archived') throw Errors.agentArchived(auth.agentId);
    agentId = own.id;
  }
  const now = ctx.clock.now();
  let expiresAt: string | null = null;
  if (body.expires_at) {
    const t = Date.parse(body.expires_at);
    if (!Number.isFinite(t)) throw Errors.invalidParam('expires_at', '`expires_at` must be an ISO 8601 timestamp.');
    if (t <= now) throw Errors.invalidParam('expires_at', '`expires_at` must be in the future.');
    expiresAt = isoAt(t);
  }
  if (auth.expiresAt) {
    if (expiresAt && Date.parse(expiresAt) > Date.parse(auth.expiresAt)) {
      throw Errors.insufficientScope(`A key cannot outlive its maker; this key expires at ${auth.expiresAt}.`);
    }
    expiresAt ??= auth.expiresAt;
  }
  return inTransaction(ctx, async (tx) => {
    const created = await insertNewKey(ctx, tx.db, {
      workspaceId: auth.workspaceId, name: body.name, mode: body.mode, scopes: body.scopes, agentId, expiresAt,
      createdByKeyId: auth.keyId,
    });
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'api_key', action: 'api_key.created', targetId: created.id, agentId, metadata: { name: created.name, prefix: created.prefix, mode: created.mode, scopes: created.scopes, expires_at: created.expires_at } });
    return created;
  });
}

export async function listApiKeysPage(ctx: AppContext, auth: AuthContext, q: ListQuery): Promise<PageOf<ApiKey>> {
  await flushLastUsed(ctx); // the list shows last_used_at
  const res = await listApiKeys(ctx.db, auth.workspaceId, auth.agentId, q);
  return pageOf(res, res.rows.map(toApiKey));
}

export async function revokeApiKey(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; revoked_at: string }> {
  const row = await getApiKey(ctx.db, auth.workspaceId, id);
  if (!row) throw Errors.notFound('API key', id);
  // Mode first: a test key gets 403 for a live key whether or not it is already revoked.
  if (auth.mode === 'test' && row.mode === 'live') throw Errors.liveModeRequired('revoke a live key');
  if (row.revoked_at) return { id: row.id, revoked_at: row.revoked_at };
  return inTransaction(ctx, async (tx) => {
    const revokedAt = await revokeApiKeyRow(tx.db, row.id, isoAt(ctx.clock.now()));
    // A test key is the key handed to CI and developers, and may read the workspace's mail (spec);
    // the webhook endpoints it made must not keep receiving that mail once it is revoked: they
    // are switched off (`disabled_reason: "key_revoked"`), kept, and a valid key can turn them
    // back on. A live key's endpoints are production's and stay on (rotating keys is routine).
    const paused = row.mode === 'test' ? await pauseEndpointsOfKey(tx.db, row.id, 'key_revoked', revokedAt) : [];
    // The repository already moved the key epoch; dropping the cache again at commit also covers
    // a database whose other connections could read the old row until then (PostgreSQL).
    tx.afterCommit(() => forgetCachedKeys(ctx));
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'api_key', action: 'api_key.revoked', targetId: row.id, agentId: row.agent_id, metadata: { name: row.name, prefix: row.prefix, mode: row.mode, ...(paused.length ? { paused_webhook_endpoints: paused } : {}) } });
    return { id: row.id, revoked_at: revokedAt };
  });
}
