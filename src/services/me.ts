import type { Me, Workspace } from '../contract/me.js';
import { getApiKey, type ApiKeyRow } from '../db/repos/api-keys.js';
import { getGrant } from '../db/repos/connected-apps.js';
import { getAgent, type AgentRow } from '../db/repos/agents.js';
import type { WorkspaceRow } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import type { AppContext, AuthContext } from './context.js';
import { toAgent, requireWorkspace, keptWorkspace } from './agents.js';

export function toWorkspace(w: Readonly<WorkspaceRow>): Workspace {
  return { id: w.id, slug: w.slug, display_name: w.display_name, tier: w.tier as Workspace['tier'], tier_status: w.tier_status };
}

export async function getMe(ctx: AppContext, auth: AuthContext): Promise<Me> {
  if (auth.connectedAppId) return getMeAsApp(ctx, auth, auth.connectedAppId);
  const key = auth.keyRow ?? await getApiKey(ctx.db, auth.workspaceId, auth.keyId);
  if (!key) throw Errors.invalidApiKey();
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  const agent = auth.agentId ? await getAgent(ctx.db, auth.workspaceId, auth.agentId) : undefined;
  return meOf(key, ws, agent);
}

/**
 * GET /v1/me answered without a read or a promise when it can be (the HTTP hot path): a key that
 * authentication read (its row in hand), not bound to an agent, its workspace in the read cache.
 * null otherwise: getMe() then answers. Same answer as getMe().
 *
 * The answer is built once and handed out again while nothing in it can have changed: the same
 * key row (authentication's cache replaces it whenever api_keys is written, so a rename, a scope
 * change or a revocation is a new row), its last_used_at (moved in place, services/auth.ts) and
 * the same kept workspace row (replaced when workspaces is written). Callers must not change it;
 * the HTTP route keeps its serialised form beside it (server/http/routes/health.ts).
 */
const lastAnswer = new WeakMap<ApiKeyRow, { ws: Readonly<WorkspaceRow>; lastUsed: string | null; me: Me }>();

export function getMeCached(ctx: AppContext, auth: AuthContext): Me | null {
  const key = auth.keyRow;
  if (auth.connectedAppId || auth.agentId || !key) return null;
  const ws = keptWorkspace(ctx, auth.workspaceId);
  if (!ws) return null;
  const last = lastAnswer.get(key);
  if (last && last.ws === ws && last.lastUsed === key.last_used_at) return last.me;
  const me = meOf(key, ws, undefined);
  lastAnswer.set(key, { ws, lastUsed: key.last_used_at, me });
  return me;
}

function meOf(key: ApiKeyRow, ws: Readonly<WorkspaceRow>, agent: AgentRow | undefined): Me {
  return {
    api_key: {
      id: key.id, prefix: key.prefix, name: key.name, mode: key.mode, scopes: key.scopes, agent_id: key.agent_id,
      last_used_at: key.last_used_at, created_at: key.created_at,
    },
    workspace: toWorkspace(ws),
    agent: agent ? toAgent(agent) : null,
  };
}

/** A connected app sees its grant where a key sees itself (spec: Connected apps; its token is `moa_...`). */
async function getMeAsApp(ctx: AppContext, auth: AuthContext, grantId: string): Promise<Me> {
  const g = await getGrant(ctx.db, auth.workspaceId, grantId);
  if (!g) throw Errors.invalidAccessToken();
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  return {
    api_key: {
      id: g.id, prefix: 'moa_', name: g.app_name, mode: 'live', scopes: g.scopes, agent_id: null,
      last_used_at: g.last_used_at, created_at: g.created_at,
    },
    workspace: toWorkspace(ws),
    agent: null,
  };
}
