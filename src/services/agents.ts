import type { Agent, AgentCreate, AgentUpdate, AgentListQuery } from '../contract/agents.js';
import { AGENT_NAME_PATTERN } from '../contract/agents.js';
import type { PageOf } from '../contract/common.js';
import {
  agentByEmail, agentsByName, getAgent, insertAgent, listAgents, updateAgent, countLiveAgents, liveAgents, type AgentRow,
} from '../db/repos/agents.js';
import { agentHasLiveKey } from '../db/repos/api-keys.js';
import { agentHasLiveThreads } from '../db/repos/threads.js';
import { getWorkspace, type WorkspaceRow } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import { newId, hasPrefix } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { capsFor } from '../shared/tiers.js';
import { inTransaction, type AppContext, type AuthContext, type Tx } from './context.js';
import { requireNotConnectedApp, requireUnbound } from './auth.js';
import { emitEvent } from './events.js';
import { recordAudit } from './audit-log.js';
import { requireVerifiedDomain } from './domains.js';
import { agentHasLiveDraft } from '../db/repos/drafts.js';
import { pageOf } from '../db/paginate.js';
import { ReadCache } from './read-cache.js';
import { bareDomain, misleadingDisplayName } from '../mail/address.js';
import { RETURN_PATH_LOCAL } from '../mail/return-path.js';

const NAME_RE = new RegExp(AGENT_NAME_PATTERN);
const DOMAIN_RE = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

export function toAgent(r: AgentRow): Agent {
  return {
    id: r.id, object: 'agent', name: r.name, display_name: r.display_name, email: r.email, domain: r.domain,
    workspace_id: r.workspace_id, status: r.status, daily_send_limit: r.daily_send_limit,
    hourly_send_limit: r.hourly_send_limit, classify_inbound: r.classify_inbound,
    allowlist_domains: r.allowlist_domains, blocklist_domains: r.blocklist_domains,
    created_at: r.created_at, updated_at: r.updated_at, archived_at: r.archived_at,
  };
}

/** docs/api-foundation.md "Agent names": lower-case letters, digits, `.`, `_`, `-`; 1–64 chars; starts and ends with a letter or digit; no `..`; not `agt_…`; no `+`. */
export function normalizeAgentName(raw: string, param = 'name'): string {
  const name = raw.trim().toLowerCase();
  // A name that looks like an agent id (`agt_…`) could never be looked up by name: ids win.
  if (!NAME_RE.test(name) || hasPrefix(name, 'agt')) {
    throw Errors.invalidParam(param, `"${raw}" is not a valid agent name: use 1–64 lower-case letters, digits, ".", "_" or "-", starting and ending with a letter or digit, no "..", not starting with "agt_" ("+" is reserved for plus addresses).`);
  }
  return name;
}

/**
 * Local parts every mail domain reserves for its operator (RFC 2142 §§4–5; RFC 5321 §4.5.1 for
 * postmaster): an agent may not take them, or mail meant for whoever runs the domain would go to
 * a bot.
 */
export const RESERVED_AGENT_NAMES: ReadonlySet<string> = new Set(['postmaster', 'abuse', 'mailer-daemon', 'hostmaster', 'webmaster', 'security', 'noc']);

/** normalizeAgentName, for a new agent: also refuses the reserved role names. */
export function newAgentName(raw: string, param = 'name'): string {
  const name = normalizeAgentName(raw, param);
  if (RESERVED_AGENT_NAMES.has(name)) {
    throw Errors.invalidParam(param, `"${name}" is reserved for the mail domain's operator (RFC 2142: ${[...RESERVED_AGENT_NAMES].join(', ')}); choose another agent name.`);
  }
  // `bounces+<token>@` is every domain's signed return path (services/return-path.ts).
  if (name === RETURN_PATH_LOCAL) throw Errors.invalidParam(param, `"${name}" is reserved: outgoing mail's return paths are ${name}+<token>@<domain>; choose another agent name.`);
  return name;
}

export function workspaceDomain(ctx: AppContext, ws: WorkspaceRow): string {
  return `${ws.slug}.${ctx.config.agentDomain}`;
}

function normalizeDomains(list: string[] | undefined, param: string): string[] | undefined {
  if (list === undefined) return undefined;
  return [...new Set(list.map((d, i) => {
    const v = bareDomain(d).replace(/^@/, '');
    if (!DOMAIN_RE.test(v)) throw Errors.invalidParam(`${param}[${i}]`, `"${d}" is not a domain name (for example example.com).`);
    return v;
  }))];
}

function checkLimitsAgainstPlan(tier: string, body: { daily_send_limit?: number | null; hourly_send_limit?: number | null }): void {
  const caps = capsFor(tier);
  if (body.daily_send_limit != null && body.daily_send_limit > caps.daily) {
    throw Errors.planLimitExceeded(`daily_send_limit ${body.daily_send_limit} is above the ${tier} plan's daily cap of ${caps.daily}; upgrade the plan or choose a lower limit.`);
  }
  if (body.hourly_send_limit != null && body.hourly_send_limit > caps.hourly) {
    throw Errors.planLimitExceeded(`hourly_send_limit ${body.hourly_send_limit} is above the ${tier} plan's hourly cap of ${caps.hourly}; upgrade the plan or choose a lower limit.`);
  }
}

/**
 * Workspace rows by id, so GET /v1/me and the send path do not each SELECT a row that changes
 * only when an operator sets the tier: kept while nothing writes the workspaces table (ReadCache,
 * services/read-cache.ts: any write to it by any path, a rolled-back one included, or any commit
 * by another process drops it).
 */
const workspaceCache = new ReadCache<WorkspaceRow | undefined>(['workspaces'], 1000, (r) => r && { ...r });

/**
 * The workspace row while the cache holds it (no read, no promise); undefined otherwise. Not a
 * copy (ReadCache.peekKept): read-only, and the same object while the row is unchanged.
 */
export function keptWorkspace(ctx: AppContext, id: string): Readonly<WorkspaceRow> | undefined {
  return workspaceCache.peekKept(ctx, id) ?? undefined;
}

export async function requireWorkspace(ctx: AppContext, id: string): Promise<WorkspaceRow> {
  const ws = await workspaceCache.get(ctx, id, () => getWorkspace(ctx.db, id));
  if (!ws) throw Errors.notFound('workspace', id);
  return ws;
}

/**
 * Agent rows as the send path looks them up (by id, address or name; the live ones of a
 * workspace), kept while nothing writes the agents table: every send names its agent, and agents
 * change only when created, edited, paused or archived. Each caller gets its own copies.
 */
const agentCache = new ReadCache<AgentRow[]>(['agents'], 2000, (rows) => rows.map((a) => ({ ...a })));

async function agentLookup(ctx: AppContext, workspaceId: string, raw: string): Promise<AgentRow[]> {
  return agentCache.get(ctx, `${workspaceId}\u0000${raw}`, async () => {
    if (hasPrefix(raw, 'agt')) {
      const a = await getAgent(ctx.db, workspaceId, raw);
      return a ? [a] : [];
    }
    if (raw.includes('@')) {
      const a = await agentByEmail(ctx.db, raw);
      return a && a.workspace_id === workspaceId ? [a] : [];
    }
    return agentsByName(ctx.db, workspaceId, raw.toLowerCase());
  });
}

/** Up to `max` live (not archived) agents of a workspace, oldest first (cached as above). */
export async function liveAgentsOf(ctx: AppContext, workspaceId: string, max: number): Promise<AgentRow[]> {
  return agentCache.get(ctx, `${workspaceId}\u0000live:${max}`, () => liveAgents(ctx.db, workspaceId, max));
}

/** Create an agent row (used by the API and by bootstrap); the caller owns the transaction. */
/**
 * A display name shown beside an agent's address (an agent's `display_name`, the name in a send's
 * `from`) must not hold an address or angle brackets: 400 naming `param`.
 */
export function checkDisplayName(name: string | null | undefined, param: string): void {
  const bad = name ? misleadingDisplayName(name) : null;
  if (bad) {
    throw Errors.invalidParam(param, `The display name ${JSON.stringify(name)} contains ${bad}: a name shown beside the agent's address must not look like another address. Use a plain name such as "Billing team".`);
  }
}

export async function insertNewAgent(ctx: AppContext, tx: Tx, ws: WorkspaceRow, body: AgentCreate, testMode: boolean, customDomain: string | null = null): Promise<AgentRow> {
  const name = newAgentName(body.name);
  checkDisplayName(body.display_name, 'display_name');
  const domain = customDomain ?? workspaceDomain(ctx, ws);
  const email = `${name}@${domain}`;
  if (await agentByEmail(tx.db, email)) {
    throw Errors.agentAddressTaken(email);
  }
  const at = isoAt(ctx.clock.now());
  const row: AgentRow = {
    id: newId('agt', ctx.clock), workspace_id: ws.id, name, display_name: body.display_name ?? null, email, domain,
    status: 'active', daily_send_limit: body.daily_send_limit ?? null, hourly_send_limit: body.hourly_send_limit ?? null,
    classify_inbound: body.classify_inbound ?? true,
    allowlist_domains: normalizeDomains(body.allowlist_domains, 'allowlist_domains') ?? [],
    blocklist_domains: normalizeDomains(body.blocklist_domains, 'blocklist_domains') ?? [],
    created_at: at, updated_at: at, archived_at: null,
  };
  await insertAgent(tx.db, row);
  await emitEvent(ctx, tx, { type: 'agent.created', workspaceId: ws.id, agentId: row.id, testMode, data: { agent: toAgent(row) } });
  return row;
}

export async function createAgent(ctx: AppContext, auth: AuthContext, body: AgentCreate): Promise<Agent> {
  requireUnbound(auth, 'create an agent');
  // What is wrong with the request itself is said before any plan cap: an invalid name at the
  // agent cap is 400 (invalid name), not 402.
  newAgentName(body.name);
  checkDisplayName(body.display_name, 'display_name');
  normalizeDomains(body.allowlist_domains, 'allowlist_domains');
  normalizeDomains(body.blocklist_domains, 'blocklist_domains');
  // An agent on a verified custom domain gets its address there (spec: Agent → email).
  const customDomain = body.domain !== undefined ? await requireVerifiedDomain(ctx, auth.workspaceId, body.domain) : null;
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  checkLimitsAgainstPlan(ws.tier, body);
  return inTransaction(ctx, async (tx) => {
    const caps = capsFor(ws.tier);
    if ((await countLiveAgents(tx.db, ws.id)) >= caps.agents) {
      throw Errors.planLimitExceeded(`The ${ws.tier} plan allows ${caps.agents} live agents; archive one or upgrade the plan.`);
    }
    const created = await insertNewAgent(ctx, tx, ws, body, auth.mode === 'test', customDomain);
    await recordAudit(ctx, tx.db, { workspaceId: ws.id, keyId: auth.keyId, category: 'agent', action: 'agent.created', targetId: created.id, agentId: created.id, metadata: { name: created.name, email: created.email } });
    return toAgent(created);
  });
}

export type AgentRefPurpose = 'route' | 'filter' | 'send';

/**
 * Resolve an agent named by id, name or address (spec: Errors → agent_name_conflict).
 * Order: the calling key's own agent, then a live agent over an archived one. Two live agents
 * with the name: a send picks the oldest; routes and filters answer 409. A bound key naming any
 * agent but its own — existing or not, the answer is the same: routes and sends 404, filters (and
 * reputation, the simulator) 403.
 */
export async function resolveAgent(
  ctx: AppContext, auth: AuthContext, ref: string, purpose: AgentRefPurpose, param: string | null = 'agent',
): Promise<AgentRow> {
  const raw = ref.trim();
  const candidates = await agentLookup(ctx, auth.workspaceId, raw);
  if (auth.agentId) {
    const own = candidates.find((a) => a.id === auth.agentId);
    if (own) return own;
    // Isolation: the same answer whether or not the named agent exists, in words true either way
    // (a filter 403, a route or send 404), so a bound key cannot probe for other agents.
    const bound = await getAgent(ctx.db, auth.workspaceId, auth.agentId);
    const boundTo = bound ? `${bound.name} <${bound.email}>` : auth.agentId;
    if (purpose === 'filter') {
      throw Errors.insufficientScope(`This key is bound to agent ${boundTo} and cannot act on agent "${raw}".`, param);
    }
    throw Errors.agentNotVisible(raw, param, boundTo);
  }
  if (!candidates.length) throw Errors.agentNotFound(raw, param);
  const live = candidates.filter((a) => a.status !== 'archived');
  if (live.length > 1) {
    if (purpose === 'send') return live[0];
    throw Errors.agentNameConflict(raw, param ?? 'agent');
  }
  if (live.length === 1) return live[0];
  return candidates[candidates.length - 1];
}

export async function listAgentsPage(ctx: AppContext, auth: AuthContext, q: AgentListQuery): Promise<PageOf<Agent>> {
  const status = q.status ?? 'live';
  const statuses = status === 'all' ? null : status === 'live' ? ['active', 'paused'] : [status];
  const res = await listAgents(ctx.db, auth.workspaceId, { statuses, agentId: auth.agentId }, q);
  return pageOf(res, res.rows.map(toAgent));
}

export async function getAgentByRef(ctx: AppContext, auth: AuthContext, ref: string): Promise<Agent> {
  return toAgent(await resolveAgent(ctx, auth, ref, 'route', null));
}

/** Spec: live_mode_required — a test key changing an agent that has a live key or live mail. */
async function assertTestKeyMayChange(ctx: AppContext, auth: AuthContext, agent: AgentRow, what: string): Promise<void> {
  if (auth.mode !== 'test') return;
  if ((await agentHasLiveKey(ctx.db, agent.id)) || (await agentHasLiveThreads(ctx.db, agent.id)) || (await agentHasLiveDraft(ctx.db, agent.id))) {
    throw Errors.liveModeRequired(`${what} agent ${agent.name}, which has a live key, live mail or a live-key draft`);
  }
}

export async function updateAgentByRef(ctx: AppContext, auth: AuthContext, ref: string, body: AgentUpdate): Promise<Agent> {
  const agent = await resolveAgent(ctx, auth, ref, 'route', null);
  const touchesPolicy = ['daily_send_limit', 'hourly_send_limit', 'allowlist_domains', 'blocklist_domains']
    .filter((k) => (body as Record<string, unknown>)[k] !== undefined);
  if (auth.agentId && touchesPolicy.length) requireUnbound(auth, `change its own ${touchesPolicy.join(', ')}`);
  if (touchesPolicy.length) requireNotConnectedApp(auth, `change an agent's ${touchesPolicy.join(', ')}`);
  if (agent.status === 'archived') throw Errors.agentArchived(agent.id);
  await assertTestKeyMayChange(ctx, auth, agent, 'change');
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  checkLimitsAgainstPlan(ws.tier, body);
  const at = isoAt(ctx.clock.now());
  const patch: Partial<AgentRow> = { updated_at: at };
  if (body.status !== undefined) patch.status = body.status;
  if (body.display_name !== undefined) {
    checkDisplayName(body.display_name, 'display_name');
    patch.display_name = body.display_name;
  }
  if (body.daily_send_limit !== undefined) patch.daily_send_limit = body.daily_send_limit;
  if (body.hourly_send_limit !== undefined) patch.hourly_send_limit = body.hourly_send_limit;
  if (body.classify_inbound !== undefined) patch.classify_inbound = body.classify_inbound;
  if (body.allowlist_domains !== undefined) patch.allowlist_domains = normalizeDomains(body.allowlist_domains, 'allowlist_domains');
  if (body.blocklist_domains !== undefined) patch.blocklist_domains = normalizeDomains(body.blocklist_domains, 'blocklist_domains');
  return inTransaction(ctx, async (tx) => {
    await updateAgent(tx.db, agent.id, patch);
    const updated = { ...agent, ...patch } as AgentRow;
    await recordAudit(ctx, tx.db, { workspaceId: agent.workspace_id, keyId: auth.keyId, category: 'agent', action: 'agent.updated', targetId: agent.id, agentId: agent.id, metadata: { changes: body } });
    if (body.status && body.status !== agent.status) {
      await emitEvent(ctx, tx, {
        type: body.status === 'paused' ? 'agent.paused' : 'agent.resumed', workspaceId: agent.workspace_id,
        agentId: agent.id, testMode: auth.mode === 'test', data: { agent: toAgent(updated) },
      });
    }
    return toAgent(updated);
  });
}

export async function archiveAgentByRef(ctx: AppContext, auth: AuthContext, ref: string): Promise<{ id: string; status: 'archived'; archived_at: string }> {
  const agent = await resolveAgent(ctx, auth, ref, 'route', null);
  if (agent.status === 'archived') throw Errors.agentArchived(agent.id);
  await assertTestKeyMayChange(ctx, auth, agent, 'archive');
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    await updateAgent(tx.db, agent.id, { status: 'archived', archived_at: at, updated_at: at });
    await recordAudit(ctx, tx.db, { workspaceId: agent.workspace_id, keyId: auth.keyId, category: 'agent', action: 'agent.archived', targetId: agent.id, agentId: agent.id, metadata: { name: agent.name } });
    await emitEvent(ctx, tx, {
      type: 'agent.archived', workspaceId: agent.workspace_id, agentId: agent.id, testMode: auth.mode === 'test',
      data: { agent: toAgent({ ...agent, status: 'archived', archived_at: at, updated_at: at }) },
    });
    return { id: agent.id, status: 'archived' as const, archived_at: at };
  });
}
