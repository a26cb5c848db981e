import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { Client } from '../client/index.js';
import { SENDER_FILTER_FORMS, authenticationFailed, senderFilter } from '../client/sender.js';
import { ApiError } from '../contract/errors.js';
import { Nullable, Page, Timestamp, ListQuery, NO_CONTROL_CHARS } from '../contract/common.js';
import { SendRequest, ReplyRequest, SentMessage, MessageListQuery } from '../contract/messages.js';
import {
  ReceivedListQuery, ReceivedMessage, ReceivedMessageSummary, SimulateInbound, SimulateInboundResult, InboxWaitQuery,
} from '../contract/received.js';
import { Thread, ThreadListQuery, ThreadMessage, ThreadWithMessages } from '../contract/threads.js';
import { Draft, DraftCreate, DraftSendRequest, DraftSendResult } from '../contract/drafts.js';
import { Event } from '../contract/events.js';
import { Agent, AgentCreate, AgentListQuery } from '../contract/agents.js';
import { Me } from '../contract/me.js';
import { Reputation, ReputationQuery, Usage } from '../contract/account.js';
import { AllowCreate, ConsentAllow, SuppressionLookup, SuppressionQuery } from '../contract/suppression.js';
import { ClassifyRequest, ClassifyResult } from '../contract/classify.js';
import type { RouteId } from '../contract/routes.js';
import { describe, omit, required, toolInput } from './schema.js';
import { cappedPage, EXCERPTED, RESULT_CAP } from './excerpt.js';
import { INCLUDE_QUARANTINED, WITHHELD, heldSubjects, withholdEvent, withholdReceived, withholdSimulated, withholdThread, withholdThreadSubject } from './quarantine.js';

/**
 * What a tool runs against: the API's typed `call` (src/client). Over stdio that is the HTTP client
 * of the CLI's profile; inside the daemon it is the same client over an in-process fetch (see
 * server/http/routes/mcp.ts), so every tool call goes through the REST route — scopes, agent
 * binding, validation, limits and errors are the API's own.
 */
export type ApiCaller = Pick<Client, 'call'>;

export interface ToolContext {
  api: ApiCaller;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Wall clock (tests of the wait loop do not need a fake one: the daemon's own wait is real). */
  now?: () => number;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: TObject;
  output: TObject;
  annotations: ToolAnnotations;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

type CallInput = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal };
/** The client's call, loosely typed: each tool's input was checked against its schema already. */
function callOf(ctx: ToolContext) {
  const call = ctx.api.call as unknown as (id: RouteId, input?: CallInput) => Promise<unknown>;
  return <T = Record<string, unknown>>(id: RouteId, input: CallInput = {}) => call(id, { ...input, signal: ctx.signal }) as Promise<T>;
}

/** Split a tool's arguments into the route's parts: named fields go to the path, the rest to body or query. */
function pick(args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (args[n] !== undefined) out[n] = args[n];
  return out;
}
function rest(args: Record<string, unknown>, without: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (!without.includes(k) && v !== undefined) out[k] = v;
  return out;
}

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

/** Fields a model is told about on every list tool. */
const LIST_FIELDS = describe({ ...ListQuery }, {
  limit: 'Page size, 1-100 (default 25).',
  cursor: 'Pass the `next_cursor` of the previous page to get the next one; omit for the first page.',
});

/** The send request without the aliases older clients send (`text`, `html`, `body`, `pool_hint`): one name per field. */
const SEND_FIELDS = describe(omit(SendRequest, ['text', 'html', 'body', 'pool_hint']), {
  agent: 'The sending agent (id, name or address). Optional with an agent-bound key; otherwise needed when the workspace has several agents.',
  to: 'Recipient address, or a list of up to 50.',
  cc: 'Cc address or list.',
  bcc: 'Bcc address or list.',
  subject: 'Subject line.',
  body_text: 'Plain-text body.',
  body_html: 'HTML body (optional; plain text is enough for most mail).',
  scheduled_at: 'ISO 8601 time to send later instead of now.',
  attachments: 'Up to 10 files as {filename, content_base64, content_type}.',
  metadata: 'Your own string key/value pairs, returned on the message and its events.',
});
const IDEMPOTENCY = {
  idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: NO_CONTROL_CHARS, description: 'Reuse the same key when retrying the same send: the message is sent once (Idempotency-Key).' })),
};
const idempotency = (args: Record<string, unknown>) =>
  typeof args.idempotency_key === 'string' ? { 'idempotency-key': args.idempotency_key } : undefined;

const ReceivedSummaryOut = Type.Object({ ...ReceivedMessageSummary.properties, ...WITHHELD, ...EXCERPTED });
const SentSummaryOut = Type.Object({ ...(SentMessage as unknown as TObject).properties, ...EXCERPTED });
const ThreadSummaryOut = Type.Object({ ...(Thread as unknown as TObject).properties, ...EXCERPTED });
/** Told to the model on every list tool (src/mcp/excerpt.ts). */
const LIST_NOTE = `Items are summaries: long fields are cut (excerpted: true) and one page is at most ${RESULT_CAP / 1024} KiB of JSON (fewer items than limit when needed; next_cursor continues after the last one).`;
const ReceivedOut = Type.Object({ ...(ReceivedMessage as unknown as TObject).properties, ...WITHHELD });
const ReceivedPage = Page(ReceivedSummaryOut);
const ThreadOut = Type.Object({
  ...(ThreadWithMessages as unknown as TObject).properties,
  messages: Type.Array(Type.Object({ ...ThreadMessage.properties, ...WITHHELD })),
});
const EventOut = Type.Object({ ...Event.properties, ...WITHHELD });
const WaitOut = Type.Object({
  message: Nullable(ReceivedOut),
  timed_out: Type.Boolean({ description: 'true when no matching message arrived before the timeout (message is then null).' }),
});
const ExtractOut = Type.Object({
  message_id: Type.String(),
  agent_id: Type.String(),
  received_at: Timestamp,
  from: ReceivedMessageSummary.properties.from,
  delivered_to: Type.String(),
  subject: Type.String(),
  code: Nullable(Type.String({ description: 'The one-time code most likely meant (first found), or null.' })),
  link: Nullable(Type.String({ description: 'The verification / sign-in link most likely meant, or null.' })),
  codes: Type.Array(Type.String()),
  links: Type.Array(Type.String()),
  quarantined: Type.Boolean(),
  injection_score: Nullable(Type.Number()),
  spf_pass: ReceivedMessageSummary.properties.spf_pass,
  dkim_pass: ReceivedMessageSummary.properties.dkim_pass,
  dmarc: ReceivedMessageSummary.properties.dmarc,
  trusted_network: ReceivedMessageSummary.properties.trusted_network,
  authentication_failed: Type.Boolean({ description: 'The sender failed authentication (SPF and DKIM failed, or a forged From of this server\'s own domain): its code and link are withheld unless include_unauthenticated is true.' }),
  ...WITHHELD,
});

const include = (args: Record<string, unknown>) => args.include_quarantined_body === true;
type ListPage<T> = { data: T[]; has_more: boolean; next_cursor?: string | null };
const RECEIVED_NOTE = 'Each message carries `quarantined` and `classification.injection_score`; a quarantined message\'s content is withheld (body_withheld: true) unless include_quarantined_body is true, because it scored as a prompt-injection attempt.';

// ---- helpers of the inbox tools -------------------------------------------------------------

/** The agent a tool works on: the argument, else the agent an agent-bound key belongs to. */
async function agentOf(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  if (typeof args.agent === 'string') return args.agent;
  const me = await callOf(ctx)<{ agent: { id: string } | null }>('me.get');
  if (me.agent) return me.agent.id;
  throw new ApiError(400, 'invalid_request_error', 'missing_field', 'Missing required field `agent`: this key is not bound to an agent, so say which agent\'s inbox to use (id, name or address; mails.list_agents lists them).', { param: 'agent' });
}

interface Filters { from?: (address: string) => boolean; subject?: string; address?: string }
function matches(m: ReceivedMessageSummary, f: Filters): boolean {
  const has = (hay: string, needle: string | undefined) => needle === undefined || hay.toLowerCase().includes(needle.toLowerCase());
  const addr = f.address?.toLowerCase();
  return (!f.from || f.from(m.from.address)) && has(m.subject, f.subject) &&
    (addr === undefined || m.delivered_to.toLowerCase() === addr || (m.plus_address ?? '').toLowerCase() === addr);
}

/** The tools' `from`: an exact address or a domain and its subdomains (client/sender.ts), as `mailagent wait --from`. */
function fromFilter(value: unknown): Filters['from'] {
  if (typeof value !== 'string') return undefined;
  const test = senderFilter(value);
  if (!test) throw new ApiError(400, 'invalid_request_error', 'invalid_param_value', `The field \`from\` must be ${SENDER_FILTER_FORMS}; got "${value}".`, { param: 'from' });
  return test;
}

const FILTER_FIELDS = {
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Only mail from this sender address (exact, e.g. "noreply@github.com") or from this domain and its subdomains (e.g. "github.com"). The display name is not matched: anyone can choose it.' })),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 998, description: 'Only mail whose subject contains this text (case-insensitive).' })),
};

/** The MCP client's own request timeout is 60 s by default (SDK DEFAULT_REQUEST_TIMEOUT_MSEC): stay under it. */
export const MAX_WAIT_SECONDS = 55;
/** The daemon holds one long-poll for at most this long (InboxWaitQuery.timeout). */
const SERVER_WAIT_SECONDS = 60;
/** mails.extract looks at this many received messages at most (newest first). */
export const EXTRACT_SCAN = 500;

const LINK_HINT = /verif|confirm|activat|magic|log-?in|sign-?in|signin|reset|token|auth|validat|otp|one-?time|passwordless/i;
const NOT_A_LINK = /unsubscribe|list-manage|\/optout|opt-out|privacy|terms/i;

/** Verification-looking links first; unsubscribe and policy links are never the one meant. */
export function linksOf(urls: string[]): string[] {
  const usable = urls.filter((u) => !NOT_A_LINK.test(u));
  return [...usable.filter((u) => LINK_HINT.test(u)), ...usable.filter((u) => !LINK_HINT.test(u))];
}

function entitiesOf(m: ReceivedMessageSummary): { codes: string[]; links: string[] } {
  const e = (m.classification?.entities ?? {}) as { codes?: unknown; urls?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { codes: strings(e.codes), links: linksOf(strings(e.urls)) };
}

function afterSince(m: ReceivedMessageSummary, since: string | undefined): boolean {
  if (since === undefined) return true;
  if (/^rcv_/i.test(since)) return m.id > since;
  const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(since) || !/T/.test(since) ? since : since + 'Z');
  if (!Number.isFinite(t)) throw new ApiError(400, 'invalid_request_error', 'invalid_param_value', `The field \`since\` must be an ISO 8601 time (e.g. 2026-03-01T09:00:00Z) or a received message id (rcv_...); got "${since}".`, { param: 'since' });
  return Date.parse(m.received_at) >= t;
}

/**
 * What a thread's received mail says for the quarantine rule (quarantine.ts): the ids of its
 * messages known clean and the subjects its quarantined ones brought. Up to 10 pages of 100; a
 * message past them is not known clean (withheld), a deleted thread has neither.
 */
async function threadReceived(call: ReturnType<typeof callOf>, threadId: string): Promise<{ clean: Set<string>; held: Set<string>; heldIds: Set<string> }> {
  const clean = new Set<string>();
  const all: ReceivedMessageSummary[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const page = await call<{ data: ReceivedMessageSummary[]; has_more: boolean; next_cursor?: string }>('received.list', { query: { thread_id: threadId, limit: 100, cursor } });
    for (const m of page.data) if (!m.quarantined) clean.add(m.id);
    all.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  const heldIds = new Set(all.filter((m) => m.quarantined === true && m.message_id).map((m) => bareMessageId(m.message_id!)));
  return { clean, held: heldSubjects(all), heldIds };
}

const bareMessageId = (id: string) => id.trim().replace(/^<|>$/g, '');

/**
 * Sent messages whose subject a quarantined message of their thread wrote (a reply's "Re: …", a
 * forward's "Fwd: …") have it withheld, as get_thread does, and the quarantined messages' Message-IDs
 * leave their `references`: the result of mails.reply would otherwise hand the stranger's words
 * straight back to the model. One look at each distinct thread.
 */
async function withholdSentSubjects<T extends Record<string, unknown> | { thread_id?: unknown; subject?: unknown }>(call: ReturnType<typeof callOf>, list: T[]): Promise<T[]> {
  const threads = [...new Set(list.map((m) => m.thread_id).filter((t): t is string => typeof t === 'string'))];
  const seen = new Map(await Promise.all(threads.map(async (t) => [t, await threadReceived(call, t)] as const)));
  return list.map((m) => {
    const r = typeof m.thread_id === 'string' ? seen.get(m.thread_id) : undefined;
    if (!r) return m;
    let out = typeof m.subject === 'string' ? withholdThreadSubject(m as T & { subject: string }, r.held, false) : m;
    // A reply's References name the stranger's Message-ID, which the stranger wrote.
    const refs = (out as { references?: unknown }).references;
    if (Array.isArray(refs) && r.heldIds.size) out = { ...out, references: refs.filter((x) => typeof x !== 'string' || !r.heldIds.has(bareMessageId(x))) };
    return out;
  });
}

/** One sent message from `get` (a send, reply, forward or read), through withholdSentSubjects. */
async function withheldSent<T extends { thread_id?: unknown; subject?: unknown }>(call: ReturnType<typeof callOf>, get: (call: ReturnType<typeof callOf>) => Promise<T>): Promise<T> {
  return (await withholdSentSubjects(call, [await get(call)]))[0];
}

// ---- the tools --------------------------------------------------------------------------------

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const tools: ToolDef[] = [
  {
    name: 'mails.send',
    title: 'Send an email',
    description: 'Send an email from one of your agents\' addresses. Use it to write to someone new; to answer a message use mails.reply so the conversation stays threaded. Returns the sent message (id, thread_id, status); a refusal (suppressed recipient, cold-email screen, limits) comes back as an error with its code.',
    input: toolInput(SEND_FIELDS, IDEMPOTENCY),
    output: SentMessage,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (a, ctx) => withheldSent(callOf(ctx), (call) => call<{ thread_id: string; subject: string }>('messages.create', { body: rest(a, ['idempotency_key']), headers: idempotency(a) })),
  },
  {
    name: 'mails.reply',
    title: 'Reply to a message',
    description: 'Reply to a received or sent message, in the same thread (subject, In-Reply-To and References are set for you; it goes to the sender of a received message, or to the recipients of a sent one). Use reply_all to include the other recipients. Returns the sent reply.',
    input: toolInput({ message_id: Id('The message to answer: a received message id (rcv_...) or a sent one (msg_...).') },
      describe(omit(ReplyRequest as unknown as TObject, ['text', 'html', 'body', 'pool_hint']), { ...SEND_FIELDS_DESCRIPTIONS(), reply_all: 'Also send to everyone else on the original message.' }), IDEMPOTENCY),
    output: SentMessage,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (a, ctx) => withheldSent(callOf(ctx), (call) => call<{ thread_id: string; subject: string }>('messages.reply', { params: { id: a.message_id }, body: rest(a, ['message_id', 'idempotency_key']), headers: idempotency(a) })),
  },
  {
    name: 'mails.forward',
    title: 'Forward a message',
    description: 'Forward a received or sent message (with its attachments) to new recipients, optionally with a note in body_text above it. Returns the sent message.',
    input: toolInput({ message_id: Id('The message to forward: rcv_... or msg_....') }, SEND_FIELDS, IDEMPOTENCY),
    output: SentMessage,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (a, ctx) => withheldSent(callOf(ctx), (call) => call<{ thread_id: string; subject: string }>('messages.forward', { params: { id: a.message_id }, body: rest(a, ['message_id', 'idempotency_key']), headers: idempotency(a) })),
  },
  {
    name: 'mails.list_messages',
    title: 'List sent messages',
    description: `List messages your agents sent (newest first), with their status. Filter by agent_id or thread_id; page with next_cursor. ${LIST_NOTE}`,
    input: toolInput(MessageListQuery.properties, LIST_FIELDS),
    output: Page(SentSummaryOut),
    annotations: READ,
    run: async (a, ctx) => {
      const page = await cappedPage((limit) => callOf(ctx)<ListPage<Record<string, unknown>>>('messages.list', { query: { ...a, limit } }), a.limit as number | undefined, (m) => m);
      return { ...page, data: await withholdSentSubjects(callOf(ctx), page.data) };
    },
  },
  {
    name: 'mails.list_received',
    title: 'List received messages',
    description: `List mail your agents received (newest first) as summaries with an excerpt; use mails.get_received for the full body. ${RECEIVED_NOTE} Page with next_cursor. ${LIST_NOTE}`,
    input: toolInput(describe(ReceivedListQuery.properties, { agent_id: 'Only this agent\'s mail (id, name or address).', thread_id: 'Only mail of this thread.' }), LIST_FIELDS, INCLUDE_QUARANTINED),
    output: ReceivedPage,
    annotations: READ,
    run: async (a, ctx) => {
      const query = rest(a, ['include_quarantined_body']);
      return cappedPage((limit) => callOf(ctx)<ListPage<ReceivedMessageSummary>>('received.list', { query: { ...query, limit } }), a.limit as number | undefined, (m) => withholdReceived(m, include(a)));
    },
  },
  {
    name: 'mails.get_received',
    title: 'Read a received message',
    description: `Read one received message in full: sender, recipients, subject, plain-text and HTML body, headers, attachments, SPF/DKIM results and the classification (intent, entities, urgency). ${RECEIVED_NOTE}`,
    input: toolInput({ message_id: Id('The received message id (rcv_...).') }, INCLUDE_QUARANTINED),
    output: ReceivedOut,
    annotations: READ,
    run: async (a, ctx) => withholdReceived(await callOf(ctx)<ReceivedMessage>('received.get', { params: { id: a.message_id } }), include(a)),
  },
  {
    name: 'mails.list_replies',
    title: 'List replies to a message',
    description: `List the mail received in the conversation of one of your messages (the replies to it), newest first. Give the id of a message you sent (msg_...) or received (rcv_...). ${RECEIVED_NOTE} ${LIST_NOTE}`,
    input: toolInput({ message_id: Id('A message you sent (msg_...) or received (rcv_...).') }, LIST_FIELDS, INCLUDE_QUARANTINED),
    output: ReceivedPage,
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const id = String(a.message_id);
      const origin = /^rcv_/i.test(id)
        ? await call<{ thread_id: string | null }>('received.get', { params: { id } })
        : await call<{ thread_id: string | null }>('messages.get', { params: { id } });
      if (!origin.thread_id) return { data: [], has_more: false };
      const page = await cappedPage((limit) => call<ListPage<ReceivedMessageSummary>>('received.list', { query: { thread_id: origin.thread_id, limit, cursor: a.cursor } }), a.limit as number | undefined, (m) => withholdReceived(m, include(a)));
      return { ...page, data: page.data.filter((m) => m.id !== id) };
    },
  },
  {
    name: 'mails.list_threads',
    title: 'List conversations',
    description: `List conversations (threads), most recently active first, with subject, participants, message count and labels. Filter by agent_id, status, label or trashed; page with next_cursor. A thread whose subject a quarantined message wrote has its subject withheld (""). ${LIST_NOTE}`,
    input: toolInput(ThreadListQuery.properties, LIST_FIELDS),
    output: Page(ThreadSummaryOut),
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const page = await cappedPage((limit) => call<ListPage<{ id: string; subject: string }>>('threads.list', { query: { ...a, limit } }), a.limit as number | undefined, (t) => t);
      // A thread's subject is its first message's: a quarantined stranger's words when that one is.
      const data = await Promise.all(page.data.map(async (t) => withholdThreadSubject(t, (await threadReceived(call, t.id)).held, false)));
      return { ...page, data };
    },
  },
  {
    name: 'mails.get_thread',
    title: 'Read a conversation',
    description: 'Read one conversation: every sent and received message in order, each with a snippet. Snippets of quarantined received messages are withheld (body_withheld: true) unless include_quarantined_body is true; read a message in full with mails.get_received.',
    input: toolInput({ thread_id: Id('The thread id (thr_...).') }, INCLUDE_QUARANTINED),
    output: ThreadOut,
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const thread = await call<ThreadWithMessages>('threads.get', { params: { id: a.thread_id } });
      // The thread view has no verdict per message: learn it from the thread's received mail.
      const clean = !include(a) && thread.messages.some((m) => m.direction === 'inbound') ? (await threadReceived(call, thread.id)).clean : new Set<string>();
      return withholdThread(thread, clean, include(a));
    },
  },
  {
    name: 'mails.create_draft',
    title: 'Create a draft',
    description: 'Save an email as a draft without sending it, e.g. for a human to review first. A future send_at schedules it. Returns the draft; send it later with mails.send_draft.',
    input: toolInput(describe(omit(DraftCreate, ['text', 'html', 'body']), { ...SEND_FIELDS_DESCRIPTIONS(), send_at: 'ISO 8601 time: schedule the draft to be sent then.' })),
    output: Draft,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (a, ctx) => callOf(ctx)('drafts.create', { body: a }),
  },
  {
    name: 'mails.send_draft',
    title: 'Send a draft',
    description: 'Send a saved draft now, or schedule it with send_at. Returns the draft\'s new status and the sent message id.',
    input: toolInput({ draft_id: Id('The draft id (drf_...).') }, describe(DraftSendRequest.properties, { send_at: 'ISO 8601 time to send later instead of now.' })),
    output: DraftSendResult,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (a, ctx) => callOf(ctx)('drafts.send', { params: { id: a.draft_id }, body: rest(a, ['draft_id']) }),
  },
  {
    name: 'mails.get_event',
    title: 'Read an event',
    description: 'Read one event (message.sent, message.received, message.bounced, ...) by id, with its data. Events of quarantined mail have their subject, excerpt, Message-ID and entities withheld unless include_quarantined_body is true; so has an event of the same thread (thread.created, ...) whose subject that mail wrote.',
    input: toolInput({ event_id: Id('The event id (evt_...).') }, INCLUDE_QUARANTINED),
    output: EventOut,
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const e = await call<Event>('events.get', { params: { id: a.event_id } });
      // thread.* events (and a reply's message.sent) carry the thread's subject without a verdict of their own.
      const held = !include(a) && e.quarantined !== true && e.thread_id && typeof e.data?.subject === 'string' ? (await threadReceived(call, e.thread_id)).held : undefined;
      return withholdEvent(e, include(a), held);
    },
  },
  {
    name: 'mails.create_agent',
    title: 'Create an agent',
    description: 'Create a new agent: an email identity with its own address (<name>@<workspace domain>), inbox and send limits. Needs a key that is not bound to an agent. Returns the agent with its address.',
    input: toolInput(describe(AgentCreate.properties, { name: 'Lower-case name, the local part of the address (e.g. "support").', display_name: 'Name shown in the From header.' })),
    output: Agent,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (a, ctx) => callOf(ctx)('agents.create', { body: a }),
  },
  {
    name: 'mails.list_agents',
    title: 'List agents',
    description: 'List the workspace\'s agents (email identities) with their addresses, status and limits. An agent-bound key sees only its own agent. Page with next_cursor.',
    input: toolInput(AgentListQuery.properties, LIST_FIELDS),
    output: Page(Agent),
    annotations: READ,
    run: (a, ctx) => callOf(ctx)('agents.list', { query: a }),
  },
  {
    name: 'mails.me',
    title: 'Who am I',
    description: 'Show the calling key (mode test/live, scopes), its workspace and, for an agent-bound key, its agent and address. Call this first to learn which address you send from.',
    input: toolInput({}),
    output: Me,
    annotations: READ,
    run: (_a, ctx) => callOf(ctx)('me.get'),
  },
  {
    name: 'mails.get_reputation',
    title: 'Sender reputation',
    description: 'Sender reputation over the last 30 days (sends, bounces, complaints, replies and their rates), for the workspace or one agent. Check it before a large send.',
    input: toolInput(describe(ReputationQuery.properties, { agent_id: 'One agent (id or name); omit for the whole workspace.' })),
    output: Reputation,
    annotations: READ,
    run: (a, ctx) => callOf(ctx)('reputation.get', { query: a }),
  },
  {
    name: 'mails.check_suppression',
    title: 'Is an address suppressed?',
    description: 'Check whether mail to an address would be refused because it bounced, complained or unsubscribed (workspace-wide or for one agent). Use it before writing to someone you have mailed before.',
    input: toolInput({ address: required(SuppressionQuery.properties.address) }, describe(pick(SuppressionQuery.properties, ['agent_id']) as TProperties, { agent_id: 'Also check this agent\'s own suppressions.' })),
    output: SuppressionLookup,
    annotations: READ,
    run: (a, ctx) => callOf(ctx)('suppression.get', { query: a }),
  },
  {
    name: 'mails.allowlist_address',
    title: 'Allow a suppressed address again',
    description: 'Allow mail to a suppressed address again, with a written attestation that the person consented (at least 20 characters, recorded in the audit log). Only do this when the user confirms the recipient asked to be mailed.',
    input: toolInput(describe(AllowCreate.properties, { attestation: 'Who consented, when and how (e.g. "Alice re-subscribed on the website on 2026-03-01").' })),
    output: ConsentAllow,
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (a, ctx) => callOf(ctx)('suppression.allow', { body: a }),
  },
  {
    name: 'mails.get_usage',
    title: 'Usage this month',
    description: 'Usage this month against the plan\'s caps (messages sent, agents, ...). Check it when a send is refused for a limit.',
    input: toolInput({}),
    output: Usage,
    annotations: READ,
    run: (_a, ctx) => callOf(ctx)('billing.usage'),
  },
  {
    name: 'mails.test_inbound',
    title: 'Simulate an incoming email',
    description: 'Deliver a simulated email to one of your agents (test keys only): it is stored, classified and announced like real mail. Use it to try an inbox workflow, e.g. a verification code, without an outside sender. Returns the received message id and its classification (a quarantined message\'s entities are withheld unless include_quarantined_body is true, as when reading it back).',
    input: toolInput(describe(SimulateInbound.properties, { agent: 'The receiving agent (id, name or address).', from: 'The sender address.', to: 'A plus address of the agent to deliver to (default: its main address).', body_text: 'The plain-text body.' }), INCLUDE_QUARANTINED),
    output: Type.Object({ ...SimulateInboundResult.properties, ...WITHHELD }),
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (a, ctx) => withholdSimulated(await callOf(ctx)<Static<typeof SimulateInboundResult>>('received.simulate', { body: rest(a, ['include_quarantined_body']) }), include(a)),
  },
  {
    name: 'mails.wait_for_message',
    title: 'Wait for an email',
    description: `Wait until a new email arrives for an agent (optionally only to one address, from a sender or with a subject) and return it, or time out after timeout_seconds (at most ${MAX_WAIT_SECONDS}; call again to keep waiting). Start it right after the action that triggers the mail; if it may already have arrived, pass since (a time before the action) or use mails.extract. ${RECEIVED_NOTE}`,
    input: toolInput(
      describe({ agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })), ...omit(InboxWaitQuery, ['timeout']) }, {
        agent: 'The receiving agent (id, name or address). Optional with an agent-bound key.',
        address: 'Only mail delivered to this address of the agent (e.g. a plus address like agent+signup@...).',
        since: 'Also return mail that arrived at or after this ISO 8601 time, or after this received message id (rcv_...). Default: only mail arriving from now on.',
      }),
      FILTER_FIELDS,
      { timeout_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, default: 30, description: `How long to wait, 0-${MAX_WAIT_SECONDS} seconds (default 30).` })) },
      INCLUDE_QUARANTINED,
    ),
    output: WaitOut,
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const now = ctx.now ?? Date.now;
      const agent = await agentOf(a, ctx);
      const timeout = typeof a.timeout_seconds === 'number' ? a.timeout_seconds : 30;
      const deadline = now() + timeout * 1000;
      const filters: Filters = { from: fromFilter(a.from), subject: a.subject as string | undefined };
      let since = a.since as string | undefined;
      // Several waits must start from one fixed point, or mail arriving between two of them is
      // missed: after the agent's newest message as of now (ids are time-ordered), like `mailagent wait`.
      if (since === undefined && (filters.from || filters.subject)) {
        const newest = await call<{ data: { id: string }[] }>('received.list', { query: { agent_id: agent, limit: 1 } });
        since = newest.data[0]?.id ?? '1970-01-01T00:00:00.000Z';
      }
      for (let first = true; ; first = false) {
        const left = Math.ceil((deadline - now()) / 1000);
        if (!first && left <= 0) break;
        const r = await call<{ message: ReceivedMessage | null }>('inbox.wait', {
          params: { id: agent },
          query: { address: a.address, since, timeout: Math.max(0, Math.min(SERVER_WAIT_SECONDS, left)) },
        });
        if (r.message) {
          if (matches(r.message, filters)) return { message: withholdReceived(r.message, include(a)), timed_out: false };
          since = r.message.id; // not the one: wait for the next after it
        }
        if (ctx.signal.aborted) break;
      }
      return { message: null, timed_out: true };
    },
  },
  {
    name: 'mails.extract',
    title: 'Get the code or link from an email',
    description: `Get the one-time code and/or the verification (sign-in, reset) link from the newest received message that matches (agent, address, sender, subject, since), or from one message by id. Use it after mails.wait_for_message, or alone when the mail has already arrived. Returns code, link and all candidates with the sender's authentication (spf_pass, dkim_pass, dmarc); mail whose sender failed authentication is passed over unless include_unauthenticated is true, and a quarantined message's code and link are withheld unless include_quarantined_body is true.`,
    input: toolInput(
      {
        message_id: Type.Optional(Id('Read this received message (rcv_...) instead of searching.')),
        agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Only this agent\'s mail (id, name or address).' })),
        address: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'Only mail delivered to this address (e.g. a plus address).' })),
      },
      FILTER_FIELDS,
      {
        since: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only mail received at or after this ISO 8601 time, or after this message id (rcv_...).' })),
        kind: Type.Optional(Type.Enum(['code', 'link', 'any'] as const, { default: 'any', description: 'What you need: the newest matching message that has a code, a link, or either (default).' })),
      },
      INCLUDE_QUARANTINED,
      {
        include_unauthenticated: Type.Optional(Type.Boolean({
          default: false,
          description: 'Also use mail whose sender failed authentication (default false: such mail is passed over when searching, and its code and link are withheld when read by message_id). Anyone can write any From; only set this for a test set-up that cannot authenticate its mail.',
        })),
      },
    ),
    output: ExtractOut,
    annotations: READ,
    run: async (a, ctx) => {
      const call = callOf(ctx);
      const kind = (a.kind as string | undefined) ?? 'any';
      const wanted = (m: ReceivedMessageSummary) => {
        const e = entitiesOf(m);
        return kind === 'code' ? e.codes.length > 0 : kind === 'link' ? e.links.length > 0 : e.codes.length + e.links.length > 0;
      };
      const acceptFailed = a.include_unauthenticated === true;
      let found: ReceivedMessageSummary | null = null;
      if (typeof a.message_id === 'string') {
        found = await call<ReceivedMessage>('received.get', { params: { id: a.message_id } });
      } else {
        const filters: Filters = { from: fromFilter(a.from), subject: a.subject as string | undefined, address: a.address as string | undefined };
        let cursor: string | undefined;
        scan: for (let seen = 0; seen < EXTRACT_SCAN;) {
          const page = await call<{ data: ReceivedMessageSummary[]; has_more: boolean; next_cursor?: string }>('received.list', { query: { agent_id: a.agent, limit: 100, cursor } });
          for (const m of page.data) {
            seen++;
            // Newest first: once past `since`, nothing older can match.
            if (!afterSince(m, a.since as string | undefined)) break scan;
            if (matches(m, filters) && wanted(m) && (acceptFailed || !authenticationFailed(m))) {
              found = m;
              break scan;
            }
          }
          if (!page.has_more || !page.next_cursor) break;
          cursor = page.next_cursor;
        }
        if (!found) {
          throw new ApiError(404, 'resource_error', 'resource_not_found',
            `No received message${a.agent ? ` of ${String(a.agent)}` : ''} matching the filters has a ${kind === 'any' ? 'code or link' : kind}${acceptFailed ? '' : ' from a sender that did not fail authentication'} (looked at the newest ${EXTRACT_SCAN}). If the mail is on its way, call mails.wait_for_message first.`);
        }
      }
      // The shared rule (quarantine.ts): a withheld message has no entities, so no code or link.
      const shown = withholdReceived(found, include(a));
      const failed = authenticationFailed(found);
      // A message named by id whose sender failed authentication: its code and link are not handed out.
      const { codes, links } = failed && !acceptFailed ? { codes: [], links: [] } : entitiesOf(shown);
      const withheld = shown.body_withheld === true;
      return {
        message_id: found.id,
        agent_id: found.agent_id,
        received_at: found.received_at,
        from: shown.from,
        delivered_to: found.delivered_to,
        subject: shown.subject,
        code: codes[0] ?? null,
        link: links[0] ?? null,
        codes,
        links,
        quarantined: found.quarantined,
        injection_score: found.classification?.injection_score ?? null,
        spf_pass: found.spf_pass,
        dkim_pass: found.dkim_pass,
        ...(found.dmarc ? { dmarc: found.dmarc } : {}),
        ...(found.trusted_network ? { trusted_network: found.trusted_network } : {}),
        authentication_failed: failed,
        ...(withheld ? { body_withheld: true } : {}),
      };
    },
  },
  {
    name: 'mails.classify',
    title: 'Classify a text',
    description: 'Score an email or any text before acting on it, without storing anything: intent, entities (dates, amounts, codes, links), urgency and prompt-injection score for inbound text (quarantined when the score is 0.95 or more), or the cold-email screen for a message you plan to send (direction: outbound).',
    input: toolInput(describe(ClassifyRequest.properties, {
      direction: 'inbound (default): classify mail you received or text you are about to act on; outbound: would this send pass the cold-email screen?',
      raw: 'A whole RFC 822 message, instead of the separate fields.',
      body_text: 'The text to score.',
    })),
    output: ClassifyResult,
    annotations: READ,
    run: (a, ctx) => callOf(ctx)('classify.create', { body: a }),
  },
  {
    name: 'mails.get_message',
    title: 'Read a sent message',
    description: 'Read one message your agents sent, in full: recipients, subject, bodies, status, delivery times and attachments (mails.list_messages gives summaries with long fields cut).',
    input: toolInput({ message_id: Id('The sent message id (msg_...).') }),
    output: SentMessage,
    annotations: READ,
    run: (a, ctx) => withheldSent(callOf(ctx), (call) => call<{ thread_id: string; subject: string }>('messages.get', { params: { id: a.message_id } })),
  },
];

/** The send fields' descriptions, shared by the tools whose input repeats them (reply, drafts). */
function SEND_FIELDS_DESCRIPTIONS(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(SEND_FIELDS)) if ((s as TSchema & { description?: string }).description) out[k] = (s as { description: string }).description;
  return out;
}

export const toolsByName = new Map(tools.map((t) => [t.name, t]));
