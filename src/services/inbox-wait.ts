import type { Event } from '../contract/events.js';
import type { InboxWaitQuery, InboxWaitResult } from '../contract/received.js';
import { attachmentsOf, nextReceived } from '../db/repos/received.js';
import { getWorkspace } from '../db/repos/workspaces.js';
import { Errors } from '../shared/errors.js';
import { hasPrefix } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { capsFor } from '../shared/tiers.js';
import type { AppContext, AuthContext } from './context.js';
import { resolveAgent } from './agents.js';
import { plusAddressDecision, splitPlus } from './plus-addresses.js';
import { toReceivedMessage } from './received.js';

export const MAX_WAIT_SECONDS = 60;
const INBOUND_TYPES = new Set(['message.received', 'reply.received', 'message.received.unauthenticated', 'message.received.over_limit']);

function parseSince(since: string | undefined, now: number): { id?: string; at?: string } {
  if (since === undefined) return { at: isoAt(now) };
  if (hasPrefix(since, 'rcv')) return { id: since };
  const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(since) || /^\d{4}-\d{2}-\d{2}$/.test(since) ? since : since + 'Z';
  const ms = Date.parse(withZone);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || !Number.isFinite(ms)) {
    throw Errors.invalidParam('since', `"${since}" is neither an ISO 8601 time nor a received-message id (rcv_...).`);
  }
  return { at: isoAt(ms) };
}

function planLimit(address: string, tier: string): Error {
  return Errors.planLimitExceeded(`${address} is past the ${tier} plan's limit of ${capsFor(tier).plusAddressesPerDay} distinct plus addresses per 24 hours; its mail is recorded but not kept.`);
}

/**
 * Long-poll for the next message to an agent, or to one of its addresses (the spec's "wait";
 * how a script waits for a verification code). Returns at once when a matching message already
 * arrived after `since`; otherwise listens on the bus for the commit of one, up to `timeout`
 * seconds (real time: this is I/O, not a cap). `signal` ends the wait when the client goes away.
 */
export async function waitForInbound(
  ctx: AppContext, auth: AuthContext, agentRef: string, q: InboxWaitQuery, signal?: AbortSignal,
  /** The request's authentication again (as for the event stream): a key revoked or expired during the wait gets its refusal, not the message. */
  recheck?: () => Promise<unknown>,
): Promise<InboxWaitResult> {
  const agent = await resolveAgent(ctx, auth, agentRef, 'route', null);
  let address: string | null = null;
  if (q.address !== undefined) {
    const p = splitPlus(q.address);
    if (!p || p.base !== agent.email) {
      throw Errors.invalidParam('address', `"${q.address}" is not ${agent.email} or one of its plus addresses.`);
    }
    address = `${p.local}@${p.domain}`;
  }
  const plus = address && splitPlus(address)?.tag !== null ? address : null;
  const ws = await getWorkspace(ctx.db, agent.workspace_id);
  const tier = ws?.tier ?? 'free';
  if (plus && (await plusAddressDecision(ctx.db, agent.workspace_id, tier, plus, ctx.clock.now())) === 'over_limit') {
    throw planLimit(plus, tier);
  }
  const after = parseSince(q.since, ctx.clock.now());
  const timeoutMs = Math.min(q.timeout ?? 30, MAX_WAIT_SECONDS) * 1000;

  const found = async (): Promise<InboxWaitResult | null> => {
    const r = await nextReceived(ctx.db, agent.id, after, address);
    if (!r) return null;
    if (r.over_limit === 'plus_address_limit') throw planLimit(r.recipient, tier);
    return { message: toReceivedMessage(ctx, r, await attachmentsOf(ctx.db, r.id)), timed_out: false };
  };

  return new Promise<InboxWaitResult>((resolve, reject) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let checking: Promise<void> = Promise.resolve();
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ctx.bus.off('event', onEvent);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const check = () => {
      checking = checking.then(async () => {
        if (done) return;
        try {
          const r = await found();
          if (r) {
            if (recheck) await recheck();
            finish(() => resolve(r));
          }
        } catch (err) {
          finish(() => reject(err));
        }
      });
    };
    // Subscribe before the first look so a commit between the two is not missed.
    const onEvent = (e: Event) => {
      if (e.agent_id === agent.id && INBOUND_TYPES.has(e.type)) check();
    };
    const onAbort = () => finish(() => resolve({ message: null, timed_out: false }));
    ctx.bus.on('event', onEvent);
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) onAbort();
    else {
      check();
      // The wait is counted from the first look's answer: with `timeout=0` a message already
      // there is returned, also when the store answers over the network (PostgreSQL) and a
      // zero-delay timer would otherwise fire first.
      void checking.then(() => {
        if (done) return;
        timer = setTimeout(() => finish(() => resolve({ message: null, timed_out: true })), timeoutMs);
        timer.unref();
      });
    }
  });
}

