import type { PageOf } from '../contract/common.js';
import { checksFailed } from '../contract/received.js';
import type {
  Classification, ReceivedListQuery, ReceivedMessage, ReceivedMessageSummary, SimulateInbound,
} from '../contract/received.js';
import {
  attachmentContents, attachmentsOf, getReceived, getReceivedRawDownload, listReceived, receivedAttachment, setReceivedRead,
  type AttachmentRow, type ReceivedRow, type ReceivedSummaryRow,
} from '../db/repos/received.js';
import { mailHtmlPage } from '../mail/html-sanitize.js';
import { renderMailHtml } from './html-view.js';
import { isoAt } from '../shared/clock.js';
import { searchFor } from './search.js';
import { Errors } from '../shared/errors.js';
import { hasPrefix } from '../shared/ids.js';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { inboundSettled, type AppContext, type AuthContext } from './context.js';
import { resolveAgent } from './agents.js';
import { ingestInbound } from './inbound.js';
import { splitPlus } from './plus-addresses.js';
import { pageOf } from '../db/paginate.js';
import { extractEntities } from '../classifier/entities.js';

/** As the classifier reads a message for entities: the subject and the top 8 KB of the text. */
const READ_TEXT_CHARS = 8 * 1024;

/**
 * The stored classification, with the one-time codes and links filled in when the classifier did
 * not look for entities (the agent's `classify_inbound` off: intent `unclassified`, entities `{}`).
 * `wait --extract code` and `mails.extract` read them here, so they work whatever the agent's
 * setting; they are found from the stored subject and text (and the HTML's links when the full
 * message is read), as the classifier would have found them. Nothing else is added: intent stays
 * `unclassified` and the other entity kinds stay absent.
 */
function classificationOf(r: ReceivedSummaryRow & { text?: string | null; html?: string | null }, text: string | null): Classification | null {
  const c = (r.classification as Classification | null) ?? null;
  if (!c || c.intent !== 'unclassified' || r.over_limit) return c;
  if (c.entities && Object.keys(c.entities).length > 0) return c;
  const e = extractEntities((r.subject ?? '') + '\n' + (text ?? '').slice(0, READ_TEXT_CHARS), null, new Date(Date.parse(r.received_at) || 0), r.html ?? null);
  const found: Record<string, unknown> = {};
  if (e.codes?.length) found.codes = e.codes;
  if (e.urls?.length) found.urls = e.urls;
  return Object.keys(found).length ? { ...c, entities: found as Classification['entities'] } : c;
}

/** ReceivedMessageSummary.authentication_failed: an unauthenticated event, or a check failed and none passed. */
export function authenticationFailed(r: Pick<ReceivedSummaryRow, 'event_type' | 'spf_pass' | 'dkim_pass'>): boolean {
  if (r.event_type === 'message.received.unauthenticated') return true;
  return checksFailed(r.spf_pass, r.dkim_pass);
}

export function toReceivedSummary(r: ReceivedSummaryRow): ReceivedMessageSummary {
  return {
    id: r.id, object: 'received_message', agent_id: r.agent_id, thread_id: r.thread_id,
    from: { address: r.from_address, name: r.from_name }, to: r.recipient, to_all: r.to, cc: r.cc, delivered_to: r.recipient,
    plus_address: r.plus_address, subject: r.subject, extracted_text: r.extracted_text ?? '', body_text_excerpt: r.excerpt,
    message_id: r.rfc_message_id, in_reply_to_message_id: r.answers_message_id, spf_pass: r.spf_pass, dkim_pass: r.dkim_pass,
    dmarc: r.dmarc, ...(r.trusted_network ? { trusted_network: r.trusted_network } : {}),
    authentication_failed: authenticationFailed(r), classification: classificationOf(r, (r as Partial<ReceivedRow>).text ?? r.extracted_text), quarantined: r.quarantined,
    test_mode: r.test_mode, over_limit: r.over_limit, source: r.source, size: r.size, received_at: r.received_at,
    extraction_truncated: r.extraction_truncated,
    read: r.read_at !== null,
  };
}

export function rawUrl(ctx: AppContext, id: string): string {
  return `${ctx.config.publicUrl}/v1/messages/${id}/raw`;
}

export function toReceivedMessage(ctx: AppContext, r: ReceivedRow, attachments: AttachmentRow[]): ReceivedMessage {
  return {
    ...toReceivedSummary(r),
    body_text: r.text, body_html: r.html,
    headers: r.headers.map(([name, value]) => ({ name, value })),
    in_reply_to: r.in_reply_to, references: r.references,
    attachments: attachments.map((a) => ({
      id: a.id, filename: a.filename, content_type: a.content_type, content_id: a.content_id, disposition: a.disposition,
      size: a.size, sha256: a.sha256,
    })),
    raw_url: r.over_limit ? null : rawUrl(ctx, r.id),
  };
}

/** Agent-bound keys see only their agent's mail; anything else is 404 (spec: Agent-bound keys). */
export async function loadVisible(ctx: AppContext, auth: AuthContext, id: string): Promise<ReceivedRow> {
  const load = () => (hasPrefix(id, 'rcv') ? getReceived(ctx.db, auth.workspaceId, id) : undefined);
  // Not there yet: it may be SMTP mail acknowledged a moment ago and still being processed.
  let r = await load();
  if (!r && hasPrefix(id, 'rcv') && ctx.inboundSettled) {
    await inboundSettled(ctx);
    r = await load();
  }
  if (!r || (auth.agentId && r.agent_id !== auth.agentId)) throw Errors.notFound('received message', id);
  return r;
}

export async function listReceivedPage(ctx: AppContext, auth: AuthContext, q: ReceivedListQuery): Promise<PageOf<ReceivedMessageSummary>> {
  await inboundSettled(ctx);
  let agentId: string | null = auth.agentId;
  if (q.agent_id) agentId = (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id;
  const res = await listReceived(ctx.db, auth.workspaceId, { agentId, threadId: q.thread_id ?? null, search: await searchFor(ctx, q.q) }, q);
  return pageOf(res, res.rows.map(toReceivedSummary));
}

export async function getReceivedMessage(ctx: AppContext, auth: AuthContext, id: string): Promise<ReceivedMessage> {
  const r = await loadVisible(ctx, auth, id);
  return toReceivedMessage(ctx, r, await attachmentsOf(ctx.db, r.id));
}

/** POST /v1/messages/received/{id}/read: read state is the reader's bookkeeping; the mail itself is unchanged. */
export async function markReceivedRead(ctx: AppContext, auth: AuthContext, id: string, read: boolean) {
  const r = await loadVisible(ctx, auth, id);
  await setReceivedRead(ctx.db, r.id, read, isoAt(ctx.clock.now()));
  return { id: r.id, object: 'received_message' as const, read };
}

/** Inline images of a message turned into data: URIs are capped in total (the page stays small). */
const INLINE_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * GET /v1/messages/received/{id}/html: the HTML body sanitised, as a page with its own CSP. The
 * sanitising runs off the main thread under the budget (services/html-view.ts); HTML it could not
 * finish in time is replaced by a note, never shown unsanitised.
 */
export async function receivedHtmlPage(ctx: AppContext, auth: AuthContext, id: string, remoteImages: boolean): Promise<{ html: string; csp: string; blockedImages: number; rendered: boolean }> {
  const r = await loadVisible(ctx, auth, id);
  if (!r.html) throw Errors.notFound('HTML body of received message', id);
  const body = await renderMailHtml(ctx, `${r.id}|${remoteImages ? 'remote' : 'local'}`, r.html, remoteImages, () => inlineImages(ctx, r.id));
  if ('cut' in body) {
    const note = '<p class="ma-note">This message\'s HTML is too complex to render safely in the time allowed, so it is not shown. '
      + 'Read its text body (the Text tab, <code>body_text</code>) or download the raw source (<code>GET /v1/messages/'
      + `${r.id}/raw</code>).</p>`;
    return { ...mailHtmlPage({ html: note, blockedImages: 0, truncated: false }, remoteImages), blockedImages: 0, rendered: false };
  }
  return { ...mailHtmlPage(body, remoteImages), blockedImages: body.blockedImages, rendered: true };
}

/** The message's cid: images as data: URIs, up to INLINE_IMAGE_BYTES in all. */
async function inlineImages(ctx: AppContext, messageId: string): Promise<Map<string, string>> {
  const inline = new Map<string, string>();
  let budget = INLINE_IMAGE_BYTES;
  // Only the images that fit are read (a large attachment's bytes are never loaded for the page).
  for (const info of await attachmentsOf(ctx.db, messageId)) {
    if (!info.content_id || !/^image\/(png|gif|jpeg|webp)$/i.test(info.content_type) || info.size > budget) continue;
    const a = await receivedAttachment(ctx.db, messageId, info.id);
    if (!a) continue;
    budget -= a.size;
    inline.set(info.content_id.replace(/^<|>$/g, ''), `data:${a.content_type.toLowerCase()};base64,${Buffer.from(a.content).toString('base64')}`);
  }
  return inline;
}

/**
 * The original bytes exactly as received (GET /v1/messages/{rcv_id}/raw): a Buffer, or for a
 * large message a stream of its stored pieces (never joined into one buffer). Over-limit records
 * keep none → 404.
 */
export async function getReceivedRaw(ctx: AppContext, auth: AuthContext, id: string): Promise<{ filename: string; raw: Buffer | Readable }> {
  const r = await loadVisible(ctx, auth, id);
  const raw = await getReceivedRawDownload(ctx.db, auth.workspaceId, r.id);
  if (!raw) throw Errors.notFound('raw message', id);
  return { filename: `${id}.eml`, raw };
}

export interface ReceivedForReply {
  id: string;
  workspace_id: string;
  agent_id: string;
  thread_id: string | null;
  test_mode: boolean;
  from: { address: string; name: string | null };
  /** Reply-To when the sender set one (where a reply goes), else null. */
  reply_to: string | null;
  to: string[];
  cc: string[];
  delivered_to: string;
  subject: string;
  /** Bare RFC Message-ID (no angle brackets), or null when the message had none. */
  rfc_message_id: string | null;
  references: string[];
  text: string | null;
  html: string | null;
  attachments: { filename: string | null; content_type: string; size: number; sha256: string; content: Buffer }[];
  received_at: string;
}

/** What reply / forward of a received message need (POST /v1/messages/{rcv_id}/reply|forward). */
export async function getReceivedForReply(ctx: AppContext, auth: AuthContext, id: string): Promise<ReceivedForReply> {
  const r = await loadVisible(ctx, auth, id);
  if (r.over_limit) throw Errors.notFound('received message', id);
  const replyTo = r.headers.find(([k]) => k.toLowerCase() === 'reply-to')?.[1] ?? null;
  const replyAddr = replyTo ? /<?([^\s<>@,]+@[^\s<>,]+?)>?\s*$/.exec(replyTo.split(',')[0])?.[1]?.toLowerCase() ?? null : null;
  const atts = await attachmentContents(ctx.db, r.id);
  return {
    id: r.id, workspace_id: r.workspace_id, agent_id: r.agent_id, thread_id: r.thread_id, test_mode: r.test_mode,
    from: { address: r.from_address, name: r.from_name }, reply_to: replyAddr, to: r.to, cc: r.cc, delivered_to: r.recipient,
    subject: r.subject, rfc_message_id: r.rfc_message_id, references: r.references, text: r.text, html: r.html,
    attachments: atts.map((a) => ({ filename: a.filename, content_type: a.content_type, size: a.size, sha256: a.sha256, content: Buffer.from(a.content) })),
    received_at: r.received_at,
  };
}

// ---- the test simulator (spec: POST /v1/test/inbound)

function encodeWord(s: string): string {
  // RFC 2047 encoded-word only when needed; CR/LF never reach a header.
  const clean = s.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(clean) ? clean : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

/**
 * Base64 in lines of 76 (RFC 2045). Cut with slice, not `.match(/.{1,76}/g)`: the regex walk over a
 * 1 MB body_html's 1.3 MB of base64 cost the main thread several ms per simulated message.
 */
function b64(s: string): string {
  const all = Buffer.from(s, 'utf8').toString('base64');
  const lines: string[] = [];
  for (let at = 0; at < all.length; at += 76) lines.push(all.slice(at, at + 76));
  return lines.join('\r\n');
}

function rfc2822Date(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

export function buildSimulatedRaw(m: {
  from: string; fromName: string | null; to: string; subject: string; text: string; html: string | null;
  messageId: string; inReplyTo: string | null; references: string[]; at: number; spf?: string; dkim?: string;
}): Buffer {
  const h: string[] = [];
  if (m.spf || m.dkim) h.push(`Authentication-Results: simulator; spf=${m.spf ?? 'none'}; dkim=${m.dkim ?? 'none'}`);
  h.push(`From: ${m.fromName ? `"${encodeWord(m.fromName).replace(/"/g, '')}" ` : ''}<${m.from}>`);
  h.push(`To: <${m.to}>`, `Subject: ${encodeWord(m.subject)}`, `Date: ${rfc2822Date(m.at)}`, `Message-ID: <${m.messageId}>`);
  if (m.inReplyTo) h.push(`In-Reply-To: <${m.inReplyTo}>`);
  if (m.references.length) h.push(`References: ${m.references.map((r) => `<${r}>`).join(' ')}`);
  h.push('MIME-Version: 1.0');
  if (!m.html) {
    h.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64');
    return Buffer.from(`${h.join('\r\n')}\r\n\r\n${b64(m.text)}\r\n`, 'utf8');
  }
  const boundary = `sim-${randomBytes(8).toString('hex')}`;
  h.push(`Content-Type: multipart/alternative; boundary="${boundary}"`);
  const part = (type: string, body: string) =>
    `--${boundary}\r\nContent-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(body)}\r\n`;
  return Buffer.from(`${h.join('\r\n')}\r\n\r\n${part('text/plain', m.text)}${part('text/html', m.html)}--${boundary}--\r\n`, 'utf8');
}

/** Characters no local part of an address may hold: C0, space, DEL, C1, bidi embedding/override/isolate controls. */
const LOCAL_PART_REFUSED = /[\u0000-\u0020\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export async function simulateInbound(ctx: AppContext, auth: AuthContext, body: SimulateInbound) {
  if (auth.mode !== 'test') throw Errors.testModeRequired('POST /v1/test/inbound');
  const agent = await resolveAgent(ctx, auth, body.agent, 'filter', 'agent');
  if (agent.status === 'archived') throw Errors.agentArchived(agent.id, 422);
  let to = agent.email;
  if (body.to) {
    const p = splitPlus(body.to);
    if (!p || p.base !== agent.email) throw Errors.invalidParam('to', `"${body.to}" is not ${agent.email} or one of its plus addresses (${agent.name}+tag@${agent.domain}).`);
    // A local part is atext (RFC 5321 §4.1.2; RFC 6531 adds non-ASCII letters, not controls): no
    // control, space or bidi-control character, which SMTP would refuse and which would reorder
    // how the address reads in a client ("agent+\u202egnp.exe").
    if (p.tag !== null && LOCAL_PART_REFUSED.test(p.tag)) {
      throw Errors.invalidParam('to', `The plus tag of "${JSON.stringify(body.to).slice(1, -1)}" holds a control, space or bidi-control character; write the tag with letters, digits or punctuation such as . _ - (e.g. ${agent.name}+orders@${agent.domain}).`);
    }
    to = `${p.local}@${p.domain}`;
  }
  let inReplyTo: string | null = null;
  let references: string[] = [];
  if (body.in_reply_to_message_id) {
    const ref = await ctx.db.selectFrom('message_refs').select(['rfc_message_id', 'agent_id'])
      .where('workspace_id', '=', auth.workspaceId).where('message_id', '=', body.in_reply_to_message_id).executeTakeFirst();
    // A bound key sees only its own agent's mail: another agent's id reads as unknown.
    if (!ref || (auth.agentId && ref.agent_id !== auth.agentId)) {
      throw Errors.invalidParam('in_reply_to_message_id', `No message ${body.in_reply_to_message_id} of this workspace is known to reply to.`);
    }
    // Mail answering another agent's message reaches that agent, not this one (its thread is there).
    if (ref.agent_id !== agent.id) {
      throw Errors.invalidParam('in_reply_to_message_id', `Message ${body.in_reply_to_message_id} belongs to another agent (${ref.agent_id}), not to ${agent.name}: simulate the reply with "agent": "${ref.agent_id}", or name a message of ${agent.name}.`);
    }
    inReplyTo = ref.rfc_message_id;
    references = [ref.rfc_message_id];
  }
  const now = ctx.clock.now();
  const raw = buildSimulatedRaw({
    from: body.from.toLowerCase(), fromName: body.from_name ?? null, to, subject: body.subject ?? '', text: body.body_text ?? '',
    html: body.body_html ?? null, messageId: `sim-${randomBytes(12).toString('hex')}@test.${ctx.config.agentDomain}`,
    inReplyTo, references, at: now, spf: body.spf, dkim: body.dkim,
  });
  const verdict = (v: 'pass' | 'fail' | undefined) => (v === undefined ? null : v === 'pass');
  const res = await ingestInbound(ctx, {
    raw, mailFrom: body.from, rcptTo: [to], source: 'simulator', testMode: true,
    auth: { spf: verdict(body.spf), dkim: verdict(body.dkim) },
  });
  const s = res.stored?.[0];
  if (!s || !s.eventId || !s.threadId || !s.classification) throw Errors.internal();
  return {
    message_id: s.messageId, thread_id: s.threadId, event_id: s.eventId, event_type: s.eventType!,
    quarantined: s.quarantined, test_mode: true, classification: s.classification as unknown as Classification,
  };
}
