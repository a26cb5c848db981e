import { SEND_LIMITS, SendRequest, type SentMessage, type ClassifierWarning } from '../contract/messages.js';
import { checkBody } from '../shared/schema-check.js';
import { workOf } from './message-work.js';
import type { AgentRow } from '../db/repos/agents.js';
import {
  insertSentMessage, updateSentMessage, insertSimulatedReply, getSentMessage, getSentMessageById, listAttachments,
  writeSentAttachmentBlobs, deleteSentBlobs, sentAttachmentBlobId, type SentMessageRow, type AttachmentRow,
} from '../db/repos/messages.js';
import { inTransactionChain } from '../db/open.js';
import { isLarge } from '../db/repos/blobs.js';
import { getReceived } from '../db/repos/received.js';
import type { WorkspaceRow } from '../db/repos/workspaces.js';
import { parseMailbox, domainOf, localPartOf, domainMatches, addressKey, type Mailbox } from '../mail/address.js';
import { ApiError } from '../contract/errors.js';
import { Errors } from '../shared/errors.js';
import { newId, hasPrefix } from '../shared/ids.js';
import { isoAt, SECOND, MINUTE } from '../shared/clock.js';
import { groupedTransaction, inTransaction, type AppContext, type AuthContext, type Tx, type WriteAnnouncement } from './context.js';
import { resolveAgent, requireWorkspace, insertNewAgent, normalizeAgentName, liveAgentsOf, checkDisplayName } from './agents.js';
import { hasScope } from './auth.js';
import { emitEvent, type EmitInput } from './events.js';
import { assignThread, bareMessageId } from './threads.js';
import { findSuppression } from './suppression.js';
import { isLocalRecipient } from './inbound.js';
import { reserveSend, releaseSend, checkScheduleHorizon, checkSchedulePast } from './limits.js';
import { contentHash, isContentCleared } from './appeals.js';
import { ATTACHMENT_TEXT_SCREENED } from '../classifier/quarantine.js';
import { liftedAttachment } from '../shared/lifted-attachments.js';
import { buildWireMessage, deliverLocal, relayFor, relayWire, toSentMessage, RelayError } from './outbound-delivery.js';
import { emitDelivered, recordRcptRefusals, recordRelayDeferral } from './feedback.js';
import type { RcptRefusal } from '../mail/transport-relay.js';

/** A send request after validation: every address is one mailbox, every limit checked. */
export interface NormalizedSend {
  agentRef: string | null;
  fromRef: { name: string; display: string | null } | null;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string | null;
  text: string | null;
  html: string | null;
  attachments: { filename: string; contentType: string; content: Buffer }[];
  tags: { name: string; value: string }[];
  metadata: Record<string, string>;
  scheduledAt: number | null;
  /** The field that gave scheduledAt when not `scheduled_at` (one of its misnamings): errors name it. */
  scheduledParam?: string;
  references: string[];
  inReplyToMessageId: string | null;
  poolHint: 'clean' | 'mixed' | null;
}

/**
 * The address fields after the schema (a string or an array of at most 50 strings): each item
 * must be one mailbox (nodemailer would read "a@x, b@y" as two: DESIGN.md known traps);
 * duplicates are dropped.
 */
function addressList(v: string | string[] | undefined, param: string): Mailbox[] {
  if (v === undefined) return [];
  const items = typeof v === 'string' ? [v] : v;
  const seen = new Set<string>();
  const out: Mailbox[] = [];
  items.forEach((item, i) => {
    const p = typeof v === 'string' ? param : `${param}[${i}]`;
    const m = parseMailbox(item);
    if (!m) {
      throw Errors.invalidParam(p, `${JSON.stringify(item.slice(0, 200))} is not one valid email address (give one address per item, e.g. "bob@example.com" or "Bob <bob@example.com>").`);
    }
    const k = addressKey(m.address);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(m);
    }
  });
  return out;
}

function guessType(filename: string): string {
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = {
    txt: 'text/plain', html: 'text/html', htm: 'text/html', csv: 'text/csv', pdf: 'application/pdf', json: 'application/json',
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', zip: 'application/zip', ics: 'text/calendar',
    eml: 'message/rfc822', xml: 'application/xml', doc: 'application/msword', md: 'text/markdown',
  };
  return types[ext] ?? 'application/octet-stream';
}

/** The 25 MB cap on a send's decoded attachments (drafts add the sizes of their stored blobs). */
export function checkAttachmentTotal(total: number): void {
  if (total > SEND_LIMITS.attachmentBytes) {
    throw Errors.invalidField('attachments', `The attachments total ${total} bytes decoded; at most ${SEND_LIMITS.attachmentBytes} (25 MB) are allowed.`);
  }
}

/**
 * Validate a send request (spec: Messages → send request; Limits → Single-message payload;
 * compat.md extras). Its shape — types, lengths, counts, patterns, enums — is the contract's
 * SendRequest schema, checked with the same validator and messages as the HTTP layer
 * (shared/schema-check.ts; a body fastify already checked is not walked again). Only what a
 * schema cannot say is checked here: one mailbox per address, `from` as a handle or an address,
 * which fields the caller requires (`to`/`cc`/`bcc`, `subject`, a body), one of
 * `content_base64`/`content` per attachment, the decoded attachment total. Unknown fields are
 * ignored; each refusal names its field.
 */
export function normalizeSendRequest(body: unknown, opts: { requireTo?: boolean; requireSubject?: boolean; requireBody?: boolean } = {}): NormalizedSend {
  checkBody(SendRequest, body);
  const b = body as SendRequest;
  const agentRef = b.agent === undefined ? null : b.agent.trim();
  let fromRef: NormalizedSend['fromRef'] = null;
  if (b.from !== undefined) {
    const raw = b.from.trim();
    const m = raw.includes('@') ? parseMailbox(raw) : null;
    if (raw.includes('@') && !m) throw Errors.invalidParam('from', `${JSON.stringify(raw)} is not an agent handle or one address.`);
    const name = m ? localPartOf(m.address) : raw;
    fromRef = { name: normalizeAgentName(name, 'from'), display: m?.name ?? null };
    checkDisplayName(fromRef.display, 'from');
  }
  const to = addressList(b.to, 'to');
  const cc = addressList(b.cc, 'cc');
  const bcc = addressList(b.bcc, 'bcc');
  const replyTo = addressList(b.reply_to, 'reply_to');
  if (opts.requireTo !== false && !to.length && !cc.length && !bcc.length) {
    if (b.to === undefined) throw Errors.missingField('to', 'Give at least one recipient in `to`.');
    throw Errors.invalidParam('to', '`to` must name at least one recipient.');
  }
  const subject = b.subject ?? null;
  if (subject === null && opts.requireSubject !== false) throw Errors.missingField('subject');

  // Aliases (compat.md): the first one present wins.
  const text = b.body_text ?? b.text ?? b.body ?? null;
  const html = b.body_html ?? b.html ?? null;
  if (opts.requireBody !== false && text === null && html === null) {
    throw Errors.missingField('body_text', 'Give a body: `body_text`, `body_html` or both.');
  }

  const attachments: NormalizedSend['attachments'] = [];
  let total = 0;
  (b.attachments ?? []).forEach((a, i) => {
    const field = a.content_base64 !== undefined ? 'content_base64' : 'content';
    const b64 = a[field];
    if (b64 === undefined) throw Errors.missingField(`attachments[${i}].content_base64`);
    // A large one was decoded off the main thread (shared/lifted-attachments.ts).
    const content = liftedAttachment(a, field) ?? Buffer.from(b64, 'base64');
    total += content.length;
    const contentType = a.content_type !== undefined ? a.content_type.trim().toLowerCase() : guessType(a.filename);
    attachments.push({ filename: a.filename, contentType, content });
  });
  checkAttachmentTotal(total);

  // The schema's date-time format guarantees a time zone; Date.parse reads fewer spellings of it.
  const when = scheduleField(b);
  const scheduledAt = when === null ? null : Date.parse(when.value);
  if (scheduledAt !== null && !Number.isFinite(scheduledAt)) {
    throw Errors.invalidParam(when!.name, 'The field `scheduled_at` must be an ISO 8601 timestamp with a time zone, e.g. 2026-05-01T09:00:00Z.');
  }
  const references = (b.references ?? []).map((r) => bareMessageId(r.trim()));
  const inReplyToMessageId = b.in_reply_to_message_id === undefined || b.in_reply_to_message_id === null ? null : b.in_reply_to_message_id.trim();
  return {
    agentRef, fromRef, to, cc, bcc, replyTo, subject, text, html, attachments,
    tags: (b.tags ?? []).map((t) => ({ name: t.name, value: t.value })), metadata: { ...b.metadata },
    scheduledAt, ...(when && when.name !== 'scheduled_at' ? { scheduledParam: when.name } : {}),
    references, inReplyToMessageId, poolHint: b.pool_hint ?? null,
  };
}

/** The misnamings of `scheduled_at` a send takes as it (contract/messages.ts SendRequest). */
const SCHEDULE_ALIASES = ['send_at', 'scheduledAt', 'sendAt'] as const;

/**
 * The requested send time: `scheduled_at`, else one of its misnamings. Two of them naming
 * different times is refused (which one was meant?); null in all = at once.
 */
function scheduleField(b: SendRequest): { name: string; value: string } | null {
  let name = 'scheduled_at';
  let value = b.scheduled_at ?? null;
  for (const alias of SCHEDULE_ALIASES) {
    const v = b[alias];
    if (v === undefined || v === null) continue;
    if (value !== null && Date.parse(v) !== Date.parse(value)) {
      throw Errors.invalidParam(alias, `\`${alias}\` and \`${name}\` name different times; give the send time once, as \`scheduled_at\`.`);
    }
    if (value === null) {
      name = alias;
      value = v;
    }
  }
  return value === null ? null : { name, value };
}

/** What reply and forward add to a send (they know the agent, the thread and the headers). */
export interface SendExtras {
  source?: 'api' | 'draft' | 'batch' | 'reply' | 'forward';
  agent?: AgentRow;
  threadId?: string | null;
  inReplyTo?: string | null;
  references?: string[];
  inReplyToMessageId?: string | null;
  forwardedFrom?: string | null;
  isReply?: boolean;
  /** Forwards always go at once (spec: Messages → forward). */
  immediate?: boolean;
  /** Extra attachments already decoded (forwarded originals). */
  attachments?: NormalizedSend['attachments'];
  /** The request's announcement to the group commit (services/context.ts announceWrite). */
  announced?: WriteAnnouncement;
}

export interface SendOptions {
  idempotencyKey?: string | null;
  source?: 'api' | 'draft' | 'batch';
  /** The request's announcement to the group commit (services/context.ts announceWrite). */
  announced?: WriteAnnouncement;
}

/**
 * The reusable send entry point (API, batch items, drafts): validation, agent resolution,
 * recipient rules, the cold-email screen, caps, transports and events. Idempotency and the
 * burst limit belong to the HTTP request and are applied around it by the send routes.
 */
export async function sendMessage(ctx: AppContext, auth: AuthContext, request: unknown, opts: SendOptions = {}): Promise<SentMessage> {
  const n = normalizeSendRequest(request);
  return performSend(ctx, auth, n, { source: opts.source ?? 'api', announced: opts.announced });
}

interface ResolvedAgent {
  agent: AgentRow;
  /** A send through `from` naming a new agent creates it (needs manage). */
  create: string | null;
}

async function resolveSendAgent(ctx: AppContext, auth: AuthContext, ws: WorkspaceRow, n: NormalizedSend): Promise<ResolvedAgent> {
  if (n.agentRef) return { agent: await resolveAgent(ctx, auth, n.agentRef, 'send', 'agent'), create: null };
  if (n.fromRef) {
    try {
      return { agent: await resolveAgent(ctx, auth, n.fromRef.name, 'send', 'from'), create: null };
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'agent_not_found' || auth.agentId) throw err;
      if (!hasScope(auth, 'manage')) {
        throw Errors.insufficientScope(`No agent "${n.fromRef.name}" exists; a send that would create it needs the \`manage\` scope.`);
      }
      // The new agent would be an address live keys send from: a test key (the CLI's and MCP's
      // default) never creates one through a send, where a typo in `from` would do it silently.
      if (auth.mode === 'test') {
        throw Errors.agentNotFound(n.fromRef.name, 'from', ' A test key\'s send does not create agents: create it with POST /v1/agents (`mailagent agents create`), or fix the name.');
      }
      // The agent is inserted in the send's own transaction; until then it has no id, no
      // allowlist or blocklist and no suppressions of its own (checkRecipients skips those).
      const pending = { id: '', name: n.fromRef.name, allowlist_domains: [], blocklist_domains: [] } as unknown as AgentRow;
      return { agent: pending, create: n.fromRef.name };
    }
  }
  if (auth.agentId) return { agent: await resolveAgent(ctx, auth, auth.agentId, 'send', 'agent'), create: null };
  const live = await liveAgentsOf(ctx, ws.id, 2);
  if (live.length === 1) return { agent: live[0], create: null };
  throw Errors.missingField('agent', live.length
    ? 'This workspace has more than one live agent: name the sending agent in `agent` (name, address or id).'
    : 'This workspace has no live agent; create one with POST /v1/agents.');
}

export function testDomain(ctx: AppContext): string {
  return `test.${ctx.config.agentDomain}`;
}
export function testAddress(ctx: AppContext): string {
  return `reply@${testDomain(ctx)}`;
}

interface Recipient {
  mailbox: Mailbox;
  param: string;
  kind: 'local' | 'external' | 'test';
}

/** Pass the recipient rules and sort recipients by transport. */
/** The sender's own text attachments (not forwarded originals), as the cold screen reads them beside the body: at most its share of each. */
function attachmentTextOf(attachments: NormalizedSend['attachments']): string | null {
  let out = '';
  for (const a of attachments) {
    if (out.length >= ATTACHMENT_TEXT_SCREENED) break;
    if (!/^text\/(plain|markdown|csv|x-markdown)\b/i.test(a.contentType)) continue;
    out += (out ? '\n' : '') + a.content.subarray(0, ATTACHMENT_TEXT_SCREENED * 4).toString('utf8').slice(0, ATTACHMENT_TEXT_SCREENED - out.length);
  }
  return out || null;
}

async function checkRecipients(ctx: AppContext, auth: AuthContext, ws: WorkspaceRow, agent: AgentRow, n: NormalizedSend): Promise<Recipient[]> {
  const all: Recipient[] = [];
  for (const [field, list] of [['to', n.to], ['cc', n.cc], ['bcc', n.bcc]] as const) {
    list.forEach((m, i) => all.push({ mailbox: m, param: `${field}[${i}]`, kind: 'external' }));
  }
  const tDomain = testDomain(ctx);
  const tAddress = testAddress(ctx);
  for (const r of all) {
    const domain = domainOf(r.mailbox.address);
    if (domain === tDomain) {
      if (r.mailbox.address.toLowerCase() !== tAddress) throw Errors.unknownTestAddress(r.mailbox.address, tAddress, r.param);
      if (auth.mode === 'live') throw Errors.testAddressNeedsTestKey(r.mailbox.address, r.param);
      r.kind = 'test';
      continue;
    }
    if (agent.blocklist_domains?.length && domainMatches(domain, agent.blocklist_domains)) {
      throw Errors.recipientNotAllowed(r.mailbox.address, r.param, `${domain} is on agent ${agent.name}'s blocklist_domains`);
    }
    if (agent.allowlist_domains?.length && !domainMatches(domain, agent.allowlist_domains)) {
      throw Errors.recipientNotAllowed(r.mailbox.address, r.param, `agent ${agent.name} may only send to its allowlist_domains (${agent.allowlist_domains.join(', ')})`);
    }
    if (auth.mode === 'live') {
      // Spec: test-mode sends skip suppression refusals.
      if (agent.id && (await findSuppression(ctx, ws.id, agent.id, r.mailbox.address))) {
        throw Errors.recipientSuppressed(r.mailbox.address, r.param);
      }
      if (await isLocalRecipient(ctx, r.mailbox.address)) r.kind = 'local';
    }
  }
  return all;
}

/** Retry-After (s) on 503 upstream_unavailable: relay refused the connection / relay deferred the message. */
export const RELAY_REFUSED_RETRY_S = 5;
export const RELAY_DEFERRED_RETRY_S = 30;

const NO_RELAY = 'No SMTP relay is configured, so mail to addresses outside this server cannot be sent. Start the daemon with `mailagent serve --relay smtp://user:pass@host:port` (or smtps://, or MAILAGENT_RELAY) — or use a test key (mk_test_...), which sends nothing.';

function replySubject(subject: string): string {
  return /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`;
}
export { replySubject };

/** The send pipeline shared by send, batch items, drafts, reply and forward. */
export async function performSend(ctx: AppContext, auth: AuthContext, n: NormalizedSend, x: SendExtras): Promise<SentMessage> {
  if (!x.immediate && n.scheduledAt !== null) checkSchedulePast(ctx.clock.now(), n.scheduledAt, n.scheduledParam ?? 'scheduled_at');
  const ws = await requireWorkspace(ctx, auth.workspaceId);
  const resolved = x.agent ? { agent: x.agent, create: null } : await resolveSendAgent(ctx, auth, ws, n);
  let agent = resolved.agent;
  if (!resolved.create) {
    if (agent.status === 'paused') throw Errors.agentPaused(agent.name);
    if (agent.status === 'archived') throw Errors.agentArchived(agent.id, 422);
  }
  const subject = n.subject ?? '';
  const recipients = await checkRecipients(ctx, auth, ws, agent, n);
  const now = ctx.clock.now();
  const live = auth.mode === 'live';

  // Threading headers: explicit reply data, else in_reply_to_message_id / references (compat.md).
  let inReplyTo = x.inReplyTo ?? null;
  let references = x.references ?? n.references;
  let threadId = x.threadId ?? null;
  let inReplyToMessageId = x.inReplyToMessageId ?? null;
  if (!x.inReplyTo && n.inReplyToMessageId) {
    const orig = await findOriginal(ctx, auth, n.inReplyToMessageId, 'in_reply_to_message_id');
    inReplyTo = orig.rfcMessageId;
    references = [...new Set([...orig.references, ...(orig.rfcMessageId ? [orig.rfcMessageId] : []), ...n.references])];
    threadId = orig.threadId;
    inReplyToMessageId = orig.id;
  } else if (!x.inReplyTo && n.references.length) {
    inReplyTo = n.references[n.references.length - 1];
  }
  const isReply = x.isReply ?? Boolean(inReplyTo);

  // Cold-email screen (spec: every send route is screened; test keys get a warning instead).
  const allAddresses = recipients.map((r) => r.mailbox.address);
  const screen = await workOf(ctx).screen({ subject, text: n.text, html: n.html, to: allAddresses, isReply, attachmentText: attachmentTextOf(n.attachments) });
  let warning: ClassifierWarning | null = null;
  let pool: string | null = n.poolHint;
  if (screen.blocked) {
    if (await isContentCleared(ctx, ws.id, contentHash(subject, n.text, n.html))) {
      pool = 'isolated';
    } else if (live) {
      throw Errors.coldEmailProhibited(screen.message);
    } else {
      warning = { code: 'cold_email_prohibited', message: screen.message, score: screen.score, reason: screen.reason };
    }
  }

  const scheduled = !x.immediate && n.scheduledAt !== null && n.scheduledAt > now;
  if (scheduled) checkScheduleHorizon(now, n.scheduledAt!, n.scheduledParam ?? 'scheduled_at');
  const externals = recipients.filter((r) => r.kind === 'external');
  if (live && externals.length && !ctx.config.relayUrl) throw Errors.upstreamUnavailable(NO_RELAY, RELAY_REFUSED_RETRY_S);

  const id = newId('msg', ctx.clock);
  const at = isoAt(now);
  const row: SentMessageRow = {
    id, workspace_id: ws.id, agent_id: agent.id, thread_id: '', api_key_id: auth.keyId, test_mode: !live,
    status: scheduled ? 'scheduled' : 'sending', source: x.source ?? 'api',
    from_address: agent.email, from_name: agent.display_name ?? n.fromRef?.display ?? null,
    to: n.to.map(fmt), cc: n.cc.map(fmt), bcc: n.bcc.map(fmt), reply_to: n.replyTo.map(fmt),
    subject, body_text: n.text, body_html: n.html,
    rfc_message_id: '', in_reply_to: inReplyTo, references,
    in_reply_to_message_id: inReplyToMessageId, forwarded_from: x.forwardedFrom ?? null,
    metadata: n.metadata, tags: n.tags, classifier_score: screen.score, classifier_warning: warning, pool,
    cost_usd: live ? ctx.config.priceUsdPerMessage : 0, transport_message_id: null,
    scheduled_at: scheduled ? isoAt(n.scheduledAt!) : null, due_at: scheduled ? isoAt(n.scheduledAt!) : null,
    sent_at: null, delivered_at: null, canceled_at: null, error_message: null, created_at: at, updated_at: at,
  };
  const attachments: AttachmentRow[] = [...n.attachments, ...(x.attachments ?? [])].map((a, i) => ({
    id: newId('att', ctx.clock), message_id: id, position: i, filename: a.filename, content_type: a.contentType,
    size: a.content.length, content: a.content,
  }));
  const counted = [...new Set(allAddresses.map(addressKey))];

  const ensureAgent = async (tx: Tx): Promise<void> => {
    if (!resolved.create) return;
    agent = await insertNewAgent(ctx, tx, ws, { name: resolved.create }, !live);
    row.agent_id = agent.id;
    row.from_address = agent.email;
  };
  // deferEvent: the thread event is returned for the caller to emit just before its own (see
  // threads.ts ThreadAssignment.deferEvent: the event turn is then taken after the message row).
  const thread = async (tx: Tx, deferEvent = false): Promise<EmitInput | null> => {
    row.rfc_message_id = `${id}@${agent.domain}`;
    const t = await assignThread(ctx, tx, {
      workspaceId: ws.id, agentId: agent.id, subject, direction: 'outbound', messageId: id, rfcMessageId: row.rfc_message_id,
      inReplyTo, references, threadId, participants: [agent.email, ...allAddresses], testMode: !live, at: now, deferEvent,
    });
    row.thread_id = t.threadId;
    return t.event;
  };

  if (scheduled || !live) {
    // Test sends and scheduled sends: one transaction, nothing leaves now.
    if (!scheduled) {
      row.status = 'sent';
      row.sent_at = at;
    }
    await withAttachmentsWritten(ctx, row, attachments, () => groupedTransaction(ctx, async (tx) => {
      await ensureAgent(tx);
      if (live) await reserveSend(tx.db, { ws, agent, recipients: counted, now, messageId: id });
      const threadEvent = await thread(tx, true);
      await insertSentMessage(tx.db, row, attachments);
      if (threadEvent) await emitEvent(ctx, tx, threadEvent);
      await emitMessageEvent(ctx, tx, row, scheduled ? 'message.scheduled' : 'message.sent');
      if (!scheduled && recipients.some((r) => r.kind === 'test')) {
        await insertSimulatedReply(tx.db, { message_id: id, workspace_id: ws.id, due_at: isoAt(now + SECOND) });
      }
    }, x.announced), x.announced);
    return toSentMessage(row, 'short', attachments);
  }

  // Live, now: reserve against the caps, hand over to the relay, then record the outcome.
  await groupedTransaction(ctx, async (tx) => {
    await ensureAgent(tx);
    await reserveSend(tx.db, { ws, agent, recipients: counted, now, messageId: id });
  }, x.announced);
  row.rfc_message_id = `${id}@${agent.domain}`;
  return transmit(ctx, row, attachments, recipients.map((r) => ({ address: r.mailbox.address, kind: r.kind })), { ws, agent, thread });
}

const fmt = (m: Mailbox) => (m.name ? `${m.name} <${m.address}>` : m.address);

/**
 * Run `store`, the transaction that inserts `row` with its attachments, after writing the large
 * attachments' bytes as blobs on the queue writer's thread (SQLite with the writer running:
 * AppContext.writeBlobs; issue #13: one INSERT binding a 25 MB attachment held the main thread for
 * 130–250 ms), so the transaction only names them. The buffers are moved to that thread: the
 * caller must not need the bytes afterwards (the wire copy is built before). If the transaction
 * fails or is refused (a cap, a conflict), the blobs go too: no piece is left that no row names.
 * Without the writer (PostgreSQL, a context inside a transaction), or when it fails, the
 * transaction writes them itself a piece at a time (db/repos/messages.ts insertSentMessage).
 */
async function withAttachmentsWritten<T>(
  ctx: AppContext, row: SentMessageRow, attachments: AttachmentRow[], store: () => Promise<T>, announced?: WriteAnnouncement,
): Promise<T> {
  let written: string[] = [];
  // Inside a transaction the writer would wait for the write lock this thread holds: never.
  if (ctx.writeBlobs && !ctx.enclosing && !inTransactionChain(ctx.db) && attachments.some((a) => isLarge(a.content.length))) {
    // A batch being formed would wait for this unit (announceWrite) while the writer writes: not.
    announced?.release();
    const sizes = attachments.map((a) => a.content.length);
    try {
      written = await writeSentAttachmentBlobs(attachments, ctx.writeBlobs, true);
    } catch (err) {
      // Pieces the thread committed before it failed go (the transaction would write the same ids).
      const ids = attachments.filter((_, i) => isLarge(sizes[i])).map((a) => sentAttachmentBlobId(a.id));
      await deleteSentBlobs(ctx.db, ids).catch((e: unknown) => ctx.log.error({ err: e, message_id: row.id }, 'blobs of an unstored send not deleted'));
      // Bytes already handed to the thread cannot be written here instead.
      if (attachments.some((a, i) => !a.content_blob && a.content.length !== sizes[i])) throw err;
      ctx.log.warn({ err, message_id: row.id }, 'attachments not written by the queue writer; written in the transaction');
    }
  }
  try {
    return await store();
  } catch (err) {
    // Unless the row is there after all (a failure after the commit), its blobs go.
    if (written.length && !(await getSentMessageById(ctx.db, row.id).catch(() => row))) {
      await deleteSentBlobs(ctx.db, written).catch((e: unknown) => ctx.log.error({ err: e, message_id: row.id }, 'blobs of an unstored send not deleted'));
    }
    throw err;
  }
}

async function emitMessageEvent(ctx: AppContext, tx: Tx, row: SentMessageRow, type: 'message.sent' | 'message.scheduled' | 'message.failed' | 'message.canceled'): Promise<void> {
  const msg = toSentMessage(row, 'short');
  await emitEvent(ctx, tx, {
    type, workspaceId: row.workspace_id, agentId: row.agent_id, threadId: row.thread_id, sourceMessageId: row.id,
    testMode: row.test_mode,
    data: { ...msg, message_id: row.id, from: row.from_address, ...(row.error_message ? { error_message: row.error_message } : {}) },
  });
}
export { emitMessageEvent };

/**
 * Hand a live message to its transports and record the outcome. Relay unreachable → the
 * reservation is released and nothing is recorded (503); relay refusal → recorded `failed` (502).
 * Local recipients get the message through the inbound pipeline after the commit, so their
 * threading finds this message's Message-ID.
 */
async function transmit(
  ctx: AppContext, row: SentMessageRow, attachments: AttachmentRow[], recipients: { address: string; kind: Recipient['kind'] }[],
  h: { ws: WorkspaceRow; agent: AgentRow; thread: ((tx: Tx) => Promise<unknown>) | null },
): Promise<SentMessage> {
  const wire = await buildWireMessage(ctx, row, attachments, h.agent);
  const externals = recipients.filter((r) => r.kind === 'external').map((r) => r.address);
  const locals = recipients.filter((r) => r.kind === 'local').map((r) => r.address);
  const now = ctx.clock.now();
  let relayed: { accepted: string[]; all: boolean; response: string; refusals: RcptRefusal[] } | null = null;
  if (externals.length) {
    const relay = relayFor(ctx);
    if (!relay) {
      await releaseSend(ctx.db, row.id);
      throw Errors.upstreamUnavailable(NO_RELAY, RELAY_REFUSED_RETRY_S);
    }
    try {
      const res = await relayWire(relay, externals, wire);
      row.transport_message_id = res.relayId ?? `<${row.rfc_message_id}>`;
      relayed = { accepted: res.accepted.length ? res.accepted : externals, all: !res.rejected.length, response: res.response, refusals: res.refusals };
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      if (err.kind === 'unavailable') {
        // A scheduled send (no thread step: it was threaded when scheduled) keeps its reservation
        // and learns why, so the scheduler can retry and report the deferral.
        if (!h.thread) throw err;
        await releaseSend(ctx.db, row.id);
        // A relay that refused the connection outright is down or misconfigured, not busy: a short
        // Retry-After lets SDK retries (three, with the Idempotency-Key) fail in seconds rather than
        // 90 s; a relay that answered and deferred keeps the longer wait (docs/outbound.md).
        throw Errors.upstreamUnavailable(`The SMTP relay is unavailable (${err.message}); nothing was sent. Retry with the same Idempotency-Key.`, err.connectionRefused ? RELAY_REFUSED_RETRY_S : RELAY_DEFERRED_RETRY_S);
      }
      row.status = 'failed';
      row.error_message = err.message;
      row.updated_at = isoAt(now);
      const storeFailed = () => groupedTransaction(ctx, async (tx) => {
        await releaseSend(tx.db, row.id);
        if (h.thread) {
          await h.thread(tx);
          await insertSentMessage(tx.db, row, attachments);
        } else {
          await updateSentMessage(tx.db, row.id, { status: 'failed', error_message: row.error_message, updated_at: row.updated_at });
        }
        await emitMessageEvent(ctx, tx, row, 'message.failed');
      });
      await (h.thread ? withAttachmentsWritten(ctx, row, attachments, storeFailed) : storeFailed());
      throw Errors.upstreamError(`The SMTP relay refused the message (${err.message}); it is recorded as ${row.id} with status failed.`);
    }
  } else {
    row.transport_message_id = `<${row.rfc_message_id}>`;
  }
  row.status = 'sent';
  row.sent_at = isoAt(now);
  row.updated_at = row.sent_at;
  // delivered_at: every recipient accepted by its final transport (the relay's 250 = the next hop).
  if (relayed?.all && !locals.length) row.delivered_at = row.sent_at;
  // The wire copy is built: a new message's attachments can go to the writer's thread (moved).
  const storeSent = () => groupedTransaction(ctx, async (tx) => {
    if (h.thread) {
      await h.thread(tx);
      await insertSentMessage(tx.db, row, attachments);
    } else {
      await updateSentMessage(tx.db, row.id, { status: 'sent', sent_at: row.sent_at, delivered_at: row.delivered_at, transport_message_id: row.transport_message_id, updated_at: row.updated_at });
    }
    await emitMessageEvent(ctx, tx, row, 'message.sent');
    if (relayed) await emitDelivered(ctx, tx, row, { transport: 'relay', recipients: relayed.accepted, response: relayed.response });
    // Recipients the relay refused at RCPT TO while taking the rest: synchronous bounces.
    if (relayed?.refusals.length) await recordRcptRefusals(ctx, tx, row, relayed.refusals);
  });
  await (h.thread ? withAttachmentsWritten(ctx, row, attachments, storeSent) : storeSent());
  if (locals.length) {
    const delivered = await deliverLocal(ctx, row, wire, locals);
    if (delivered) {
      await inTransaction(ctx, async (tx) => {
        if (!externals.length || relayed?.all) {
          row.delivered_at = isoAt(ctx.clock.now());
          await updateSentMessage(tx.db, row.id, { delivered_at: row.delivered_at });
        }
        await emitDelivered(ctx, tx, row, { transport: 'local', recipients: locals });
      });
    }
  }
  return toSentMessage(row, 'short', attachments);
}

/** A msg_ or rcv_ message this key may see, reduced to what reply, forward and threading need. */
export interface Original {
  id: string;
  kind: 'sent' | 'received';
  agentId: string;
  threadId: string | null;
  rfcMessageId: string | null;
  references: string[];
  subject: string;
  from: string;
  fromName: string | null;
  replyTo: string[];
  to: string[];
  cc: string[];
  text: string | null;
  html: string | null;
  date: string;
  attachments: () => Promise<NormalizedSend['attachments']>;
}

export async function findOriginal(ctx: AppContext, auth: AuthContext, id: string, param: string | null = null): Promise<Original> {
  const notFound = () => (param ? Object.assign(Errors.notFound('message', id), {}) : Errors.notFound('message', id));
  if (hasPrefix(id, 'msg')) {
    const m = await getSentMessage(ctx.db, auth.workspaceId, id);
    if (!m || (auth.agentId && m.agent_id !== auth.agentId)) throw notFound();
    return {
      id: m.id, kind: 'sent', agentId: m.agent_id, threadId: m.thread_id, rfcMessageId: m.rfc_message_id, references: m.references,
      subject: m.subject, from: m.from_address, fromName: m.from_name, replyTo: m.reply_to, to: m.to, cc: m.cc,
      text: m.body_text, html: m.body_html, date: m.sent_at ?? m.created_at,
      attachments: async () => (await listAttachments(ctx.db, m.id)).map((a) => ({ filename: a.filename, contentType: a.content_type, content: Buffer.from(a.content) })),
    };
  }
  if (hasPrefix(id, 'rcv')) {
    const r = await getReceived(ctx.db, auth.workspaceId, id);
    if (!r || r.over_limit || (auth.agentId && r.agent_id !== auth.agentId)) throw notFound();
    const header = (name: string) => r.headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
    const replyToHeader = header('reply-to');
    const replyTo = replyToHeader ? replyToHeader.split(',').map((s) => parseMailbox(s.trim())?.address).filter((s): s is string => Boolean(s)) : [];
    return {
      id: r.id, kind: 'received', agentId: r.agent_id, threadId: r.thread_id, rfcMessageId: r.rfc_message_id, references: r.references,
      subject: r.subject, from: r.from_address, fromName: r.from_name, replyTo, to: r.to, cc: r.cc,
      text: r.text, html: r.html, date: r.received_at,
      attachments: async () => {
        const { attachmentContents } = await import('../db/repos/received.js');
        return (await attachmentContents(ctx.db, r.id)).map((a) => ({ filename: a.filename ?? 'attachment', contentType: a.content_type, content: Buffer.from(a.content) }));
      },
    };
  }
  throw notFound();
}

/**
 * One scheduled send whose time has come, already claimed `sending` by this daemon (the scheduler
 * claims due sends with db/repos/messages.ts claimDueScheduled, so two daemons never send one
 * twice): re-checked against the caps, then sent.
 */
export async function dispatchScheduled(ctx: AppContext, row: SentMessageRow): Promise<void> {
  const now = ctx.clock.now();
  const at = isoAt(now);
  const fail = async (message: string) => {
    row.status = 'failed';
    row.error_message = message;
    row.updated_at = at;
    await inTransaction(ctx, async (tx) => {
      await releaseSend(tx.db, row.id);
      await updateSentMessage(tx.db, row.id, { status: 'failed', error_message: message, updated_at: at });
      await emitMessageEvent(ctx, tx, row, 'message.failed');
    });
  };
  const { getAgentById } = await import('../db/repos/agents.js');
  const agent = await getAgentById(ctx.db, row.agent_id);
  if (!agent || agent.status !== 'active') return fail(`agent ${agent?.name ?? row.agent_id} is ${agent?.status ?? 'gone'} at send time`);
  if (row.test_mode) {
    row.status = 'sent';
    row.sent_at = at;
    await inTransaction(ctx, async (tx) => {
      await updateSentMessage(tx.db, row.id, { status: 'sent', sent_at: at, updated_at: at });
      await emitMessageEvent(ctx, tx, row, 'message.sent');
      const all = [...row.to, ...row.cc, ...row.bcc].map((s) => parseMailbox(s)?.address.toLowerCase());
      if (all.includes(testAddress(ctx))) await insertSimulatedReply(tx.db, { message_id: row.id, workspace_id: row.workspace_id, due_at: isoAt(now + SECOND) });
    });
    return;
  }
  const ws = await requireWorkspace(ctx, row.workspace_id);
  const addresses = [...row.to, ...row.cc, ...row.bcc].map((s) => parseMailbox(s)!.address);
  try {
    // Spec: a scheduled send counts from acceptance and is checked again when it goes out.
    await inTransaction(ctx, async (tx) => {
      await releaseSend(tx.db, row.id);
      await reserveSend(tx.db, { ws, agent, recipients: [...new Set(addresses.map(addressKey))], now, messageId: row.id });
    });
  } catch (err) {
    if (err instanceof ApiError) return fail(`${err.code}: ${err.message}`);
    throw err;
  }
  const recipients: { address: string; kind: Recipient['kind'] }[] = [];
  for (const a of addresses) {
    if (await findSuppression(ctx, ws.id, agent.id, a)) return fail(`recipient_suppressed: ${a} is suppressed`);
    recipients.push({ address: a, kind: (await isLocalRecipient(ctx, a)) ? 'local' : 'external' });
  }
  const attachments = await listAttachments(ctx.db, row.id);
  try {
    await transmit(ctx, row, attachments, recipients, { ws, agent, thread: null });
  } catch (err) {
    const relayDown = err instanceof RelayError && err.kind === 'unavailable';
    if (relayDown || (err instanceof ApiError && err.code === 'upstream_unavailable')) {
      // Nothing left: try again in a minute; the reservation stays. A relay that answered 4xx
      // deferred this message: say so once (message.delayed); an unreachable relay said nothing.
      const next = isoAt(now + MINUTE);
      const deferral = relayDown && err.responseCode !== null && err.responseCode >= 400 && err.responseCode < 500 ? err : null;
      await inTransaction(ctx, async (tx) => {
        await updateSentMessage(tx.db, row.id, { status: 'scheduled', due_at: next, updated_at: at });
        if (deferral) {
          await recordRelayDeferral(ctx, tx, row, {
            responseCode: deferral.responseCode, response: deferral.response ?? deferral.message,
            recipients: recipients.filter((r) => r.kind === 'external').map((r) => r.address), nextAttemptAt: next,
          });
        }
      });
      return;
    }
    if (err instanceof ApiError && err.code === 'upstream_error') return;
    throw err;
  }
}
