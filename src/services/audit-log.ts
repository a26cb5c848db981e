import type { Db } from '../db/schema.js';
import { insertLog } from '../db/repos/logs.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import type { AppContext, AuthContext } from './context.js';

/** Audit categories (compat.md: Log entry `category`); `request` is the request log. */
export const AUDIT_CATEGORIES = ['api_key', 'agent', 'webhook', 'suppression', 'domain', 'label', 'thread', 'draft', 'workspace', 'oauth_grant'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];
export { REQUEST_CATEGORY } from '../db/request-log-rows.js';

export interface AuditEntry {
  workspaceId: string;
  category: AuditCategory;
  /** `<category>.<verb>`, e.g. `api_key.revoked`. */
  action: string;
  targetId?: string | null;
  agentId?: string | null;
  /** The key that acted; null for the daemon itself (bounces, unsubscribe links, the operator). */
  keyId?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Write one audit entry with `db` — pass the transaction's db when the change has one, so the
 * entry and the change commit together.
 */
export async function recordAudit(ctx: AppContext, db: Db, e: AuditEntry): Promise<void> {
  await insertLog(db, {
    id: newId('log', ctx.clock), workspace_id: e.workspaceId, category: e.category, action: e.action,
    target_resource_id: e.targetId ?? null, agent_id: e.agentId ?? null, key_id: e.keyId ?? null,
    metadata: e.metadata ?? {}, created_at: isoAt(ctx.clock.now()),
  });
}

/** Shorthand for an entry caused by an API key. */
export function byKey(auth: AuthContext): { workspaceId: string; keyId: string } {
  return { workspaceId: auth.workspaceId, keyId: auth.keyId };
}
