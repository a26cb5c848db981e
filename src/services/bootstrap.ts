import type { Agent } from '../contract/agents.js';
import type { ApiKeyCreated } from '../contract/api-keys.js';
import type { Workspace } from '../contract/me.js';
import { SCOPES } from '../contract/common.js';
import { insertWorkspace, firstWorkspace } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { inTransaction, type AppContext } from './context.js';
import { insertNewAgent, toAgent } from './agents.js';
import { insertNewKey } from './api-keys.js';
import { toWorkspace } from './me.js';

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/;
const RESERVED_SLUGS = new Set(['www', 'api', 'app', 'admin', 'mail', 'smtp', 'test', 'status', 'billing', 'support', 'root', 'postmaster', 'abuse']);
export const DEFAULT_AGENT_NAME = 'agent';

export interface BootstrapInput {
  slug?: string;
  displayName?: string;
}
export interface BootstrapResult {
  workspace: Workspace;
  agent: Agent;
  keys: { live: ApiKeyCreated; test: ApiKeyCreated };
}

export function validateSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!SLUG_PATTERN.test(slug)) {
    throw Errors.slugInvalid(`"${raw}" is not a valid workspace slug: 3–40 lower-case letters, digits or "-", starting and ending with a letter or digit.`);
  }
  if (RESERVED_SLUGS.has(slug)) {
    throw Errors.slugReserved(slug);
  }
  return slug;
}

/**
 * From nothing to a working key: a workspace (tier free, active), a default agent and two owner
 * keys (live and test) with all four scopes. Refuses when the database already has a workspace.
 */
export async function bootstrapWorkspace(ctx: AppContext, input: BootstrapInput): Promise<BootstrapResult> {
  const slug = validateSlug(input.slug ?? 'local');
  return inTransaction(ctx, async (tx) => {
    if (await firstWorkspace(tx.db)) throw Errors.duplicate('This data directory is already initialised.');
    const ws = {
      id: newId('wsk', ctx.clock), slug, display_name: input.displayName?.trim() || slug, tier: 'free', tier_status: 'active',
      created_at: isoAt(ctx.clock.now()),
    };
    await insertWorkspace(tx.db, ws);
    const agent = await insertNewAgent(ctx, tx, ws, { name: DEFAULT_AGENT_NAME }, false);
    const spec = { workspaceId: ws.id, scopes: [...SCOPES], agentId: null, expiresAt: null, createdByKeyId: null };
    const live = await insertNewKey(ctx, tx.db, { ...spec, name: 'owner (live)', mode: 'live' });
    const test = await insertNewKey(ctx, tx.db, { ...spec, name: 'owner (test)', mode: 'test' });
    return { workspace: toWorkspace(ws), agent: toAgent(agent), keys: { live, test } };
  });
}
