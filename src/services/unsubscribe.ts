import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getAgentById } from '../db/repos/agents.js';
import { getSentMessageById } from '../db/repos/messages.js';
import { getSetting, putSettingIfAbsent } from '../db/repos/suppression.js';
import { Errors } from '../shared/errors.js';
import { isoAt, MINUTE } from '../shared/clock.js';
import { inTransaction, type AppContext } from './context.js';
import { addSuppression, normalizeAddress } from './suppression.js';
import { WindowLogs } from './window-logs.js';

/**
 * One-click unsubscribe (RFC 8058, RFC 2369). Every live send carries a link to a public,
 * unauthenticated route on this daemon; the link is an HMAC-signed token naming the agent and
 * the recipient, so it cannot be forged to unsubscribe someone else. The key is made once per
 * instance and kept in the database (instance_settings).
 */
const SECRET_NAME = 'unsubscribe_hmac_key';
const secrets = new WeakMap<AppContext, Buffer>();

async function secretOf(ctx: AppContext): Promise<Buffer> {
  const cached = secrets.get(ctx);
  if (cached) return cached;
  let value = await getSetting(ctx.db, SECRET_NAME);
  if (!value) {
    await putSettingIfAbsent(ctx.db, SECRET_NAME, randomBytes(32).toString('hex'), isoAt(ctx.clock.now()));
    value = (await getSetting(ctx.db, SECRET_NAME))!;
  }
  const key = Buffer.from(value, 'hex');
  secrets.set(ctx, key);
  return key;
}

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 18);

/**
 * A token of this instance: base64url(payload) + "." + base64url(HMAC-SHA256 with the instance
 * key, 144 bits). Each kind of token starts its payload with its own tag (`1|` unsubscribe, `b1|`
 * billing page), so one kind never verifies as another.
 */
export async function instanceToken(ctx: AppContext, payload: string): Promise<string> {
  return `${Buffer.from(payload).toString('base64url')}.${sign(await secretOf(ctx), payload).toString('base64url')}`;
}

/** The payload of a token instanceToken made, or null (malformed, or not signed by this instance). */
export async function instanceTokenPayload(ctx: AppContext, token: string): Promise<string | null> {
  const m = /^([A-Za-z0-9_-]{1,3000})\.([A-Za-z0-9_-]{24})$/.exec(token);
  if (!m) return null;
  const payload = Buffer.from(m[1], 'base64url').toString('utf8');
  const given = Buffer.from(m[2], 'base64url');
  const want = sign(await secretOf(ctx), payload);
  if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
  return payload;
}

/** Token: base64url(`1|<agent id>|<recipient>`) + "." + base64url(HMAC-SHA256, 144 bits). */
export async function unsubscribeToken(ctx: AppContext, agentId: string, recipient: string): Promise<string> {
  return instanceToken(ctx, `1|${agentId}|${normalizeAddress(recipient)}`);
}

export async function verifyUnsubscribeToken(ctx: AppContext, token: string): Promise<{ agentId: string; recipient: string } | null> {
  if (!/^[A-Za-z0-9_-]{1,800}\./.test(token)) return null;
  const payload = await instanceTokenPayload(ctx, token);
  if (payload === null) return null;
  const parts = payload.split('|');
  if (parts.length !== 3 || parts[0] !== '1') return null;
  return { agentId: parts[1], recipient: parts[2] };
}

export function unsubscribeUrl(ctx: AppContext, token: string): string {
  return `${ctx.config.publicUrl}/v1/unsubscribe/${token}`;
}

/**
 * The List-Unsubscribe headers of one recipient's copy of a live send (RFC 2369, RFC 8058): a
 * link naming that recipient, and one-click. A message to several people goes out as one copy per
 * recipient (services/outbound-delivery.ts buildWireMessage), so no link can unsubscribe anyone
 * but the person it was sent to. (Mail sent before that carried a message link, `msg:<id>`, whose
 * page asks for the reader's address: resolveUnsubscribe still honours those.)
 */
export async function unsubscribeHeaders(ctx: AppContext, m: { agentId: string; recipient: string }): Promise<Record<string, string>> {
  const url = unsubscribeUrl(ctx, await unsubscribeToken(ctx, m.agentId, normalizeAddress(m.recipient)));
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

export interface UnsubscribeTarget {
  agentId: string;
  agentEmail: string;
  workspaceId: string;
  /** The one recipient the link names, or null for a message link (the reader types theirs). */
  recipient: string | null;
  /**
   * A message link: the addresses the message went to, Bcc included. Never shown: the link is in
   * every recipient's copy, so listing them would show each recipient the Bcc addresses.
   */
  choices: string[];
}

const bare = (s: string) => normalizeAddress(/<([^>]*)>\s*$/.exec(s)?.[1] ?? s);

export async function resolveUnsubscribe(ctx: AppContext, token: string): Promise<UnsubscribeTarget> {
  const v = await verifyUnsubscribeToken(ctx, token);
  const agent = v ? await getAgentById(ctx.db, v.agentId) : undefined;
  if (!v || !agent) throw Errors.notFound('unsubscribe link', token.slice(0, 16) + '…');
  const base = { agentId: agent.id, agentEmail: agent.email, workspaceId: agent.workspace_id };
  if (!v.recipient.startsWith('msg:')) return { ...base, recipient: v.recipient, choices: [v.recipient] };
  const msg = await getSentMessageById(ctx.db, v.recipient.slice(4));
  if (!msg || msg.agent_id !== agent.id) throw Errors.notFound('unsubscribe link', token.slice(0, 16) + '…');
  return { ...base, recipient: null, choices: [...new Set([...msg.to, ...msg.cc, ...msg.bcc].map(bare))] };
}

/**
 * Follow a link: that recipient is suppressed for that agent (type `unsubscribe`). Idempotent. On a
 * message link the reader types their address; it is suppressed only if the message went to it,
 * and the answer is the same either way (`matched` stays on the server): a reader cannot learn who
 * else, a Bcc recipient above all, the message went to.
 */
export async function unsubscribe(ctx: AppContext, token: string, clientAddress: string | null, address?: string): Promise<UnsubscribeTarget & { address: string; created: boolean; matched: boolean }> {
  const t = await resolveUnsubscribe(ctx, token);
  let target = t.recipient;
  if (!target) {
    if (!address) throw Errors.missingField('address', 'This message went to several people: type your address.');
    if (address.length > 320) throw Errors.invalidParam('address', 'An address is at most 320 characters.');
    target = normalizeAddress(address);
    if (!t.choices.includes(target)) return { ...t, address: target, created: false, matched: false };
  }
  const { created } = await inTransaction(ctx, (tx) => addSuppression(ctx, tx, {
    workspaceId: t.workspaceId, agentId: t.agentId, address: target!, type: 'unsubscribe', scope: 'agent',
    reason: `unsubscribe link${clientAddress ? ` (from ${clientAddress})` : ''}`,
  }));
  return { ...t, address: target, created, matched: true };
}

// ---- per-address rate limits of the routes that need no key (in memory: a window of one minute)

export const PUBLIC_RATE_LIMIT = 30;
export const SIGN_IN_RATE_LIMIT = 30;
export const PUBLIC_RATE_WINDOW_MS = MINUTE;

/**
 * Each bucket counts on its own: the web inbox's sign-in (`/ui/session`, a sign-in link's button)
 * is not the public pages' (unsubscribe, billing). Shared, anyone on the owner's address — every
 * local program on loopback — could lock the owner out of the inbox with 30 fetches of
 * /v1/public/billing a minute (an outside tester's finding). Guessing keys through sign-in is
 * bounded by this bucket and by the failed-authentication delay (services/auth-failures.ts).
 */
const BUCKETS = {
  public: { limit: PUBLIC_RATE_LIMIT, what: 'the public routes' },
  'sign-in': { limit: SIGN_IN_RATE_LIMIT, what: 'the web inbox sign-in' },
} as const;
export type PublicBucket = keyof typeof BUCKETS;
const hits = new WeakMap<AppContext, WindowLogs>();
/** Client addresses (per bucket) whose request times are kept (docs/security.md → In-memory caches). */
export const PUBLIC_RATE_ADDRESSES_MAX = 10_000;

/** Spec: public routes need no key and are rate-limited per client address. */
export function takePublicSlot(ctx: AppContext, clientAddress: string, bucket: PublicBucket = 'public'): void {
  const { limit, what } = BUCKETS[bucket];
  const now = ctx.clock.now();
  let m = hits.get(ctx);
  if (!m) hits.set(ctx, (m = new WindowLogs(PUBLIC_RATE_WINDOW_MS, PUBLIC_RATE_ADDRESSES_MAX)));
  const log = m.take(`${bucket} ${clientAddress}`, now);
  if (log.length >= limit) {
    const wait = log[0] + PUBLIC_RATE_WINDOW_MS - now;
    throw Errors.limit('rate_limit_exceeded', `Too many requests from ${clientAddress}; at most ${limit} a minute reach ${what}.`,
      { resetsAt: isoAt(now + wait), retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) });
  }
  log.push(now);
}
