import { openDatabase, migrate, isInitialised } from '../db/open.js';
import { systemClock } from '../shared/clock.js';
import { setWorkspaceTier } from '../services/usage.js';
import { connectApp } from '../services/connected-apps.js';
import { insertNewKey } from '../services/api-keys.js';
import { recordAudit } from '../services/audit-log.js';
import { firstWorkspace } from '../db/repos/workspaces.js';
import type { ApiKeyCreated } from '../contract/api-keys.js';
import type { Scope } from '../contract/common.js';
import type { GrantAccess, OauthGrantConnected } from '../contract/oauth.js';
import type { Config } from './config.js';
import { createContext } from './context.js';

/**
 * Operator actions on a local data directory (`mailagent admin ...`), run beside or without a
 * running daemon: SQLite in WAL mode lets both write, and the daemon reads the tier on every check.
 */
export async function setTierInDataDir(config: Config, tier: string): Promise<{ workspace_id: string; from: string; tier: string } | null> {
  const opened = openDatabase(config.dbFile);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await setWorkspaceTier(createContext(config, opened.db, systemClock), tier);
  } finally {
    await opened.close();
  }
}

/**
 * Approve a connected app on the local data directory (`mailagent admin connect-app`): a
 * self-hosted instance has no dashboard sign-in, so the operator approves (spec: Connected apps).
 */
export async function connectAppInDataDir(config: Config, input: { name: string; access?: GrantAccess }): Promise<OauthGrantConnected | null> {
  const opened = openDatabase(config.dbFile);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await connectApp(createContext(config, opened.db, systemClock), { ...input, createdBy: 'operator' });
  } finally {
    await opened.close();
  }
}

/**
 * Make an API key on the local data directory (`mailagent admin keys create`): an operator who
 * lost every key (only hashes are stored) can make a new one without the API.
 */
export async function createKeyInDataDir(config: Config, input: { name: string; mode: 'live' | 'test'; scopes: Scope[] }): Promise<ApiKeyCreated | null> {
  const opened = openDatabase(config.dbFile);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    const ws = await firstWorkspace(opened.db);
    if (!ws) return null;
    const ctx = createContext(config, opened.db, systemClock);
    const key = await insertNewKey(ctx, opened.db, {
      workspaceId: ws.id, name: input.name, mode: input.mode, scopes: input.scopes, agentId: null, expiresAt: null, createdByKeyId: null,
    });
    // The audit log records who made it: the operator, on the data directory.
    await recordAudit(ctx, opened.db, { workspaceId: ws.id, category: 'api_key', action: 'created', targetId: key.id, metadata: { by: 'operator', name: key.name, mode: key.mode, scopes: key.scopes } });
    return key;
  } finally {
    await opened.close();
  }
}
