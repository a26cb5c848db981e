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
import { purgeMessages, type RetentionCounts } from '../services/retention.js';
import { agentByEmail, agentsByName, getAgentById } from '../db/repos/agents.js';
import { listReturnPathKeys, retireReturnPathKey, rotateReturnPathKey, type ReturnPathKeyInfo } from '../services/return-path.js';
export { ReturnPathKeyError } from '../services/return-path.js';

/**
 * Operator actions on a local data directory (`mailagent admin ...`), run beside or without a
 * running daemon: SQLite in WAL mode lets both write, and the daemon reads the tier on every check.
 */
export async function setTierInDataDir(config: Config, tier: string): Promise<{ workspace_id: string; from: string; tier: string } | null> {
  const opened = openDatabase(config.database);
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
  const opened = openDatabase(config.database);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await connectApp(createContext(config, opened.db, systemClock), { ...input, createdBy: 'operator' });
  } finally {
    await opened.close();
  }
}

export interface PurgeInput {
  /** Agent id, name or address; null: every agent. */
  agent: string | null;
  /** ISO timestamp: only what is older; null: any age. */
  before: string | null;
}

/**
 * `mailagent admin purge`: delete mail for good, in batches, beside a running daemon (WAL lets
 * both write; each batch is a short transaction). No event and no webhook for it. Resolves null
 * when the data dir is not initialised; throws AgentLookupError when the agent is unknown.
 */
export async function purgeInDataDir(config: Config, input: PurgeInput): Promise<(RetentionCounts & { agent_id: string | null; before: string | null }) | null> {
  const opened = openDatabase(config.database);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    let agentId: string | null = null;
    if (input.agent) {
      const a = input.agent.trim().toLowerCase();
      const ws = await firstWorkspace(opened.db);
      const found = (await getAgentById(opened.db, input.agent.trim()))
        ?? (a.includes('@') ? await agentByEmail(opened.db, a) : (await agentsByName(opened.db, ws!.id, a)).find((x) => !x.archived_at) ?? (await agentsByName(opened.db, ws!.id, a))[0]);
      if (!found) throw new AgentLookupError(input.agent);
      agentId = found.id;
    }
    const ctx = createContext(config, opened.db, systemClock);
    const counts = await purgeMessages(ctx, { agentId, before: input.before });
    // Mail deleted for good is an operator's act the audit log must show (as a thread deleted
    // through the API is): one entry in each workspace it may have touched.
    const workspaces = agentId
      ? await opened.db.selectFrom('agents').select('workspace_id as id').where('id', '=', agentId).execute()
      : await opened.db.selectFrom('workspaces').select('id').execute();
    for (const ws of workspaces) {
      await recordAudit(ctx, opened.db, {
        workspaceId: ws.id, category: 'workspace', action: 'workspace.mail_purged', targetId: agentId ?? ws.id, agentId,
        metadata: { by: 'operator', before: input.before, ...counts },
      });
    }
    return { ...counts, agent_id: agentId, before: input.before };
  } finally {
    await opened.close();
  }
}

/**
 * Make an API key on the local data directory (`mailagent admin keys create`): an operator who
 * lost every key (only hashes are stored) can make a new one without the API.
 */
export async function createKeyInDataDir(config: Config, input: { name: string; mode: 'live' | 'test'; scopes: Scope[] }): Promise<ApiKeyCreated | null> {
  const opened = openDatabase(config.database);
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
    await recordAudit(ctx, opened.db, { workspaceId: ws.id, category: 'api_key', action: 'api_key.created', targetId: key.id, metadata: { by: 'operator', name: key.name, mode: key.mode, scopes: key.scopes } });
    return key;
  } finally {
    await opened.close();
  }
}

export class AgentLookupError extends Error {
  constructor(readonly agent: string) {
    super(`no agent "${agent}" in this data dir (give its id, name or address; \`mailagent agents list\` shows them)`);
  }
}

export type ReturnPathKeyAction = { action: 'list' } | { action: 'rotate' } | { action: 'retire'; id: string };

/**
 * The signing keys of the return paths (`mailagent admin return-path …`; services/return-path.ts):
 * list them, rotate to a new one, or retire an old one. The result is the key list after the
 * action; `changed` names the key made or retired. Null: the data directory is not initialised.
 */
export async function returnPathKeysInDataDir(config: Config, input: ReturnPathKeyAction): Promise<{ keys: ReturnPathKeyInfo[]; changed: string | null } | null> {
  const opened = openDatabase(config.database);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    const ctx = createContext(config, opened.db, systemClock);
    let changed: string | null = null;
    if (input.action === 'rotate') changed = await rotateReturnPathKey(ctx);
    if (input.action === 'retire') changed = (await retireReturnPathKey(ctx, input.id)).id;
    const ws = await firstWorkspace(opened.db);
    if (changed && ws) {
      await recordAudit(ctx, opened.db, { workspaceId: ws.id, category: 'workspace', action: `workspace.return_path_key_${input.action === 'rotate' ? 'rotated' : 'retired'}`, targetId: changed, metadata: { by: 'operator' } });
    }
    return { keys: await listReturnPathKeys(ctx), changed };
  } finally {
    await opened.close();
  }
}
