import { createHash } from 'node:crypto';
import type { AppealRequest, AppealResult } from '../contract/messages.js';
import { liveAgents } from '../db/repos/agents.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { DAY, SECOND, isoAt } from '../shared/clock.js';
import { parseMailbox } from '../mail/address.js';
import type { AppContext, AuthContext } from './context.js';
import { resolveAgent } from './agents.js';

/** Spec: Limits → Appeals: 10 per workspace per 24 hours; an overturn clears content for 24 hours. */
export const APPEALS_PER_DAY = 10;
export const CLEARANCE_MS = DAY;

/** The content an appeal is about: subject and bodies, verbatim (spec: appeal request). */
export function contentHash(subject: string, text: string | null | undefined, html: string | null | undefined): string {
  return createHash('sha256').update(`${subject}\u0000${text ?? ''}\u0000${html ?? ''}`).digest('hex');
}

/** True while an overturned appeal clears exactly this content (the send then uses an isolated pool). */
export async function isContentCleared(ctx: AppContext, workspaceId: string, hash: string): Promise<boolean> {
  const r = await ctx.db.selectFrom('appeals').select('id').where('workspace_id', '=', workspaceId).where('content_hash', '=', hash)
    .where('outcome', '=', 'overturned').where('created_at', '>', isoAt(ctx.clock.now() - CLEARANCE_MS)).limit(1).executeTakeFirst();
  return r !== undefined;
}

/**
 * POST /v1/messages/appeal. Identical content replays its stored outcome (`replayed: true`) and
 * does not count against the 10-a-day limit; a new appeal runs the classifier's second review.
 */
export async function appealRefusal(ctx: AppContext, auth: AuthContext, body: AppealRequest): Promise<AppealResult> {
  let agentId: string | null = null;
  if (body.agent) agentId = (await resolveAgent(ctx, auth, body.agent, 'send', 'agent')).id;
  else if (auth.agentId) agentId = auth.agentId;
  else {
    const live = await liveAgents(ctx.db, auth.workspaceId, 2);
    if (live.length !== 1) throw Errors.missingField('agent', 'This workspace has more than one live agent: name the agent whose send was refused in `agent`.');
    agentId = live[0].id;
  }
  if ((body.body_text === undefined || body.body_text === null) && (body.body_html === undefined || body.body_html === null)) {
    throw Errors.missingField('body_text', 'Give the refused content verbatim: `body_text`, `body_html` or both.');
  }
  const to = body.to === undefined ? [] : (Array.isArray(body.to) ? body.to : [body.to]).map((s) => parseMailbox(s)?.address ?? s);
  const hash = contentHash(body.subject, body.body_text, body.body_html);
  const now = ctx.clock.now();
  const since = isoAt(now - DAY);
  const prior = await ctx.db.selectFrom('appeals').selectAll().where('workspace_id', '=', auth.workspaceId)
    .where('content_hash', '=', hash).where('created_at', '>', since).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  if (prior) {
    return {
      outcome: prior.outcome as AppealResult['outcome'], message: prior.message, replayed: true,
      ...(prior.review_score !== null ? { review_score: prior.review_score } : {}),
      ...(prior.reason !== null ? { reason: prior.reason } : {}),
    };
  }
  const recent = await ctx.db.selectFrom('appeals').select('created_at').where('workspace_id', '=', auth.workspaceId)
    .where('created_at', '>', since).orderBy('created_at').execute();
  if (recent.length >= APPEALS_PER_DAY) {
    const resets = Date.parse(recent[recent.length - APPEALS_PER_DAY].created_at) + DAY;
    throw Errors.limit('rate_limit_exceeded', `This workspace filed ${APPEALS_PER_DAY} appeals in the last 24 hours; the next one can be filed at ${isoAt(resets)}.`,
      { resetsAt: isoAt(resets), retryAfterSeconds: Math.max(1, Math.ceil((resets - now) / SECOND)) });
  }
  // Loaded here, not with this module: appeals are rare, and the daemon's main thread otherwise
  // never needs the classifier's weights (its pool workers classify; server/pipeline).
  const { reviewAppeal } = await import('../classifier/index.js');
  const r = reviewAppeal({ subject: body.subject, text: body.body_text ?? null, html: body.body_html ?? null, to, isReply: false });
  const withScore = r.outcome === 'overturned' || r.outcome === 'upheld';
  await ctx.db.insertInto('appeals').values({
    id: newId('apl', ctx.clock), workspace_id: auth.workspaceId, agent_id: agentId, content_hash: hash, outcome: r.outcome,
    review_score: withScore && r.review_score !== undefined ? r.review_score : null, reason: withScore ? r.reason ?? null : null,
    message: r.message, created_at: isoAt(now),
  }).execute();
  return {
    outcome: r.outcome, message: r.message,
    ...(withScore && r.review_score !== undefined ? { review_score: r.review_score } : {}),
    ...(withScore && r.reason ? { reason: r.reason } : {}),
  };
}
