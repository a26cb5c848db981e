import type { Metrics, MetricsQuery, Usage } from '../contract/account.js';
import { TIERS, type Tier } from '../contract/me.js';
import {
  countDeliveries, countDrafts, countEvents, countReceived, countSendLog, countSent, countSuppressed, countThreads, sumSentCost,
  type CountScope,
} from '../db/repos/stats.js';
import { firstWorkspace, getWorkspace, updateWorkspace } from '../db/repos/workspaces.js';
import { httpUrl } from '../contract/loopback.js';
import { instanceToken, instanceTokenPayload } from './unsubscribe.js';
import { Errors } from '../shared/errors.js';
import { isoAt, DAY, HOUR } from '../shared/clock.js';
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

/** How long a billing page link from POST /v1/billing/portal shows the workspace (fixed). */
export const BILLING_LINK_TTL_MS = HOUR;

/**
 * A self-hosted instance has no billing provider (compat.md: `mock: true`). The URL is this
 * daemon's billing page with a signed session (workspace, expiry, return URL): only a link made
 * here shows the workspace's tier and a Back link, and only to the `return_url` it was made with
 * (an http(s) URL). The page without a valid session names nothing and links nowhere: its
 * address is public, so anything it showed from its query could be a phishing aid.
 */
export async function billingPortal(ctx: AppContext, body: { return_url?: string }, auth: AuthContext): Promise<{ url: string; mock: boolean }> {
  requireNotConnectedApp(auth, 'open the billing portal');
  const back = body.return_url ?? '';
  if (back && !httpUrl(back)) throw Errors.invalidParam('return_url', '`return_url` must be an http or https URL (the billing page links back to it).');
  const expires = ctx.clock.now() + BILLING_LINK_TTL_MS;
  const u = new URL(billingPageUrl(ctx));
  u.searchParams.set('session', await instanceToken(ctx, `b1|${auth.workspaceId}|${expires}|${back}`));
  return { url: u.toString(), mock: true };
}

export interface BillingPageView {
  /** Why no workspace is shown: no session, or one that is not valid (forged, cut, expired). */
  refused: 'none' | 'invalid' | 'expired' | null;
  tier: string | null;
  returnUrl: string | null;
}

/** What GET /v1/public/billing may show for the `session` of its query (billingPortal). */
export async function billingPageView(ctx: AppContext, session: string | undefined): Promise<BillingPageView> {
  if (!session) return { refused: 'none', tier: null, returnUrl: null };
  const payload = await instanceTokenPayload(ctx, session);
  const m = payload === null ? null : /^b1\|([^|]+)\|(\d+)\|(.*)$/s.exec(payload);
  if (!m) return { refused: 'invalid', tier: null, returnUrl: null };
  if (Number(m[2]) <= ctx.clock.now()) return { refused: 'expired', tier: null, returnUrl: null };
  const ws = await getWorkspace(ctx.db, m[1]);
  if (!ws) return { refused: 'invalid', tier: null, returnUrl: null };
  return { refused: null, tier: ws.tier, returnUrl: m[3] || null };
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

