import type { RoutingPool, SentMessage } from '../contract/messages.js';
import type { AgentRow } from '../db/repos/agents.js';
import { getSentMessageById, listAttachments, type SentMessageRow, type AttachmentRow } from '../db/repos/messages.js';
import { buildMime, withHeaders, type BuildMimeInput } from '../mail/mime-build.js';
import { parseMailbox, type Mailbox } from '../mail/address.js';
import { excerptOf } from '../mail/extract.js';
import { createRelay, RelayError, type RcptRefusal, type Relay, type RelayResult } from '../mail/transport-relay.js';
import type { AppContext } from './context.js';
import { ingestInbound } from './inbound.js';
import { unsubscribeHeaders } from './unsubscribe.js';
import { dkimFor } from './dkim.js';
import { returnPathFor } from './return-path.js';

export { RelayError };

/** Screen scores from here up to the block line route to the `mixed` pool. */
export const MIXED_POOL_FROM = 0.5;

/**
 * The hosted SDK's `routing_pool`, derived from what the screen decided (docs/outbound.md →
 * Routing pool). Content the screen refuses can only leave through the isolated pool an
 * overturned appeal grants (stored as `isolated`), which the clients call `outbound`; a test send
 * carrying a classifier_warning reports the pool it would need. A `pool_hint` can move mail to
 * `mixed` but never into `clean`.
 */
export function routingPool(r: Pick<SentMessageRow, 'pool' | 'classifier_score' | 'classifier_warning'>): RoutingPool {
  if (r.pool === 'isolated' || r.classifier_warning) return 'outbound';
  if (r.pool === 'mixed' || r.classifier_score >= MIXED_POOL_FROM) return 'mixed';
  return 'clean';
}

/** Fields of the send response (spec: Sent message rule); the rest only on retrieve. */
/**
 * The API shape of a sent message: `short` (the send response), `full` (retrieve), or `list` (list
 * items: retrieve's fields without the two bodies, with `body_text_excerpt` — the row's body_text is
 * a prefix there, db/repos/messages.ts listSentMessages).
 */
export function toSentMessage(r: SentMessageRow, set: 'short' | 'full' | 'list', attachments: { id: string; filename: string; content_type: string; size: number }[] = []): SentMessage {
  // A scheduled send being handed over right now still reads as scheduled.
  const status = r.status === 'sending' ? 'scheduled' : r.status;
  const base: SentMessage = {
    id: r.id, object: 'message', agent_id: r.agent_id, thread_id: r.thread_id, from: r.from_address, to: r.to,
    subject: r.subject, classifier_score: r.classifier_score, routing_pool: routingPool(r), status, cost_usd: r.cost_usd, tags: r.tags,
    test_mode: r.test_mode, created_at: r.created_at,
  };
  if (r.scheduled_at) base.scheduled_at = r.scheduled_at;
  if (r.in_reply_to_message_id) base.in_reply_to_message_id = r.in_reply_to_message_id;
  if (r.forwarded_from) base.forwarded_from = r.forwarded_from;
  if (r.classifier_warning) base.classifier_warning = r.classifier_warning;
  if (r.status === 'failed') base.error_message = r.error_message;
  // The send response names what was attached (the caller sees it was taken), not only retrieve.
  if (attachments.length) base.attachments = attachments.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, size: a.size }));
  if (set === 'short') return base;
  return {
    ...base,
    attachments: attachments.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, size: a.size })),
    cc: r.cc, bcc: r.bcc, reply_to: r.reply_to,
    ...(set === 'list' ? { body_text_excerpt: excerptOf(r.body_text) } : { body_text: r.body_text, body_html: r.body_html }),
    transport_message_id: r.transport_message_id, references: r.references, metadata: r.metadata,
    sent_at: r.sent_at, delivered_at: r.delivered_at, canceled_at: r.canceled_at, scheduled_at: r.scheduled_at,
  };
}

function mailboxes(list: string[]): Mailbox[] {
  return list.map((s) => parseMailbox(s)).filter((m): m is Mailbox => m !== null);
}

/** The MIME input for a stored message (the wire copy and the .eml download share it). */
export function mimeInput(row: SentMessageRow, attachments: AttachmentRow[], fromName: string | null): BuildMimeInput {
  return {
    from: { address: row.from_address, name: fromName },
    to: mailboxes(row.to),
    cc: mailboxes(row.cc),
    bcc: mailboxes(row.bcc),
    replyTo: mailboxes(row.reply_to),
    subject: row.subject,
    text: row.body_text,
    html: row.body_html,
    // Not copied (25 MB of the main thread's time and memory): the stored rows' Buffers as they are.
    attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type, content: Buffer.isBuffer(a.content) ? a.content : Buffer.from(a.content) })),
    messageId: row.rfc_message_id,
    inReplyTo: row.in_reply_to,
    references: row.references,
    date: new Date(row.sent_at ?? row.created_at),
    // The resources area adds List-Unsubscribe (RFC 8058) and DKIM for custom domains here.
    extraHeaders: {},
    dkim: null,
  };
}

/**
 * The message as it goes on the wire: no Bcc header (RFC 5322 §3.6.3). A live message carries
 * List-Unsubscribe (RFC 2369, RFC 8058) naming its recipient, so that following it unsubscribes
 * only them: a message to several people goes out as one copy per recipient (`perRecipient`),
 * each with its own one-click link — built once, with the header and the DKIM signature added per
 * copy (copyFor). Test mode and a single recipient: one copy for all (`raw`).
 */
export interface WireMessage {
  perRecipient: boolean;
  /** The one copy (perRecipient false); the unsigned base of the copies otherwise. */
  raw: Buffer;
  copyFor(recipient: string): Promise<Buffer>;
  /**
   * The envelope sender (MAIL FROM) of the copy for `recipient`: a live message's is that copy's
   * signed return path (services/return-path.ts, docs/outbound.md → Return path), where delivery
   * reports about it come back; the From header and the DKIM signature do not change.
   */
  mailFrom(recipient: string): Promise<string>;
}

export async function buildWireMessage(ctx: AppContext, row: SentMessageRow, attachments: AttachmentRow[], agent: AgentRow): Promise<WireMessage> {
  const input = mimeInput(row, attachments, row.from_name ?? agent.display_name);
  input.dkim = await dkimFor(ctx, agent);
  const recipients = row.test_mode ? [] : [...new Set(mailboxes([...row.to, ...row.cc, ...row.bcc]).map((m) => m.address.toLowerCase()))];
  // Test mode never leaves the daemon: no report can come back, so no return path is signed.
  const mailFrom = row.test_mode ? async () => row.from_address : (rcpt: string) => returnPathFor(ctx, row, rcpt);
  if (recipients.length > 1) {
    const dkim = input.dkim;
    const base = await buildMime({ ...input, dkim: null });
    return { perRecipient: true, raw: base, mailFrom, copyFor: async (rcpt) => withHeaders(base, await unsubscribeHeaders(ctx, { agentId: row.agent_id, recipient: rcpt }), dkim) };
  }
  if (recipients.length) input.extraHeaders = { ...input.extraHeaders, ...(await unsubscribeHeaders(ctx, { agentId: row.agent_id, recipient: recipients[0] })) };
  const raw = await buildMime(input);
  // One copy: one recipient (however often the send names it), whose return path it carries.
  return { perRecipient: false, raw, mailFrom: async () => (recipients.length ? mailFrom(recipients[0]) : row.from_address), copyFor: async () => raw };
}

/** One copy per address however often a send names it (To and Cc, or any case): one envelope took it once too. */
const distinct = (addresses: string[]): string[] => [...new Map(addresses.map((a) => [a.toLowerCase(), a])).values()];

/** Copies of a large message built and in flight at once (each is a whole copy in memory). */
const COPIES_IN_FLIGHT = 4;

/**
 * Hand a wire message to the relay: one envelope for all, or one per recipient (WireMessage).
 * Per recipient, the relay's answers are combined as one envelope's would be: the copies go one
 * at a time until the relay takes one, so a relay that is down or refuses the content fails the
 * whole send before anything was handed over (503 / 502, as with one envelope); a recipient
 * refused at RCPT TO is a refusal (a bounce), as in one envelope; every recipient refused is the
 * whole-message refusal. Once one copy is taken the rest go (COPIES_IN_FLIGHT at a time) and any
 * that fails then, for whatever reason, is that recipient's refusal (4xx: a soft bounce), never a
 * retry of the whole send, which would repeat it to those who have it.
 */
export async function relayWire(relay: Relay, envelope: string[], wire: WireMessage): Promise<RelayResult> {
  if (!wire.perRecipient) return relay.send({ from: await wire.mailFrom(envelope[0]), to: envelope }, wire.raw);
  const to = distinct(envelope);
  const refusals: RcptRefusal[] = [];
  const refusal = (rcpt: string, err: RelayError): RcptRefusal => ({
    recipient: rcpt, responseCode: err.responseCode ?? 451, response: err.response ?? `451 4.4.1 ${err.message}`,
  });
  let first: RelayResult | null = null;
  let i = 0;
  for (; i < to.length && !first; i++) {
    try {
      first = await relay.send({ from: await wire.mailFrom(to[i]), to: [to[i]] }, await wire.copyFor(to[i]));
    } catch (err) {
      if (!(err instanceof RelayError) || !err.atRcpt) throw err;
      refusals.push(refusal(to[i], err));
    }
  }
  if (!first) {
    // Every recipient refused at RCPT TO: the whole-message refusal, temporary if any one was.
    const last = refusals[refusals.length - 1];
    const temporary = refusals.some((r) => r.responseCode < 500);
    throw new RelayError(temporary ? 'unavailable' : 'refused', `the relay refused every recipient: ${last.response}`, last.responseCode, last.response, false, true);
  }
  const accepted = [...first.accepted];
  refusals.push(...first.refusals);
  const rest = to.slice(i);
  for (let j = 0; j < rest.length; j += COPIES_IN_FLIGHT) {
    const batch = rest.slice(j, j + COPIES_IN_FLIGHT);
    const results = await Promise.allSettled(batch.map(async (rcpt) => relay.send({ from: await wire.mailFrom(rcpt), to: [rcpt] }, await wire.copyFor(rcpt))));
    results.forEach((r, k) => {
      if (r.status === 'fulfilled') {
        accepted.push(...r.value.accepted);
        refusals.push(...r.value.refusals);
      } else if (r.reason instanceof RelayError) {
        refusals.push(refusal(batch[k], r.reason));
      } else {
        throw r.reason;
      }
    });
  }
  return { relayId: first.relayId, response: first.response, accepted, rejected: refusals.map((r) => r.recipient), refusals };
}

/** The sender's copy for GET /v1/messages/{id}/raw: Bcc kept, as a Sent folder keeps it. */
export async function buildRawDownload(ctx: AppContext, row: SentMessageRow): Promise<Buffer> {
  const attachments = await listAttachments(ctx.db, row.id);
  return buildMime({ ...mimeInput(row, attachments, row.from_name), keepBcc: true });
}

const relays = new WeakMap<AppContext, { url: string; relay: Relay }>();

/** One pooled relay per daemon, created on first use. */
export function relayFor(ctx: AppContext): Relay | null {
  const url = ctx.config.relayUrl;
  if (!url) return null;
  const cached = relays.get(ctx);
  if (cached && cached.url === url) return cached.relay;
  const relay = createRelay(url);
  relays.set(ctx, { url, relay });
  return relay;
}

export function closeRelay(ctx: AppContext): void {
  relays.get(ctx)?.relay.close();
  relays.delete(ctx);
}

/**
 * Local delivery: recipients that are agents of this instance (plus variants included) receive the
 * message through the inbound pipeline, marked as authenticated (it never left this server).
 * Returns true when every local recipient accepted it.
 */
export async function deliverLocal(ctx: AppContext, row: SentMessageRow, wire: WireMessage, rcptTo: string[]): Promise<boolean> {
  if (!wire.perRecipient) return deliverLocalCopy(ctx, row, wire.raw, await wire.mailFrom(rcptTo[0]), rcptTo);
  let all = true;
  for (const rcpt of distinct(rcptTo)) all = (await deliverLocalCopy(ctx, row, await wire.copyFor(rcpt), await wire.mailFrom(rcpt), [rcpt])) && all;
  return all;
}

async function deliverLocalCopy(ctx: AppContext, row: SentMessageRow, raw: Buffer, mailFrom: string, rcptTo: string[]): Promise<boolean> {
  try {
    const res = await ingestInbound(ctx, {
      raw, mailFrom, rcptTo, source: 'local', remoteAddress: null, auth: { spf: true, dkim: true },
      testMode: row.test_mode,
    });
    for (const r of res.refused) ctx.log.warn({ message_id: row.id, rcpt: r.rcpt, reason: r.reason }, 'local delivery refused');
    return res.refused.length === 0;
  } catch (err) {
    ctx.log.error({ err, message_id: row.id }, 'local delivery failed');
    return false;
  }
}

/**
 * The test address answers a test-key send (compat.md: sandbox): a reply from
 * reply@test.<domain> to the agent, In-Reply-To the sent Message-ID, through the inbound pipeline.
 * The scheduler calls it with a context bound to the transaction that marks the reply done
 * (withinTransaction), so the reply is stored, or not, with that mark.
 */
export async function deliverSimulatedReply(ctx: AppContext, messageId: string): Promise<void> {
  const row = await getSentMessageById(ctx.db, messageId);
  if (!row) return;
  const from = `reply@test.${ctx.config.agentDomain}`;
  const subject = /^\s*re\s*:/i.test(row.subject) ? row.subject : `Re: ${row.subject}`;
  const quoted = (row.body_text ?? '').split('\n').map((l) => `> ${l}`).join('\n');
  const raw = await buildMime({
    from: { address: from, name: 'mailagent test address' },
    to: [{ address: row.from_address, name: null }],
    subject,
    text: `Thanks, your test message arrived. This is an automatic reply from the mailagent test address.\n\n${quoted}\n`,
    messageId: `reply-${row.id}@test.${ctx.config.agentDomain}`,
    inReplyTo: row.rfc_message_id,
    references: [...row.references, row.rfc_message_id],
    date: new Date(ctx.clock.now()),
  });
  await ingestInbound(ctx, { raw, mailFrom: from, rcptTo: [row.from_address], source: 'simulator', remoteAddress: null, auth: { spf: true, dkim: true }, testMode: true });
}
