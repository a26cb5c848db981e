import { capsFor } from '../shared/tiers.js';
import { SEND_LIMITS } from '../contract/messages.js';
import { Errors } from '../shared/errors.js';
import { DAY, HOUR, SECOND, isoAt } from '../shared/clock.js';
import { countSince, distinctRecipientsSince, nthOldestSince, insertSendLog, deleteSendLog, type Scope } from '../db/repos/send-counters.js';
import type { Db } from '../db/schema.js';
import type { AgentRow } from '../db/repos/agents.js';
import type { WorkspaceRow } from '../db/repos/workspaces.js';
import type { AppContext, AuthContext } from './context.js';
import { isSharedStore } from '../db/open.js';
import { takeRateSlot } from '../db/repos/rate-slots.js';
import { randomUUID } from 'node:crypto';
import { WindowLogs } from './window-logs.js';

// ---------------------------------------------------------------- burst (spec: Limits → Burst)

export const BURST_LIMIT = 100;
export const BURST_WINDOW_MS = 10 * SECOND;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window frees a slot (RateLimit-Reset). */
  resetSeconds: number;
}

/**
 * 100 send requests per 10 s per live key, across every send route (a batch is one request).
 * One daemon keeps the window in memory: it is shorter than any restart, and it needs no write
 * per request. Daemons sharing a store (PostgreSQL) keep it in the database (rate_slots), so the
 * limit holds across all of them, not 100 per daemon. Test keys are never refused.
 */
const burstLogs = new WeakMap<AppContext, WindowLogs>();
/** Keys whose send times are kept (docs/security.md → In-memory caches). */
export const BURST_KEYS_MAX = 10_000;

export async function takeBurstSlot(ctx: AppContext, auth: AuthContext): Promise<RateLimitState> {
  const now = ctx.clock.now();
  if (auth.mode === 'test') return { limit: BURST_LIMIT, remaining: BURST_LIMIT, resetSeconds: BURST_WINDOW_MS / SECOND };
  let used: number;
  let oldest: number | null;
  if (isSharedStore(ctx.db)) {
    const r = await takeRateSlot(ctx.db, `burst:${auth.keyId}`, {
      id: randomUUID(), at: isoAt(now), since: isoAt(now - BURST_WINDOW_MS), limit: BURST_LIMIT,
    });
    if (!r.taken) throw burstRefusal(now, r.oldest ? Date.parse(r.oldest) : now);
    used = r.used;
    oldest = r.oldest ? Date.parse(r.oldest) : now;
  } else {
    let logs = burstLogs.get(ctx);
    if (!logs) burstLogs.set(ctx, (logs = new WindowLogs(BURST_WINDOW_MS, BURST_KEYS_MAX)));
    const log = logs.take(auth.keyId, now);
    if (log.length >= BURST_LIMIT) throw burstRefusal(now, log[0]);
    log.push(now);
    used = log.length;
    oldest = log[0];
  }
  return { limit: BURST_LIMIT, remaining: BURST_LIMIT - used, resetSeconds: resetSeconds(now, oldest) };
}

const resetSeconds = (now: number, oldest: number | null) =>
  oldest === null ? BURST_WINDOW_MS / SECOND : Math.max(1, Math.ceil((oldest + BURST_WINDOW_MS - now) / SECOND));

function burstRefusal(now: number, oldest: number): Error {
  const waitMs = oldest + BURST_WINDOW_MS - now;
  const state = { limit: BURST_LIMIT, remaining: 0, resetSeconds: resetSeconds(now, oldest) };
  return Object.assign(Errors.limit('rate_limit_exceeded',
    `This key made ${BURST_LIMIT} send requests in the last 10 seconds; slow down (a batch of up to 100 messages counts as one request).`,
    { resetsAt: isoAt(now + waitMs), retryAfterSeconds: Math.max(1, Math.ceil(waitMs / SECOND)) }), { rateLimit: state });
}

// ---------------------------------------------------------------- caps (spec: Limits → Send caps)

/**
 * Distinct-recipient fan-out for new workspaces (spec: Limits → Distinct recipients): 50 distinct
 * recipients in any 24 hours during the workspace's first week, doubling every further week
 * (100, 200, 400, …), never above the plan's daily cap.
 */
export function fanoutLimit(ws: WorkspaceRow, dailyCap: number, now: number): number {
  const weeks = Math.max(0, Math.floor((now - Date.parse(ws.created_at)) / (7 * DAY)));
  return Math.min(dailyCap, 50 * 2 ** Math.min(weeks, 20));
}

/** Start of the calendar month (UTC) after `now`: the monthly cap is the billing period. */
function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

type CapCode = 'hourly_limit_exceeded' | 'daily_limit_exceeded' | 'monthly_limit_exceeded' | 'free_tier_exceeded';

async function checkWindow(
  db: Db, now: number, scope: Scope, windowMs: number, cap: number, n: number, code: CapCode, what: string,
): Promise<void> {
  const since = isoAt(now - windowMs);
  const used = await countSince(db, scope, since);
  if (used + n <= cap) return;
  if (n > cap) {
    // Waiting cannot help: this one send alone is over the cap (spec: both null).
    throw Errors.limit(code, `This send has ${n} recipients, more than the ${what} of ${cap}; split it into smaller sends.`, { resetsAt: null, retryAfterSeconds: null });
  }
  const oldest = await nthOldestSince(db, scope, since, used + n - cap);
  const resets = oldest ? Date.parse(oldest) + windowMs : now + windowMs;
  const wait = Math.max(1, Math.ceil((resets - now) / SECOND));
  throw Errors.limit(code, `The ${what} of ${cap} recipients is reached (${used} used, this send needs ${n}); it frees up at ${isoAt(resets)}.`,
    { resetsAt: isoAt(resets), retryAfterSeconds: wait });
}

export interface CapCheck {
  ws: WorkspaceRow;
  agent: AgentRow;
  recipients: string[];
  now: number;
}

/**
 * Every cap a live send is held to (spec: Limits): the plan's monthly, daily (any 24 h) and
 * hourly (any 60 min) caps, the agent's own limits, then the new-workspace fan-out. Counted per
 * recipient from the send log, so they hold across restarts. Call inside the transaction that
 * records the send (reserveSend) so concurrent sends cannot both pass.
 */
export async function checkCaps(db: Db, c: CapCheck): Promise<void> {
  const caps = capsFor(c.ws.tier);
  const n = c.recipients.length;
  const wsScope = { workspaceId: c.ws.id };
  const now = c.now;
  const mUsed = await db.selectFrom('send_log').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', c.ws.id).where('at', '>=', isoAt(monthStart(now))).executeTakeFirstOrThrow();
  const monthUsed = Number(mUsed.n);
  if (monthUsed + n > caps.monthly) {
    const code: CapCode = c.ws.tier === 'free' ? 'free_tier_exceeded' : 'monthly_limit_exceeded';
    const alone = n > caps.monthly;
    const resets = nextMonthStart(now);
    throw Errors.limit(code, alone
      ? `This send has ${n} recipients, more than the ${c.ws.tier} plan's monthly cap of ${caps.monthly}.`
      : `The ${c.ws.tier} plan's monthly cap of ${caps.monthly} recipients is used up until ${isoAt(resets)}${c.ws.tier === 'free' ? '; upgrade the plan to send more' : ''}.`,
    alone ? { resetsAt: null, retryAfterSeconds: null } : { resetsAt: isoAt(resets), retryAfterSeconds: Math.ceil((resets - now) / SECOND) });
  }
  await checkWindow(db, now, wsScope, DAY, caps.daily, n, 'daily_limit_exceeded', `${c.ws.tier} plan's daily cap`);
  await checkWindow(db, now, wsScope, HOUR, caps.hourly, n, 'hourly_limit_exceeded', `${c.ws.tier} plan's hourly cap`);
  if (c.agent.daily_send_limit != null) {
    await checkWindow(db, now, { agentId: c.agent.id }, DAY, c.agent.daily_send_limit, n, 'daily_limit_exceeded', `daily_send_limit of agent ${c.agent.name}`);
  }
  if (c.agent.hourly_send_limit != null) {
    await checkWindow(db, now, { agentId: c.agent.id }, HOUR, c.agent.hourly_send_limit, n, 'hourly_limit_exceeded', `hourly_send_limit of agent ${c.agent.name}`);
  }
  await checkFanout(db, c, fanoutLimit(c.ws, caps.daily, now));
}

async function checkFanout(db: Db, c: CapCheck, limit: number): Promise<void> {
  const seen = await distinctRecipientsSince(db, c.ws.id, isoAt(c.now - DAY));
  const known = new Set(seen.map((s) => s.recipient));
  const fresh = [...new Set(c.recipients)].filter((r) => !known.has(r));
  if (!fresh.length || seen.length + fresh.length <= limit) return;
  const msg = `This workspace may reach ${limit} distinct recipients in any 24 hours while it is new (the number doubles every week, up to the plan's daily cap); this send adds ${fresh.length} new recipients to ${seen.length}. Recipients already mailed in the window always pass.`;
  if (fresh.length > limit) throw Errors.limit('new_workspace_fanout_exceeded', msg, { resetsAt: null, retryAfterSeconds: null });
  const need = seen.length + fresh.length - limit;
  const resets = Date.parse(seen[need - 1].last) + DAY;
  throw Errors.limit('new_workspace_fanout_exceeded', msg, { resetsAt: isoAt(resets), retryAfterSeconds: Math.max(1, Math.ceil((resets - c.now) / SECOND)) });
}

/** Check the caps and record the recipients against them (one row each), in the caller's transaction. */
export async function reserveSend(db: Db, c: CapCheck & { messageId: string }): Promise<void> {
  await checkCaps(db, c);
  await insertSendLog(db, c.recipients.map((recipient) => ({
    message_id: c.messageId, recipient, workspace_id: c.ws.id, agent_id: c.agent.id, at: isoAt(c.now),
  })));
}

export async function releaseSend(db: Db, messageId: string): Promise<void> {
  await deleteSendLog(db, messageId);
}

/**
 * How far in the past a send's `scheduled_at` may be and still be sent at once: a client whose
 * clock runs behind, scheduling "in a few seconds". Further back it is a client bug (a stale or
 * wrongly parsed time), refused by checkSchedulePast. Documented in docs/outbound.md.
 */
export const SCHEDULE_PAST_TOLERANCE_S = 60;

/** A send's `scheduled_at` more than SCHEDULE_PAST_TOLERANCE_S in the past is a 400 naming `param`. */
export function checkSchedulePast(now: number, at: number, param: string): void {
  if (at >= now - SCHEDULE_PAST_TOLERANCE_S * SECOND) return;
  throw Errors.invalidParam(param, `\`${param}\` ${isoAt(at)} is in the past (the server's time is ${isoAt(now)}); give a future time to schedule the send, or leave \`${param}\` out to send it now. A time up to ${SCHEDULE_PAST_TOLERANCE_S} seconds in the past is taken as clock skew and sent at once.`);
}

/**
 * A scheduled time past the horizon (SEND_LIMITS.scheduleHorizonDays from now) is a 400 naming
 * `param`: sends, reschedules and drafts alike.
 */
export function checkScheduleHorizon(now: number, at: number, param: string): void {
  const last = now + SEND_LIMITS.scheduleHorizonDays * DAY;
  if (at > last) {
    throw Errors.invalidParam(param, `\`${param}\` may be at most ${SEND_LIMITS.scheduleHorizonDays} days ahead (no later than ${isoAt(last)}); schedule it closer to the time.`);
  }
}
