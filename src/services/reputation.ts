import type { Reputation } from '../contract/account.js';
import { countEvents, countReceived, countSent } from '../db/repos/stats.js';
import { isoAt, DAY } from '../shared/clock.js';
import type { AppContext, AuthContext } from './context.js';
import { resolveAgent } from './agents.js';

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A 0–1 score from 30 days of live mail. Mailbox providers start filtering around 2 % bounces and
 * 0.3 % complaints (Gmail/Yahoo bulk-sender rules, 2024), so complaints weigh 20 times bounces:
 * 10 % bounces or 0.5 % complaints halve the score; replies (wanted mail) add up to 0.1.
 * No mail yet: 1 (nothing against the sender).
 */
export function reputationScore(sends: number, bounces: number, complaints: number, replies: number): number {
  if (sends === 0) return 1;
  const score = 1 - 5 * (bounces / sends) - 100 * (complaints / sends) + Math.min(0.1, 0.5 * (replies / sends));
  return round(Math.min(1, Math.max(0, score)));
}

export async function getReputation(ctx: AppContext, auth: AuthContext, q: { agent_id?: string }): Promise<Reputation> {
  const agentId = q.agent_id ? (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id : auth.agentId;
  const now = ctx.clock.now();
  const scope = { workspaceId: auth.workspaceId, agentId, testMode: false, since: isoAt(now - 30 * DAY) };
  const sends = await countSent(ctx.db, scope);
  const bounces = await countEvents(ctx.db, scope, 'message.bounced');
  const complaints = await countEvents(ctx.db, scope, 'message.complained');
  const replies = await countReceived(ctx.db, scope, { repliesOnly: true });
  const rate = (x: number) => (sends ? round(x / sends) : 0);
  return {
    object: 'reputation', workspace_id: auth.workspaceId, agent_id: agentId,
    reputation: reputationScore(sends, bounces, complaints, replies),
    send_count_30d: sends, bounce_count_30d: bounces, complaint_count_30d: complaints, reply_count_30d: replies,
    bounce_rate: rate(bounces), complaint_rate: rate(complaints), reply_rate: rate(replies),
    period_start: scope.since, period_end: isoAt(now),
  };
}
