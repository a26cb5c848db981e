import type { SentMessage, MessageListQuery } from '../contract/messages.js';
import { SEND_LIMITS } from '../contract/messages.js';
import type { PageOf } from '../contract/common.js';
import { ApiError, type ErrorEnvelope } from '../contract/errors.js';
import { getSentMessage, listSentMessages, transitionStatus, attachmentInfos, type SentMessageRow } from '../db/repos/messages.js';
import { getAgentById } from '../db/repos/agents.js';
import { Errors } from '../shared/errors.js';
import { hasPrefix } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { parseMailbox, addressKey } from '../mail/address.js';
import { inTransaction, type AppContext, type AuthContext, type WriteAnnouncement } from './context.js';
import { resolveAgent } from './agents.js';
import { releaseSend, checkScheduleHorizon } from './limits.js';
import { normalizeSendRequest, performSend, findOriginal, replySubject, emitMessageEvent, sendMessage } from './send.js';
import { toSentMessage, buildRawDownload } from './outbound-delivery.js';
import { pageOf } from '../db/paginate.js';
import { searchFor } from './search.js';

export async function visibleMessage(ctx: AppContext, auth: AuthContext, id: string): Promise<SentMessageRow> {
  const m = hasPrefix(id, 'msg') ? await getSentMessage(ctx.db, auth.workspaceId, id) : undefined;
  // An agent-bound key sees only its own agent's mail (spec: Agent-bound keys → 404).
  if (!m || (auth.agentId && m.agent_id !== auth.agentId)) {
    throw Errors.notFound('message', id);
  }
  return m;
}

export async function getMessage(ctx: AppContext, auth: AuthContext, id: string): Promise<SentMessage> {
  const m = await visibleMessage(ctx, auth, id);
  return toSentMessage(m, 'full', (await attachmentInfos(ctx.db, [m.id])).get(m.id));
}

export async function listMessages(ctx: AppContext, auth: AuthContext, q: MessageListQuery): Promise<PageOf<SentMessage>> {
  let agentId: string | null = auth.agentId;
  if (q.agent_id) agentId = (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id;
  const res = await listSentMessages(ctx.db, auth.workspaceId, { agentId, threadId: q.thread_id ?? null, search: await searchFor(ctx, q.q) }, q);
  const atts = await attachmentInfos(ctx.db, res.rows.map((r) => r.id));
  return pageOf(res, res.rows.map((r) => toSentMessage(r, 'list', atts.get(r.id))));
}

/** Spec: live_mode_required — a test key touching a live scheduled send. */
function assertModeMayTouch(auth: AuthContext, m: SentMessageRow, what: string): void {
  if (auth.mode === 'test' && !m.test_mode) throw Errors.liveModeRequired(`${what} a live scheduled send`);
}

function notScheduled(m: SentMessageRow, what: string): ApiError {
  return Errors.duplicate(m.status === 'canceled'
    ? `Message ${m.id} is canceled; it cannot be ${what}.`
    : `Message ${m.id} has already begun sending (status ${m.status === 'sending' ? 'sending' : m.status}); it can no longer be ${what}.`);
}

export async function rescheduleMessage(ctx: AppContext, auth: AuthContext, id: string, scheduledAt: string): Promise<{ id: string; scheduled_at: string; status: 'scheduled' }> {
  const m = await visibleMessage(ctx, auth, id);
  assertModeMayTouch(auth, m, 'reschedule');
  const t = Date.parse(scheduledAt);
  const now = ctx.clock.now();
  if (!Number.isFinite(t) || t <= now) throw Errors.invalidParam('scheduled_at', '`scheduled_at` must be a time in the future.');
  checkScheduleHorizon(now, t, 'scheduled_at');
  if (m.status !== 'scheduled') throw notScheduled(m, 'rescheduled');
  const at = isoAt(t);
  const ok = await transitionStatus(ctx.db, m.id, 'scheduled', { scheduled_at: at, due_at: at, updated_at: isoAt(now) });
  if (!ok) throw notScheduled({ ...m, status: 'sending' }, 'rescheduled');
  return { id: m.id, scheduled_at: at, status: 'scheduled' };
}

export async function cancelMessage(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; status: 'canceled'; canceled_at: string }> {
  const m = await visibleMessage(ctx, auth, id);
  assertModeMayTouch(auth, m, 'cancel');
  if (m.status !== 'scheduled') throw notScheduled(m, 'canceled');
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    if (!(await transitionStatus(tx.db, m.id, 'scheduled', { status: 'canceled', canceled_at: at, updated_at: at }))) {
      throw notScheduled({ ...m, status: 'sending' }, 'canceled');
    }
    // A canceled send never goes out: it stops counting against the caps.
    await releaseSend(tx.db, m.id);
    await emitMessageEvent(ctx, tx, { ...m, status: 'canceled', canceled_at: at, updated_at: at }, 'message.canceled');
    return { id: m.id, status: 'canceled' as const, canceled_at: at };
  });
}

export async function rawSentMessage(ctx: AppContext, auth: AuthContext, id: string): Promise<Buffer> {
  return buildRawDownload(ctx, await visibleMessage(ctx, auth, id));
}

/**
 * At most this many reply recipients are taken from a received message's Reply-To: a sender names
 * one or two there (a list, a ticket address); more is no reason to mail them all (docs/outbound.md).
 */
export const REPLY_TO_DERIVED_MAX = 10;

/** POST /v1/messages/{id}/reply: In-Reply-To, References, `Re:` (never `Re: Re:`), reply_all. */
export async function replyToMessage(ctx: AppContext, auth: AuthContext, id: string, body: Record<string, unknown>, announced?: WriteAnnouncement): Promise<SentMessage> {
  const orig = await findOriginal(ctx, auth, id);
  const agent = await getAgentById(ctx.db, orig.agentId);
  if (!agent) throw Errors.notFound('message', id);
  const own = new Set([addressKey(agent.email)]);
  const n = normalizeSendRequest(body, { requireTo: false, requireSubject: false });
  if (!n.to.length) {
    // A reply goes back to whoever wrote: the sender of a received message (its Reply-To when set),
    // or the recipients of our own sent message.
    const primary = orig.kind === 'received' ? (orig.replyTo.length ? orig.replyTo : [orig.from]) : orig.to;
    const extra = body.reply_all === true ? [...orig.to, ...orig.cc] : [];
    const seen = new Set<string>(own);
    const pick = (list: string[]) => list.map((s) => parseMailbox(s)).filter((m): m is NonNullable<typeof m> => {
      if (!m || seen.has(addressKey(m.address))) return false;
      seen.add(addressKey(m.address));
      return true;
    });
    // Derived recipients are never cut short in silence (docs/outbound.md → Reply and forward):
    // an incoming message's Reply-To or Cc could otherwise make a routine reply reach dozens of
    // third parties, or drop some of them unsaid. Past the bounds the reply is refused, naming
    // how many there would be, and the caller passes `to` / `cc` itself.
    const derived = pick(primary);
    const bound = orig.kind === 'received' && orig.replyTo.length ? REPLY_TO_DERIVED_MAX : SEND_LIMITS.recipients;
    if (derived.length > bound) {
      const what = orig.kind === 'received' ? (orig.replyTo.length ? 'Reply-To' : 'From') : 'To';
      throw Errors.invalidParam('to', `The reply would go to ${derived.length} addresses from the original's ${what} header; at most ${bound} are taken from it. Pass \`to\` explicitly with the addresses to answer.`);
    }
    n.to = derived;
    if (body.reply_all === true && !body.cc) {
      const copied = [...n.cc, ...pick(extra)];
      if (copied.length > SEND_LIMITS.recipients) {
        throw Errors.invalidParam('cc', `reply_all would copy ${copied.length} addresses (the original's To and Cc); at most ${SEND_LIMITS.recipients} fit in \`cc\`. Pass \`cc\` explicitly, or reply without reply_all.`);
      }
      n.cc = copied;
    }
    if (!n.to.length) throw Errors.missingField('to', 'The original message has no address to reply to; give `to`.');
  }
  if (n.subject === null) n.subject = replySubject(orig.subject);
  const references = [...orig.references, ...(orig.rfcMessageId ? [orig.rfcMessageId] : [])];
  return performSend(ctx, auth, n, {
    source: 'reply', agent, threadId: orig.threadId, inReplyTo: orig.rfcMessageId, references: [...new Set(references)],
    inReplyToMessageId: orig.id, isReply: true, announced,
  });
}

function forwardSubject(subject: string): string {
  return /^\s*(fwd?|fw)\s*:/i.test(subject) ? subject : `Fwd: ${subject}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** POST /v1/messages/{id}/forward: `Fwd:`, the original quoted below, its attachments kept; always sent at once. */
export async function forwardMessage(ctx: AppContext, auth: AuthContext, id: string, body: Record<string, unknown>, announced?: WriteAnnouncement): Promise<SentMessage> {
  const orig = await findOriginal(ctx, auth, id);
  const agent = await getAgentById(ctx.db, orig.agentId);
  if (!agent) throw Errors.notFound('message', id);
  const n = normalizeSendRequest(body, { requireSubject: false, requireBody: false });
  const from = orig.fromName ? `${orig.fromName} <${orig.from}>` : orig.from;
  const header = ['---------- Forwarded message ---------', `From: ${from}`, `Date: ${orig.date}`, `Subject: ${orig.subject}`, `To: ${orig.to.join(', ')}`];
  if (orig.cc.length) header.push(`Cc: ${orig.cc.join(', ')}`);
  const intro = n.text ?? '';
  n.text = `${intro}${intro ? '\n\n' : ''}${header.join('\n')}\n\n${orig.text ?? ''}`;
  if (orig.html || n.html) {
    const quotedHtml = orig.html ?? `<pre>${escapeHtml(orig.text ?? '')}</pre>`;
    n.html = `${n.html ?? (intro ? `<p>${escapeHtml(intro)}</p>` : '')}<div class="forwarded"><p>${header.map(escapeHtml).join('<br>')}</p><blockquote>${quotedHtml}</blockquote></div>`;
  }
  if (n.subject === null) n.subject = forwardSubject(orig.subject);
  const originals = await orig.attachments();
  const total = [...n.attachments, ...originals].reduce((t, a) => t + a.content.length, 0);
  if (total > SEND_LIMITS.attachmentBytes) throw Errors.invalidField('attachments', 'The forwarded attachments and yours total more than 25 MB.');
  return performSend(ctx, auth, n, { source: 'forward', agent, forwardedFrom: orig.id, isReply: true, immediate: true, attachments: originals, announced });
}

/**
 * POST /v1/messages/batch: each item goes through the whole send pipeline; a failed item stays
 * inline as an error envelope and the status stays 201 (spec: Messages → batch).
 */
export async function sendBatch(ctx: AppContext, auth: AuthContext, body: unknown, requestId: string, announced?: WriteAnnouncement): Promise<{ data: (SentMessage | ErrorEnvelope)[]; batch_size: number }> {
  const items = Array.isArray(body) ? body
    : body && typeof body === 'object' && Array.isArray((body as { messages?: unknown }).messages) ? (body as { messages: unknown[] }).messages
      : null;
  if (!items) throw Errors.invalidField('body', 'The batch body must be a JSON array of send requests.');
  if (!items.length) throw Errors.invalidParam('body', 'The batch is empty; give 1 to 100 send requests.');
  if (items.length > SEND_LIMITS.batch) throw Errors.invalidParam('body', `The batch has ${items.length} messages; at most ${SEND_LIMITS.batch} are allowed.`);
  const data: (SentMessage | ErrorEnvelope)[] = [];
  for (const item of items) {
    try {
      data.push(await sendMessage(ctx, auth, item, { source: 'batch', announced }));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      data.push(err.toEnvelope(requestId));
    }
  }
  return { data, batch_size: items.length };
}
