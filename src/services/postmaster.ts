import { liveAgents, type AgentRow } from '../db/repos/agents.js';
import { firstWorkspace } from '../db/repos/workspaces.js';
import type { AppContext } from './context.js';

/**
 * `postmaster` (RFC 5321 §4.5.1): a server must accept it for every domain it takes mail for, in
 * any case, and `RCPT TO:<Postmaster>` with no domain at all. No agent can be called postmaster
 * (RESERVED_AGENT_NAMES in agents.ts), so the mail goes to whoever runs the domain: the first live
 * agent (the oldest: the default agent `init`/`serve` made) of the workspace that owns the domain
 * — `<slug>.<agent domain>`, or a custom domain its agents use — and for the bare agent domain,
 * a subdomain no workspace has, or no domain at all, of the instance's first workspace (the
 * operator's). The stored message's `to` is the postmaster address, so the web inbox, the
 * `message.received` event and any filter see what it was sent to (docs/inbound.md → postmaster).
 */
export const POSTMASTER = 'postmaster';

/**
 * The role mailboxes routed like postmaster (RFC 2142): `abuse` (§2: where reports about mail this
 * server sent go), `noc` and `security` (§4), `hostmaster` and `webmaster` (§5: the DNS records
 * and the HTTP service the operator runs). Each is a reserved agent name (agents.ts); only bare
 * `Postmaster` is also accepted with no domain (RFC 5321 §4.5.1).
 */
export const ROLE_MAILBOXES: ReadonlySet<string> = new Set([POSTMASTER, 'abuse', 'hostmaster', 'webmaster', 'security', 'noc']);

/** The agent that receives postmaster (and other role-mailbox) mail for `domain` (null: none, the instance has no live agent). */
export async function postmasterAgent(ctx: AppContext, domain: string | null): Promise<AgentRow | null> {
  const owner = domain ? await domainWorkspace(ctx, domain) : null;
  if (owner) {
    const [agent] = await liveAgents(ctx.db, owner, 1);
    if (agent) return agent;
  }
  const operator = await firstWorkspace(ctx.db);
  if (!operator || operator.id === owner) return null;
  const [agent] = await liveAgents(ctx.db, operator.id, 1);
  return agent ?? null;
}

async function domainWorkspace(ctx: AppContext, domain: string): Promise<string | null> {
  const base = ctx.config.agentDomain.toLowerCase();
  if (domain.endsWith('.' + base)) {
    const slug = domain.slice(0, -(base.length + 1));
    const ws = await ctx.db.selectFrom('workspaces').select('id').where('slug', '=', slug).executeTakeFirst();
    return ws?.id ?? null;
  }
  if (domain === base) return null;
  const agent = await ctx.db.selectFrom('agents').select('workspace_id').where('domain', '=', domain).orderBy('id').limit(1).executeTakeFirst();
  return agent?.workspace_id ?? null;
}
