import { agentByEmail, getAgentById, type AgentRow } from '../db/repos/agents.js';
import { getWorkspace } from '../db/repos/workspaces.js';
import {
  insertReceived, lockPlusAddressWindow, senderCounts, type InboundSource, type NewAttachment, type OverLimit, type ReceivedRow, type StoredTail,
} from '../db/repos/received.js';
import { deleteBlobs, isLarge } from '../db/repos/blobs.js';
import { suppressionsFor } from '../db/repos/suppression.js';
import { deleteQueued } from '../db/repos/inbound-queue.js';
import { countSentTo } from '../db/repos/messages.js';
import { withTransactionKind, type Isolation } from '../db/open.js';
import type { Classification } from '../classifier/index.js';
import { failClosed, isQuarantined } from '../classifier/quarantine.js';
import { bodiesUnread, classifierFields, type ParsedInbound } from '../mail/parse.js';
import { excerptOf } from '../mail/extract.js';
import { receivedFileName } from '../mail/file-name.js';
import { bareDomain } from '../mail/address.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import type { EventType } from '../contract/events.js';
import { announceWrite, groupedTransaction, type AppContext, type Tx, type WriteAnnouncement } from './context.js';
import { emitEvent, type ClassificationFields } from './events.js';
import { assignThread } from './threads.js';
import { findSuppression, normalizeAddress } from './suppression.js';
import { recordFeedback } from './feedback.js';
import { readReport, type MailReport } from '../mail/dsn.js';
import { parseReturnPath } from '../mail/return-path.js';
import { checkReturnPath, type VerifiedReturnPath } from './return-path.js';
import { workOf, type ClassifyAlong } from './message-work.js';
import { ReadCache } from './read-cache.js';
import { senderTrust, type SenderTrust } from './sender-trust.js';
import { admitPlusAddress, isHeldCode, plusAddressDecision, recordCapLeft, splitPlus } from './plus-addresses.js';
import { POSTMASTER, ROLE_MAILBOXES, postmasterAgent } from './postmaster.js';

export interface InboundInput {
  /** The message exactly as received (stored unchanged; GET /v1/messages/{rcv_id}/raw returns it). */
  raw: Buffer;
  /** Envelope sender (MAIL FROM); '' for the null sender. */
  mailFrom: string;
  /** Envelope recipients (RCPT TO). */
  rcptTo: string[];
  source: InboundSource;
  remoteAddress?: string | null;
  /** SPF / DKIM verdicts (null = not checked); absent = not checked. */
  auth?: { spf: boolean | null; dkim: boolean | null; dmarc?: string | null; trustedNetwork?: string | null };
  /** Test-mode mail (the simulator; local delivery of a test-key send). Default: source === 'simulator'. */
  testMode?: boolean;
  /**
   * Processing a message of the inbound queue (services/inbound-queue.ts): its row is deleted in
   * the transaction that stores it (so it is stored and evented once), and the arrival time and
   * the rcv ids are those the 250 named.
   */
  queued?: {
    id: string; receivedAt: number; messageIds: ReadonlyMap<string, string>;
    /**
     * SQLite with the queue's writer thread: large attachments are written there before the
     * transaction that stores the message (db/queue-writer.ts writeBlobs), under ids derived from
     * the queue row (`<inq id>.a<index>`: a retry after a crash writes the same ids again).
     */
    writeBlobs?: (blobs: { id: string; data: Uint8Array }[], move: boolean) => Promise<void>;
  };
  /**
   * The last bytes of `raw` are stored already (a large queued message's blob): the first copy
   * stored takes the blob over instead of writing the bytes again; unused, it is deleted.
   */
  storedTail?: StoredTail;
}

/** The queued message was processed already (by another daemon, or an earlier attempt that committed). */
export class AlreadyProcessed extends Error {
  constructor(id: string) {
    super(`queued message ${id} was processed already`);
  }
}

export interface InboundResult {
  accepted: { rcpt: string; messageId: string }[];
  refused: { rcpt: string; reason: string }[];
  /** Per stored message: its event (the simulator's answer). */
  stored?: StoredInbound[];
}

export interface StoredInbound {
  messageId: string;
  agentId: string;
  threadId: string | null;
  eventId: string | null;
  eventType: EventType | null;
  quarantined: boolean;
  classification: Classification | null;
  overLimit: OverLimit | null;
  /** Held by a share of the plus-address limit rather than the limit itself: which share, for the SMTP reply. */
  heldWhy?: string;
  /** Accepted and discarded, never stored (mail at a return path that is not a delivery report): the id names nothing. */
  dropped?: 'not_a_report';
}

/** Where an envelope recipient goes (RCPT TO time: unknown → 550 5.1.1, foreign domain → relay denied). */
export type RecipientRoute =
  | { kind: 'agent'; agent: AgentRow; address: string; plus: string | null; returnPath?: VerifiedReturnPath }
  | { kind: 'unknown'; reason: string }
  | { kind: 'foreign'; reason: string };

async function isLocalDomain(ctx: AppContext, raw: string): Promise<boolean> {
  const domain = bareDomain(raw);
  const base = bareDomain(ctx.config.agentDomain);
  if (domain === base || domain.endsWith('.' + base)) return true;
  const r = await ctx.db.selectFrom('agents').select('id').where('domain', '=', domain).limit(1).executeTakeFirst();
  return r !== undefined;
}

/**
 * Routes by recipient address, kept while nothing writes the agents table (services/read-cache.ts:
 * any write to it on this connection, or a commit by another process that wrote it, drops every
 * entry; PostgreSQL caches nothing). Every SMTP recipient is routed three times — at RCPT, when
 * its message is queued (it must still route at the end of DATA) and when it is stored — and each
 * send routes its recipients: one SELECT of the agent instead of three per message (bench/README.md,
 * round 2 session 6). An agent archived or created in between writes the table, so the next
 * routing sees it. Unknown and foreign answers are kept too (capped, like every ReadCache).
 */
const routeCache = new ReadCache<RecipientRoute>(['agents'], 2000, (r) => (r.kind === 'agent' ? { ...r, agent: { ...r.agent } } : r));

/** Route one envelope recipient: an agent's address (any case) or its plus variant on this instance. */
export function routeRecipient(ctx: AppContext, address: string): Promise<RecipientRoute> {
  // A return path depends on sent messages and keys, not on the agents table: never cached.
  if (parseReturnPath(address)) return returnPathRoute(ctx, address);
  return routeCache.get(ctx, address, () => readRoute(ctx, address));
}

/**
 * `bounces+<token>@<a domain of this server>`: the return path of one copy of a live send
 * (docs/outbound.md → Return path). One that verifies routes to the agent that sent the message,
 * never as a plus address of an agent called `bounces`, and carries what it names; one that does
 * not verify is no mailbox (550 5.1.1 at RCPT), so a report forged to it is never taken.
 */
async function returnPathRoute(ctx: AppContext, address: string): Promise<RecipientRoute> {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  if (!(await isLocalDomain(ctx, domain))) return { kind: 'foreign', reason: `${domain} is not a domain of this server; relaying is not allowed` };
  const v = await checkReturnPath(ctx, address);
  if (v.kind !== 'verified') return { kind: 'unknown', reason: v.kind === 'invalid' ? v.reason : `no mailbox ${address} here` };
  const agent = await getAgentById(ctx.db, v.sent.agent_id);
  if (!agent || agent.status === 'archived') return { kind: 'unknown', reason: 'the agent that sent this message is archived' };
  return { kind: 'agent', agent, address: address.toLowerCase(), plus: null, returnPath: { messageId: v.sent.id, recipient: v.recipient } };
}

async function readRoute(ctx: AppContext, address: string): Promise<RecipientRoute> {
  // RFC 5321 §4.5.1: `RCPT TO:<Postmaster>` with no domain is accepted too (services/postmaster.ts).
  if (address.trim().toLowerCase() === POSTMASTER) return postmasterRoute(ctx, null, `${POSTMASTER}@${ctx.config.agentDomain.toLowerCase()}`);
  const parts = splitPlus(address);
  if (!parts) return { kind: 'unknown', reason: `${address} is not a mailbox address` };
  if (!(await isLocalDomain(ctx, parts.domain))) {
    return { kind: 'foreign', reason: `${parts.domain} is not a domain of this server; relaying is not allowed` };
  }
  const agent = await agentByEmail(ctx.db, parts.base);
  if ((!agent || agent.status === 'archived') && ROLE_MAILBOXES.has(parts.base.slice(0, -(parts.domain.length + 1)))) return postmasterRoute(ctx, parts.domain, `${parts.local}@${parts.domain}`);
  if (!agent) return { kind: 'unknown', reason: `no mailbox ${parts.base} here` };
  if (agent.status === 'archived') return { kind: 'unknown', reason: `the mailbox ${parts.base} is archived` };
  const addr = `${parts.local}@${parts.domain}`;
  return { kind: 'agent', agent, address: addr, plus: parts.tag === null ? null : addr };
}

async function postmasterRoute(ctx: AppContext, domain: string | null, address: string): Promise<RecipientRoute> {
  const agent = await postmasterAgent(ctx, domain);
  return agent ? { kind: 'agent', agent, address, plus: null } : { kind: 'unknown', reason: `no live agent here to receive ${address.split('@')[0]} mail` };
}

/** Cheap check for the outbound side: is this an agent address (or plus variant) on this instance? */
export async function isLocalRecipient(ctx: AppContext, address: string): Promise<boolean> {
  return (await routeRecipient(ctx, address)).kind === 'agent';
}

/** Does `from`'s domain belong to this server (routing's cached answer: not a foreign domain)? */
async function fromLocalDomain(ctx: AppContext, domain: string): Promise<boolean> {
  return (await routeRecipient(ctx, `postmaster@${domain}`)).kind !== 'foreign';
}

/** How far the message's From is vouched for (services/sender-trust.ts; docs/inbound.md → Who sent it). */
export function trustOfSender(ctx: AppContext, input: Pick<InboundInput, 'source' | 'mailFrom' | 'auth'>, from: string): Promise<SenderTrust> {
  return senderTrust(ctx, input, from, fromLocalDomain);
}

/**
 * What the workspace knows of a sender (the classifier's sender_reputation input). Only an
 * authenticated From inherits it (sender-trust.ts): for any other, the history with the address
 * and its domain counts as none — a forger writes the From of a correspondent to borrow their
 * standing — while suppressions and complaints still count against it; a forged From on one of
 * this server's own domains counts as SPF and DKIM failed. `input` undefined: no message arrived,
 * the caller vouches for the address (POST /v1/classify with an agent).
 */
export async function senderHistory(ctx: AppContext, workspaceId: string, agentId: string, from: string, input: Pick<InboundInput, 'source' | 'mailFrom' | 'auth'> | undefined) {
  const auth = input?.auth;
  const trust: SenderTrust = input ? await trustOfSender(ctx, input, from) : 'authenticated';
  const trusted = trust === 'authenticated';
  const domain = from.split('@')[1] ?? '';
  const counts = trusted ? await senderCounts(ctx.db, workspaceId, from, domain) : { fromSender: 0, fromDomain: 0, repliesFromSender: 0 };
  // One read of the sender's suppression entries serves both the complaint count and whether it
  // is suppressed (findSuppression reads the consent allows only when there is an entry).
  const address = normalizeAddress(from);
  const entries = address ? await suppressionsFor(ctx.db, workspaceId, address, agentId) : [];
  const suppressed = entries.length ? (await findSuppression(ctx, workspaceId, agentId, address, 'live', entries)) !== null : false;
  return {
    messagesFromSender: counts.fromSender,
    messagesFromDomain: counts.fromDomain,
    repliesFromSender: counts.repliesFromSender,
    sendsToSender: trusted ? await sendsToSender(ctx, workspaceId, from) : 0,
    spfPass: trust === 'forged' ? false : auth?.spf ?? null,
    dkimPass: trust === 'forged' ? false : auth?.dkim ?? null,
    suppressed,
    complaints: entries.filter((e) => e.type === 'complaint').length,
  };
}

/** Our sent mail to the address (history for sender_reputation). */
async function sendsToSender(ctx: AppContext, workspaceId: string, address: string): Promise<number> {
  if (!address) return 0;
  return countSentTo(ctx.db, workspaceId, address);
}

const classificationFields = (c: Classification): ClassificationFields => ({
  intent: c.intent, urgency: c.urgency, injection_score: c.injection_score,
  injection_categories: [...c.injection_categories], sender_reputation: c.sender_reputation,
  entities: c.entities as Record<string, unknown>, classifier_model: c.classifier_model,
});

/**
 * The one inbound pipeline (SMTP, local delivery, the simulator): parse → route to agent(s) →
 * plus-address limits and held codes → classify → thread → store → event, all of a message's
 * rows and events in one transaction. Resolves only after the commit (an SMTP 250 follows it).
 */
export async function ingestInbound(ctx: AppContext, input: InboundInput, announced?: InboundAnnouncement): Promise<InboundResult> {
  const arrival = announced ?? announceInbound(ctx);
  try {
    const p = await prepareIngest(ctx, input);
    // One transaction per batch of concurrent messages (group commit: services/context.ts).
    if (p.store) await withTransactionKind('inbound.store', () => groupedTransaction(ctx, p.store!, arrival, { isolation: p.isolation }));
    return p.result;
  } finally {
    arrival.release();
  }
}

/** A message routed, parsed and classified: `store` is its unit of a (group) transaction; `result` is filled by it. */
export interface PreparedIngest {
  result: InboundResult;
  store: ((tx: Tx) => Promise<void>) | null;
  /** How `store` must be isolated where it is a transaction of its own (PostgreSQL; see storeIsolation). */
  isolation: Isolation;
}

/**
 * Everything of ingestInbound before its transaction (the inbound queue batches the stores of
 * several messages into one group commit itself: services/inbound-queue.ts).
 */
export async function prepareIngest(ctx: AppContext, input: InboundInput): Promise<PreparedIngest> {
  const result: InboundResult = { accepted: [], refused: [], stored: [] };
  const routes: Route[] = [];
  for (const rcpt of input.rcptTo) {
    const r = await routeRecipient(ctx, rcpt);
    if (r.kind === 'agent') routes.push({ rcpt, agent: r.agent, address: r.address, plus: r.plus, returnPath: r.returnPath });
    else result.refused.push({ rcpt, reason: r.reason });
  }
  if (!routes.length) {
    // Queued, and no recipient exists any more (archived since the 250): nothing to store.
    const q = input.queued;
    return {
      result, isolation: 'read committed',
      store: q ? async (tx) => { if (!(await deleteQueued(tx.db, q.id, true))) throw new AlreadyProcessed(q.id); } : null,
    };
  }
  const prepared = await prepareInbound(ctx, input, routes);
  return { result, store: prepared.store(result), isolation: prepared.isolation };
}

/**
 * The isolation of a message's store transaction on PostgreSQL. READ COMMITTED for ordinary mail
 * (the bulk of the traffic), because every read in it that a decision depends on is protected
 * by a lock or is insensitive to a concurrent writer, so it cannot lose a serialization conflict
 * and be run again (under SERIALIZABLE, 16 sessions into one mailbox ran ~65% of these
 * transactions again, as btree leaf pages shared by neighbouring inserts count as conflicts):
 * - the queue row: DELETE by id takes its row lock; a second daemon deleting it waits, then
 *   deletes nothing and gives up (AlreadyProcessed): stored and evented exactly once.
 * - the thread: read FOR NO KEY UPDATE before its count and participants are written back
 *   (threads.ts assignThread); a concurrent message of the thread waits and reads the result.
 * - Message-ID refs: inserted ON CONFLICT DO NOTHING under the (agent, Message-ID) key. A reply
 *   stored at the same instant as its parent may not see the parent's uncommitted ref and start
 *   a thread of its own: the outcome of storing it just before the parent, as a serial order
 *   could have (it cannot arrive before the parent was sent in the first place, except in tests).
 * - plus-address windows and the over-limit record cap: counted and written under a
 *   per-workspace advisory lock (received.ts lockPlusAddressWindow); READ COMMITTED reads each
 *   statement afresh, so the count after the lock includes every earlier holder's rows.
 * - events: ids in commit order by the event turn (events.ts orderEventWrite), an explicit
 *   lock held to commit; webhook endpoints are read as committed (an endpoint created during
 *   the transaction gets the event or not, as if created just after it).
 * - the workspace tier, routing and the classifier's sender history were read before (outside
 *   any transaction) on both engines already.
 * A delivery or feedback report about our own mail also updates sent messages, suppressions and
 * their events (feedback.ts), read-check-then-write sequences written for one writer at a time:
 * such a message keeps SERIALIZABLE. test/integration/cluster/concurrent-ingest.test.ts checks
 * thread counts and the plus-address window under concurrent sessions on both engines.
 */
function storeIsolation(report: MailReport | null): Isolation {
  return report ? 'serializable' : 'read committed';
}

/**
 * The injection score from which mail with a forged From on one of this server's own domains is
 * quarantined (other mail: QUARANTINE_THRESHOLD, 0.95). A judgment, not a measured point: an
 * outsider writing as the workspace's own address and scoring this high is an attack far more
 * often than not, and quarantined mail is still stored and evented.
 */
export const FORGED_QUARANTINE_THRESHOLD = 0.8;

/** One envelope recipient routed to an agent. */
type Route = { rcpt: string; agent: AgentRow; address: string; plus: string | null; returnPath?: VerifiedReturnPath };

/** A message on its way to ingestInbound, counted so a group commit waits for it. */
export type InboundAnnouncement = WriteAnnouncement;

/**
 * Announce a message before the work that precedes ingestInbound (the SMTP listener's SPF/DKIM
 * checks), then pass the announcement to ingestInbound, which releases it once the message has
 * joined the commit queue or failed. release() is idempotent.
 */
export function announceInbound(ctx: AppContext): InboundAnnouncement {
  return announceWrite(ctx);
}

/** Parse, route and classify one message (everything before its transaction). */
async function prepareInbound(
  ctx: AppContext, input: InboundInput, routes: Route[],
): Promise<{ store: (result: InboundResult) => (tx: Tx) => Promise<void>; isolation: Isolation }> {
  // Parse, extract and classify run in the worker pool (src/server/pipeline) under a per-message
  // budget; only the database work below stays on this thread.
  const work = workOf(ctx);
  const now = input.queued?.receivedAt ?? ctx.clock.now();

  // One copy per agent (an agent addressed twice, e.g. as name@ and name+tag@, gets one message).
  const byAgent = new Map<string, typeof routes>();
  for (const r of routes) byAgent.set(r.agent.id, [...(byAgent.get(r.agent.id) ?? []), r]);

  // One agent (the common case): read the history of the envelope sender first, so the pool can
  // classify in the same job as the parse when the From is that address (most mail: one trip to
  // a worker instead of two, and the text not sent back again). Otherwise it classifies below.
  const guess = (input.mailFrom ?? '').toLowerCase();
  const only = byAgent.size === 1 ? routes[0].agent : null;
  const along: ClassifyAlong | undefined = only && guess
    ? { mailFrom: input.mailFrom, expectFrom: guess, classifyIntent: only.classify_inbound, history: await senderHistory(ctx, only.workspace_id, only.id, guess, input), now }
    : undefined;
  const { parsed, extracted, truncated: parseCut, classification: early } = await work.parse(input.raw, along);
  const testMode = input.testMode ?? input.source === 'simulator';
  const fields = classifierFields(parsed, input.mailFrom);
  const { from, text } = fields;
  const trust = await trustOfSender(ctx, input, from);
  // Read once: the isolation, what mail at a return path is, and the feedback step all use it.
  const report = readReport(input.raw, parsed, input.mailFrom);

  // (session 14) A message whose MIME structure was not parsed (over 1,000 parts, or a parse cut at
  // the budget) was classified on its raw body bytes, which need not hold its bodies whole: it fails
  // closed, as a classification cut short does (docs/inbound.md "Processing pipeline").
  const unparsed = bodiesUnread(parsed);
  const prepared: { routes: typeof routes; classification: Classification; truncated: boolean }[] = [];
  for (const group of byAgent.values()) {
    if (early) {
      prepared.push({ routes: group, classification: unparsed ? failClosed(early) : early, truncated: parseCut });
      continue;
    }
    const agent = group[0].agent;
    const history = await senderHistory(ctx, agent.workspace_id, agent.id, from, input);
    const c = await work.classify({ ...fields, classifyIntent: agent.classify_inbound, history }, now);
    prepared.push({ routes: group, classification: unparsed ? failClosed(c.classification) : c.classification, truncated: parseCut || c.truncated || unparsed });
  }

  // Large attachments of a queued message go to disk from the writer thread, now: the main
  // thread's transaction then only names them (docs/inbound.md → Large messages).
  const written = new Map<number, string>();
  const q = input.queued;
  if (q?.writeBlobs) {
    const big = parsed.attachments.flatMap((a, i) => (isLarge(a.content.length) ? [{ id: `${q.id}.a${i}`, data: a.content, i }] : []));
    if (big.length) {
      // Moved to the thread (not copied) unless a second agent's copy will need the bytes here.
      await q.writeBlobs(big.map(({ id, data }) => ({ id, data })), byAgent.size === 1);
      for (const b of big) written.set(b.i, b.id);
    }
  }

  return {
    isolation: storeIsolation(report),
    store: (result) => {
      const routedAccepted = result.accepted.length;
      const routedRefused = result.refused.length;
      return async (tx) => {
        // The unit may run more than once (group commit, services/context.ts): start again from
        // what routing decided before it.
        result.accepted.length = routedAccepted;
        result.refused.length = routedRefused;
        result.stored!.length = 0;
        // The queue row goes in the same transaction as the message and its events: exactly once.
        if (input.queued && !(await deleteQueued(tx.db, input.queued.id))) throw new AlreadyProcessed(input.queued.id);
        // One stored copy owns the queued blob; another agent's copy writes its own.
        const tail: Derived['tail'] = { unused: input.storedTail, attachments: written.size ? written : undefined };
        for (const { routes: group, classification, truncated } of prepared) {
          const stored = await storeForAgent(ctx, tx, input, parsed, group, classification, { from, text, extracted, testMode, now, truncated, tail, trust, report });
          if (!stored) {
            for (const r of group) result.refused.push({ rcpt: r.rcpt, reason: 'the mailbox refuses more mail this hour (over-limit records are capped at 20 per hour)' });
            continue;
          }
          result.stored!.push(stored);
          for (const r of group) result.accepted.push({ rcpt: r.rcpt, messageId: stored.messageId });
        }
        // No copy kept the bytes (records only, or refused): the queued blob goes with the row.
        if (tail.unused) await deleteBlobs(tx.db, [tail.unused.blobId]);
        if (tail.attachments) await deleteBlobs(tx.db, [...tail.attachments.values()]);
      };
    },
  };
}

interface Derived {
  from: string;
  text: string;
  extracted: string;
  testMode: boolean;
  now: number;
  /** The pool cut parsing or classification short (budget): stored as extraction_truncated. */
  truncated: boolean;
  /**
   * What is on disk already while no copy has taken it over: the queued blob
   * (InboundInput.storedTail) and the attachments the writer thread wrote (index → blob id).
   */
  tail: { unused?: StoredTail; attachments?: ReadonlyMap<number, string> };
  /** How far the From is vouched for (sender-trust.ts). */
  trust: SenderTrust;
  /** The message read as a delivery or feedback report (mail/dsn.ts), or null. */
  report: MailReport | null;
}

async function storeForAgent(
  ctx: AppContext, tx: Tx, input: InboundInput, parsed: ParsedInbound,
  group: Route[],
  classification: Classification, d: Derived,
): Promise<StoredInbound | null> {
  const agent = group[0].agent;
  const route = group.find((r) => !r.plus && !r.returnPath) ?? group.find((r) => !r.plus) ?? group[0];
  const plus = route.plus;
  const id = input.queued?.messageIds.get(agent.id) ?? newId('rcv', ctx.clock);
  const returnPath = group.find((r) => r.returnPath)?.returnPath ?? null;
  if (group.every((r) => r.returnPath) && !d.report) {
    // A return path takes delivery reports only: anything else sent to one (an auto-reply that
    // answered the envelope sender, RFC 3834 §4; spam to a leaked address) is accepted and
    // dropped, never stored as the agent's mail (docs/outbound.md → Return path).
    ctx.log.info({ agent_id: agent.id, rcpt: route.address, message_id: returnPath?.messageId, from: d.from }, 'return path: not a delivery report, dropped');
    tx.afterCommit(() => ctx.bus.emit('report', 'discarded'));
    return { messageId: id, agentId: agent.id, threadId: null, eventId: null, eventType: null, quarantined: false, classification: null, overLimit: null, dropped: 'not_a_report' };
  }
  const at = isoAt(d.now);
  const fromDomain = d.from.split('@')[1] ?? '';

  // Spec: Limits → Plus addresses. The simulator is not counted.
  let overLimit: OverLimit | null = null;
  let heldWhy: string | undefined;
  if (plus && input.source !== 'simulator') {
    await lockPlusAddressWindow(tx.db, agent.workspace_id);
    if (isHeldCode(fromDomain, parsed.subject, d.text, classification)) overLimit = 'held_code';
    else {
      // The tier sets the plus-address window; only plus-addressed mail reads it (one statement
      // fewer for every other message).
      const ws = await getWorkspace(tx.db, agent.workspace_id);
      // Mail no one vouches for opens new plus addresses only within its shares of the limit.
      const opener = { unauthenticated: d.trust !== 'authenticated', fromDomain };
      const decision = await plusAddressDecision(tx.db, agent.workspace_id, ws?.tier ?? 'free', plus, d.now, opener);
      if (decision !== 'ok') {
        overLimit = 'plus_address_limit';
        if (typeof decision === 'object') heldWhy = decision.over_share;
      }
    }
    if (overLimit) {
      if (!(await recordCapLeft(tx.db, agent.workspace_id, d.now))) return null;
    } else {
      await admitPlusAddress(tx.db, agent.workspace_id, plus, d.now);
    }
  }

  const trustedNetwork = input.auth?.trustedNetwork ?? null;
  const base: ReceivedRow = {
    id, workspace_id: agent.workspace_id, agent_id: agent.id, thread_id: null, rfc_message_id: null, in_reply_to: null,
    references: [], from_address: d.from, from_name: null, from_domain: fromDomain, to: [], cc: [],
    recipient: route.address, plus_address: plus, subject: '', text: null, html: null, extracted_text: null, excerpt: '',
    // Trusted-network mail counts as authenticated (routing, reputation) but was not checked: the
    // record says what is true, SPF/DKIM null (not checked) and the network it came from.
    headers: [], size: input.raw.length, spf_pass: trustedNetwork ? null : input.auth?.spf ?? null,
    dkim_pass: trustedNetwork ? null : input.auth?.dkim ?? null, trusted_network: trustedNetwork,
    dmarc: input.auth?.dmarc ?? null, classification: null, quarantined: false, test_mode: d.testMode, over_limit: overLimit,
    source: input.source, answers_message_id: null, event_id: null, event_type: null,
    remote_address: input.remoteAddress ?? null, received_at: at, extraction_truncated: d.truncated, read_at: null,
  };

  if (overLimit) {
    // A record of sender, recipient and time only; no body is kept. Its event first, so the row
    // is inserted with the event's id (no UPDATE of the row just written).
    let eventId: string | null = null;
    let eventType: EventType | null = null;
    if (overLimit === 'plus_address_limit') {
      const ev = await emitEvent(ctx, tx, {
        type: 'message.received.over_limit', workspaceId: agent.workspace_id, agentId: agent.id, threadId: null,
        sourceMessageId: id, testMode: d.testMode, classification: classificationFields(classification), quarantined: false,
        data: {
          message_id: id, from: d.from, to: route.address, plus_address: plus, subject: null, body_text_excerpt: null,
          thread_id: null, source_message_id: id, over_limit: overLimit, received_at: at,
        },
      });
      eventId = ev.id;
      eventType = 'message.received.over_limit';
    }
    await insertReceived(tx.db, { ...base, event_id: eventId, event_type: eventType }, null);
    return { messageId: id, agentId: agent.id, threadId: null, eventId, eventType, quarantined: false, classification: null, overLimit, ...(heldWhy ? { heldWhy } : {}) };
  }

  const thread = await assignThread(ctx, tx, {
    workspaceId: agent.workspace_id, agentId: agent.id, subject: parsed.subject, direction: 'inbound', messageId: id,
    rfcMessageId: parsed.messageId, inReplyTo: parsed.inReplyTo, references: parsed.references,
    // A report at a return path is the agent's: the return path is no participant of a conversation.
    participants: [d.from, route.returnPath ? agent.email : route.address].filter(Boolean), testMode: d.testMode, at: d.now, deferEvent: true,
    // A sender nothing vouches for joins a conversation's participants only if already one of them.
    guests: d.trust === 'authenticated' ? undefined : [d.from],
  });
  // reply.received (and answers_message_id, which counts as the sender's reply to us in their
  // reputation) only from a party to the conversation: threading follows References whoever
  // writes, but a stranger quoting our Message-ID is not the recipient answering
  // (docs/inbound.md → Replies).
  const party = thread.priorParticipants?.includes(d.from.toLowerCase()) === true;
  const answers = thread.answers?.direction === 'outbound' && party ? thread.answers.message_id : null;
  // A forged From on this server's own domain (sender-trust.ts) is itself evidence of an attack on
  // the agent: such mail is quarantined from a lower injection score (docs/inbound.md → Who sent it).
  const quarantined = isQuarantined(classification)
    || (d.trust === 'forged' && classification.injection_score >= FORGED_QUARANTINE_THRESHOLD);
  const excerpt = excerptOf(d.extracted || d.text);
  const row: ReceivedRow = {
    ...base, thread_id: thread.threadId, rfc_message_id: parsed.messageId, in_reply_to: parsed.inReplyTo,
    references: parsed.references, from_name: parsed.from?.name ?? null, to: parsed.to, cc: parsed.cc,
    subject: parsed.subject, text: parsed.text, html: parsed.html, extracted_text: d.extracted, excerpt,
    headers: parsed.headers, classification: classification as unknown as Record<string, unknown>, quarantined,
    answers_message_id: answers,
  };
  const written = d.tail.attachments;
  d.tail.attachments = undefined;
  const attachments: NewAttachment[] = parsed.attachments.map((a, i) => ({
    id: newId('att', ctx.clock), filename: a.filename === null ? null : receivedFileName(a.filename), content_type: a.contentType, content_id: a.contentId,
    disposition: a.disposition, size: a.size, sha256: a.sha256, content: a.content, storedBlob: written?.get(i),
  }));
  // compat.md: both SPF and DKIM failing → message.received.unauthenticated instead; so does a
  // forged From on one of this server's own domains (sender-trust.ts), marked sender_forged.
  const forged = d.trust === 'forged';
  const type: EventType = forged || (input.auth?.spf === false && input.auth?.dkim === false)
    ? 'message.received.unauthenticated'
    : answers ? 'reply.received' : 'message.received';
  // The events go last but one: on PostgreSQL the first event takes the cluster's event turn,
  // held until commit (db/repos/events.ts orderEventWrite), so everything that needs no event id
  // (the thread, its refs) is written before it. The message row follows its event, carrying the
  // event's id (no UPDATE of the row just inserted: a second write of a wide row, and, under
  // SERIALIZABLE, a read of the primary key's page every concurrent ingest inserts into).
  if (thread.event) await emitEvent(ctx, tx, thread.event);
  const ev = await emitEvent(ctx, tx, {
    type, workspaceId: agent.workspace_id, agentId: agent.id, threadId: thread.threadId, sourceMessageId: id,
    testMode: d.testMode, classification: classificationFields(classification), quarantined,
    data: {
      message_id: id, from: d.from, from_name: row.from_name, to: route.address, plus_address: plus,
      subject: row.subject, body_text_excerpt: excerpt, extracted_text: d.extracted.slice(0, 4000), thread_id: thread.threadId,
      source_message_id: id, in_reply_to_message_id: answers, rfc_message_id: parsed.messageId,
      spf_pass: row.spf_pass, dkim_pass: row.dkim_pass, ...(row.trusted_network ? { trusted_network: row.trusted_network } : {}),
      ...(forged ? { sender_forged: true } : {}),
      attachments: attachments.length, received_at: at,
    },
  });
  const tail = d.tail.unused;
  d.tail.unused = undefined;
  await insertReceived(tx.db, { ...row, event_id: ev.id, event_type: ev.type }, input.raw, attachments, tail);
  // A bounce or complaint about our own mail: its events and suppressions join this transaction.
  await recordFeedback(ctx, tx, {
    workspaceId: agent.workspace_id, agentId: agent.id, receivedId: id, report: d.report, parsed, testMode: d.testMode, returnPath, source: input.source,
  });
  return {
    messageId: id, agentId: agent.id, threadId: thread.threadId, eventId: ev.id, eventType: type, quarantined,
    classification, overLimit: null,
  };
}

