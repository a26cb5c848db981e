import type { Metrics, MetricsQuery, Usage } from '../contract/account.js';
import { TIERS, type Tier } from '../contract/me.js';
import {
  countDeliveries, countDrafts, countEvents, countReceived, countSendLog, countSent, countSuppressed, countThreads, sumSentCost,
  type CountScope,
} from '../db/repos/stats.js';
import { firstWorkspace, updateWorkspace } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import { isoAt, DAY } from '../shared/clock.js';
import { capsFor } from '../shared/tiers.js';
import { inTransaction, type AppContext, type AuthContext } from './context.js';
import { requireNotConnectedApp } from './auth.js';
import { requireWorkspace, resolveAgent } from './agents.js';
import { recordAudit } from './audit-log.js';

/** The billing period: the calendar month (UTC) containing `now`. */
export function billingPeriod(now: number): { start: string; end: string } {
  const d = new Date(now);
  return {
    start: isoAt(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)),
    end: isoAt(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)),
  };
}

/** compat.md: Usage. Sends are counted per recipient, as the caps count them (spec: Limits). */
export async function getUsage(ctx: AppContext, auth: AuthContext): Promise<Usage> {
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  const caps = capsFor(ws.tier);
  const { start, end } = billingPeriod(ctx.clock.now());
  const live: CountScope = { workspaceId: ws.id, testMode: false, since: start, until: end };
  return {
    object: 'usage', workspace_id: ws.id, tier: (TIERS as readonly string[]).includes(ws.tier) ? (ws.tier as Tier) : 'free',
    tier_status: ws.tier_status, period_start: start, period_end: end,
    usage: {
      sends: await countSendLog(ctx.db, ws.id, start, end),
      parses: await countReceived(ctx.db, live),
      webhook_deliveries: await countDeliveries(ctx.db, ws.id, start, end),
      sends_cost_usd: Math.round((await sumSentCost(ctx.db, live)) * 1e6) / 1e6,
      parses_cost_usd: 0,
    },
    caps: { monthly_sends: caps.monthly, monthly_parses: caps.monthlyParses, agents: caps.agents, hourly: caps.hourly, daily: caps.daily },
  };
}

/** This daemon's billing page (GET /v1/public/billing): the portal URL and every 402's upgrade_url. */
export function billingPageUrl(ctx: AppContext): string {
  return `${ctx.config.publicUrl}/v1/public/billing`;
}

/**
 * A self-hosted instance has no billing provider (compat.md: `mock: true`). The URL is this
 * daemon's billing page, which explains how the operator sets the tier and links back.
 */
export function billingPortal(ctx: AppContext, body: { return_url?: string }, auth: AuthContext): { url: string; mock: boolean } {
  requireNotConnectedApp(auth, 'open the billing portal');
  const u = new URL(billingPageUrl(ctx));
  if (body.return_url) u.searchParams.set('return_url', body.return_url);
  return { url: u.toString(), mock: true };
}

export async function getMetrics(ctx: AppContext, auth: AuthContext, q: MetricsQuery): Promise<Metrics> {
  // Spec: Other endpoints — an agent-bound key gets its own agent's counts.
  const agentId = q.agent_id ? (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id : auth.agentId;
  const mode = q.mode ?? auth.mode;
  const testMode = mode === 'all' ? null : mode === 'test';
  const now = ctx.clock.now();
  const counts = async (since: string) => {
    const s: CountScope = { workspaceId: auth.workspaceId, agentId, testMode, since };
    return {
      sent: await countSent(ctx.db, s),
      received: await countReceived(ctx.db, s),
      replies: await countReceived(ctx.db, s, { repliesOnly: true }),
      bounces: await countEvents(ctx.db, s, 'message.bounced'),
      complaints: await countEvents(ctx.db, s, 'message.complained'),
      failed: await countSent(ctx.db, s, ['failed']),
      scheduled: await countSent(ctx.db, s, ['scheduled']),
    };
  };
  return {
    object: 'metrics', workspace_id: auth.workspaceId, agent_id: agentId, mode, generated_at: isoAt(now),
    last_24h: await counts(isoAt(now - DAY)),
    last_30d: await counts(isoAt(now - 30 * DAY)),
    totals: {
      threads: await countThreads(ctx.db, auth.workspaceId, agentId),
      drafts: await countDrafts(ctx.db, auth.workspaceId, agentId),
      suppressed_addresses: await countSuppressed(ctx.db, auth.workspaceId, agentId),
    },
  };
}

/**
 * The operator sets the workspace's tier (`mailagent admin tier pro`). Caps are read from the
 * workspace row on every check, so a running daemon applies the new caps at once.
 */
export async function setWorkspaceTier(ctx: AppContext, tier: string): Promise<{ workspace_id: string; from: string; tier: Tier }> {
  if (!(TIERS as readonly string[]).includes(tier)) throw Errors.invalidParam('tier', `"${tier}" is not a tier; use one of ${TIERS.join(', ')}.`);
  return inTransaction(ctx, async (tx) => {
    const ws = await firstWorkspace(tx.db);
    if (!ws) throw Errors.notFound('workspace', '(none: run `mailagent init` first)');
    await updateWorkspace(tx.db, ws.id, { tier, tier_status: 'active' });
    await recordAudit(ctx, tx.db, { workspaceId: ws.id, category: 'workspace', action: 'workspace.tier_changed', targetId: ws.id, metadata: { from: ws.tier, to: tier, by: 'operator' } });
    return { workspace_id: ws.id, from: ws.tier, tier: tier as Tier };
  });
}

/** The tier of the instance's workspace, for the public billing page. */
export async function firstWorkspaceTier(ctx: AppContext): Promise<string> {
  return (await firstWorkspace(ctx.db))?.tier ?? 'free';
}
