import type { EventType } from '../contract/events.js';
import { getSentMessage, type SentMessageRow } from '../db/repos/messages.js';
import { eventsAboutMessage, outboundRef } from '../db/repos/feedback.js';
import type { InboundSource } from '../db/repos/received.js';
import type { MailReport, ReportRecipient } from '../mail/dsn.js';
import type { ParsedInbound } from '../mail/parse.js';
import { isoAt } from '../shared/clock.js';
import type { AppContext, Tx } from './context.js';
import { emitEvent } from './events.js';
import { addSuppression } from './suppression.js';
import { checkReturnPath, recipientsOf, type VerifiedReturnPath } from './return-path.js';

/**
 * Delivery feedback about mail we sent: what the next hop said when we handed a message over
 * (`message.delivered`), and what comes back later as mail — delivery-status notifications
 * (RFC 3464 → `message.bounced` / `message.delayed` / `message.delivered`) and abuse reports
 * (RFC 5965 ARF → `message.complained`). Hard bounces and complaints suppress the address for
 * the workspace (`suppression.added`), except for test-mode mail.
 *
 * Anyone can mail a report naming any address and any Message-ID, so a report is applied only
 * where it proves itself (docs/resources.md → Which reports count): it arrived at a signed return
 * path (services/return-path.ts), which names the one message and recipient it may be about, or,
 * for an abuse complaint delivered elsewhere (a feedback loop's address), the copy it returns
 * carries such a return path. Its own claims about other recipients or messages are ignored.
 * Anything else is stored as ordinary mail and changes nothing.
 */

export interface FeedbackInput {
  workspaceId: string;
  /** The agent the report was delivered to. */
  agentId: string;
  /** The report as stored (its rcv_ id). */
  receivedId: string;
  /** The message read as a report (mail/dsn.ts readReport), or null. */
  report: MailReport | null;
  parsed: ParsedInbound;
  testMode: boolean;
  /** The verified return path it was delivered to (services/inbound.ts routeRecipient), if any. */
  returnPath: VerifiedReturnPath | null;
  source: InboundSource;
}

export interface FeedbackOutcome {
  sentMessageId: string;
  events: { id: string; type: EventType; recipient: string | null }[];
  suppressed: string[];
}

const MSG_ID_RE = /^(msg_[0-9a-z]{26})@/i;

/** Our sent message a simulated report is about: the agent's outbound refs, else our own `msg_…@domain` form. */
async function findSent(tx: Tx, workspaceId: string, agentId: string, rfcIds: string[]): Promise<SentMessageRow | undefined> {
  const viaRefs = await outboundRef(tx.db, agentId, rfcIds);
  if (viaRefs) {
    const row = await getSentMessage(tx.db, workspaceId, viaRefs);
    if (row) return row;
  }
  for (const id of rfcIds) {
    const m = MSG_ID_RE.exec(id);
    if (!m) continue;
    const row = await getSentMessage(tx.db, workspaceId, m[1].toLowerCase());
    if (row && row.rfc_message_id.toLowerCase() === id.toLowerCase()) return row;
  }
  return undefined;
}

/** The address we mailed that a report line is about: Original-Recipient first (RFC 3464 §2.3.1), then Final-Recipient. */
function matchRecipient(r: ReportRecipient, ours: Set<string>): string | null {
  for (const a of [r.originalRecipient, r.finalRecipient]) if (a && ours.has(a)) return a;
  return null;
}

type Outcome = { type: 'message.bounced'; bounceType: 'hard' | 'soft' } | { type: 'message.delayed' } | { type: 'message.delivered' };

/**
 * RFC 3464 §2.3.3 Action with §2.3.4 Status (RFC 3463 classes): `failed` + 5.x.x is a permanent
 * (hard) bounce; `failed` with 4.x.x (given up after retries) or no status is a soft bounce;
 * `delayed` (or a bare 4.x.x) is a delay; `delivered`/`relayed`/`expanded` are successes.
 */
function outcomeOf(r: ReportRecipient): Outcome | null {
  const cls = r.status?.[0];
  const action = r.action ?? (cls === '5' ? 'failed' : cls === '4' ? 'delayed' : cls === '2' ? 'delivered' : null);
  if (action === 'failed') return { type: 'message.bounced', bounceType: cls === '5' ? 'hard' : 'soft' };
  if (action === 'delayed') return { type: 'message.delayed' };
  if (action === 'delivered' || action === 'relayed' || action === 'expanded') return { type: 'message.delivered' };
  return null;
}

/** How a report proved what it is about (the events' `verified_by`). */
type VerifiedBy = 'return_path' | 'returned_original' | 'simulator';

/**
 * The message and the recipients a report may change, or null (not proved: nothing is applied).
 * - At a verified return path: its message, its one recipient.
 * - An abuse complaint elsewhere: the returned copy's envelope sender (Original-Mail-From or the
 *   Return-Path the recipient's MTA wrote), if it is a return path of ours for a message of this
 *   workspace; its one recipient — a complaint is the complainer's, about themselves.
 * - The simulator (a test key) about a test-mode send: as it names it (test-mode events only,
 *   which never suppress or count).
 */
async function proved(ctx: AppContext, tx: Tx, input: FeedbackInput, report: MailReport): Promise<{ sent: SentMessageRow; ours: Set<string>; only: string | null; by: VerifiedBy } | null> {
  if (input.returnPath) {
    const sent = await getSentMessage(tx.db, input.workspaceId, input.returnPath.messageId);
    return sent ? { sent, ours: new Set([input.returnPath.recipient]), only: input.returnPath.recipient, by: 'return_path' } : null;
  }
  if (report.type === 'feedback') {
    for (const address of report.originalMailFrom.slice(0, 4)) {
      const v = await checkReturnPath(ctx, address, tx.db);
      if (v.kind === 'verified' && v.sent.workspace_id === input.workspaceId) return { sent: v.sent, ours: new Set([v.recipient]), only: v.recipient, by: 'returned_original' };
    }
  }
  if (input.source === 'simulator' && input.testMode) {
    const sent = await findSent(tx, input.workspaceId, input.agentId, report.originalMessageIds);
    if (sent?.test_mode) return { sent, ours: recipientsOf(sent), only: null, by: 'simulator' };
  }
  return null;
}

/**
 * Called by the inbound pipeline for every stored message, inside its transaction, after the
 * message and its own event are written: when the message is a report that proves it is about
 * mail this workspace sent (proved), the report's events and suppressions join the same
 * transaction. Anything else (an ordinary message, a report not at a signed return path) returns
 * null and changes nothing.
 */
export async function recordFeedback(ctx: AppContext, tx: Tx, input: FeedbackInput): Promise<FeedbackOutcome | null> {
  const report = input.report;
  if (!report) return null;
  if (report.type === 'feedback' && report.feedbackType !== 'abuse') return null;
  const target = await proved(ctx, tx, input, report);
  // Counted once committed (mailagent_delivery_reports_total): a retried unit counts once.
  tx.afterCommit(() => ctx.bus.emit('report', target ? 'applied' : 'unverified'));
  if (!target) {
    // Kept as the agent's mail (its message.received event); no event or suppression about any message.
    ctx.log.info({ agent_id: input.agentId, report: input.receivedId, report_format: report.format, report_type: report.type },
      'delivery report not at a signed return path: stored as mail, not applied');
    return null;
  }
  const { sent } = target;
  // Spec: test keys skip suppression. A report about a test send, or one injected through the
  // simulator, is recorded as test-mode and never blocks an address or counts against reputation.
  const testMode = input.testMode || sent.test_mode;
  const out: FeedbackOutcome = { sentMessageId: sent.id, events: [], suppressed: [] };
  if (report.type === 'feedback') await complaint(ctx, tx, input, report, target, testMode, out);
  else await deliveryStatus(ctx, tx, input, report, target, testMode, out);
  return out.events.length ? out : null;
}

async function alreadyRecorded(tx: Tx, sent: SentMessageRow, type: EventType, recipient: string | null, reportMessageId: string | null): Promise<boolean> {
  const seen = await eventsAboutMessage(tx.db, sent.workspace_id, type, sent.id);
  return seen.some((e) => e.data.recipient === recipient
    // A delay may be reported more than once (each notice is news); the same notice twice is not.
    && (type !== 'message.delayed' || e.data.report_rfc_message_id === reportMessageId));
}

type Target = NonNullable<Awaited<ReturnType<typeof proved>>>;

async function deliveryStatus(
  ctx: AppContext, tx: Tx, input: FeedbackInput, report: MailReport, target: Target, testMode: boolean, out: FeedbackOutcome,
): Promise<void> {
  const { sent, ours, only } = target;
  const at = isoAt(ctx.clock.now());
  const handled = new Set<string>();
  let lines = report.recipients.map((r) => ({ r, recipient: matchRecipient(r, ours) }));
  // At a return path the copy went to one recipient: a notice that names nobody (a non-standard
  // bounce that quotes no address) is about them. One that names someone else is not reattributed.
  // (The sender's own address in a notice, "your message from agent@… could not be delivered", names no one.)
  if (only && !lines.some((l) => l.recipient)) {
    const sender = sent.from_address.toLowerCase();
    const namesSomeone = (r: ReportRecipient) => [r.originalRecipient, r.finalRecipient].some((a) => a !== null && a !== sender);
    const l = lines.find((x) => !namesSomeone(x.r) && outcomeOf(x.r));
    lines = l ? [{ r: l.r, recipient: only }] : [];
  }
  for (const { r, recipient } of lines) {
    const outcome = outcomeOf(r);
    if (!recipient || !outcome || handled.has(recipient)) continue;
    handled.add(recipient);
    if (await alreadyRecorded(tx, sent, outcome.type, recipient, input.parsed.messageId)) continue;
    const details = {
      action: r.action, status: r.status, diagnostic_code: r.diagnosticCode, remote_mta: r.remoteMta, reporting_mta: report.reportingMta,
    };
    const about = {
      report_format: report.format, report_message_id: input.receivedId, report_rfc_message_id: input.parsed.messageId, verified_by: target.by, reported_at: at,
    };
    if (outcome.type === 'message.bounced') {
      const b = await recordBounce(ctx, tx, sent, {
        recipient, bounceType: outcome.bounceType, testMode, data: { ...details, ...about },
        reason: `${r.status ?? ''} ${r.diagnosticCode ?? 'permanent delivery failure'}`,
      });
      out.events.push({ id: b.eventId, type: outcome.type, recipient });
      if (b.suppressed) out.suppressed.push(recipient);
      continue;
    }
    const ev = await emitEvent(ctx, tx, {
      type: outcome.type, workspaceId: sent.workspace_id, agentId: sent.agent_id, threadId: sent.thread_id,
      sourceMessageId: sent.id, testMode,
      data: {
        message_id: sent.id, rfc_message_id: sent.rfc_message_id, recipient, ...details,
        ...(outcome.type === 'message.delivered' ? { transport: 'dsn' } : {}),
        ...about,
      },
    });
    out.events.push({ id: ev.id, type: outcome.type, recipient });
  }
}

/**
 * One recipient's bounce, whoever reported it (a DSN that came back as mail, or the relay refusing
 * the RCPT TO synchronously): `message.bounced` in the caller's transaction and, for a hard bounce
 * of live mail, a workspace `hard_bounce` suppression (spec: test keys skip suppression).
 */
export async function recordBounce(
  ctx: AppContext, tx: Tx, sent: SentMessageRow,
  b: { recipient: string; bounceType: 'hard' | 'soft'; testMode: boolean; reason: string; data: Record<string, unknown> },
): Promise<{ eventId: string; suppressed: boolean }> {
  const ev = await emitEvent(ctx, tx, {
    type: 'message.bounced', workspaceId: sent.workspace_id, agentId: sent.agent_id, threadId: sent.thread_id,
    sourceMessageId: sent.id, testMode: b.testMode,
    data: { message_id: sent.id, rfc_message_id: sent.rfc_message_id, recipient: b.recipient, ...b.data, bounce_type: b.bounceType },
  });
  let suppressed = false;
  if (b.bounceType === 'hard' && !b.testMode) {
    const { created } = await addSuppression(ctx, tx, {
      workspaceId: sent.workspace_id, agentId: sent.agent_id, address: b.recipient, type: 'hard_bounce',
      sourceMessageId: sent.id, reason: b.reason.trim().slice(0, 500) || 'permanent delivery failure', testMode: false,
    });
    suppressed = created;
  }
  return { eventId: ev.id, suppressed };
}

/** RFC 3463 enhanced status code in a reply line (`550 5.1.1 …` → `5.1.1`), else the basic code's class (`5.0.0`). */
function enhancedStatus(responseCode: number, response: string): string {
  const m = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response.trim());
  return m ? m[1] : `${String(responseCode)[0]}.0.0`;
}

/**
 * The relay accepted the message for some recipients and refused others at RCPT TO. A refusal
 * there is the relay bouncing that recipient synchronously, so it is recorded like a DSN bounce:
 * 5xx = hard (suppressed), 4xx = soft (the relay will not retry a recipient it never took).
 * Called in the transaction that records the send.
 */
export async function recordRcptRefusals(
  ctx: AppContext, tx: Tx, sent: SentMessageRow, refusals: { recipient: string; responseCode: number; response: string }[],
): Promise<void> {
  const at = isoAt(ctx.clock.now());
  const seen = new Set<string>();
  for (const r of refusals) {
    const recipient = r.recipient.toLowerCase();
    if (seen.has(recipient)) continue;
    seen.add(recipient);
    await recordBounce(ctx, tx, sent, {
      recipient, bounceType: r.responseCode >= 500 ? 'hard' : 'soft', testMode: sent.test_mode, reason: r.response,
      data: {
        status: enhancedStatus(r.responseCode, r.response), response_code: r.responseCode, response: r.response,
        diagnostic_code: `smtp; ${r.response}`, source: 'relay_rcpt', reported_at: at,
      },
    });
  }
}

/**
 * A scheduled send the relay deferred (4xx): `message.delayed` the first time only (later
 * deferrals of the same message are retries of the same delay, not news), with the relay's reply
 * and when the scheduler tries again.
 */
export async function recordRelayDeferral(
  ctx: AppContext, tx: Tx, sent: SentMessageRow, d: { responseCode: number | null; response: string; recipients: string[]; nextAttemptAt: string },
): Promise<boolean> {
  const seen = await eventsAboutMessage(tx.db, sent.workspace_id, 'message.delayed', sent.id);
  if (seen.some((e) => e.data.source === 'relay_defer')) return false;
  await emitEvent(ctx, tx, {
    type: 'message.delayed', workspaceId: sent.workspace_id, agentId: sent.agent_id, threadId: sent.thread_id,
    sourceMessageId: sent.id, testMode: sent.test_mode,
    data: {
      message_id: sent.id, rfc_message_id: sent.rfc_message_id, recipients: d.recipients,
      status: d.responseCode ? enhancedStatus(d.responseCode, d.response) : null, response_code: d.responseCode, response: d.response,
      source: 'relay_defer', next_attempt_at: d.nextAttemptAt, reported_at: isoAt(ctx.clock.now()),
    },
  });
  return true;
}

async function complaint(
  ctx: AppContext, tx: Tx, input: FeedbackInput, report: MailReport, target: Target, testMode: boolean, out: FeedbackOutcome,
): Promise<void> {
  const { sent, ours, only } = target;
  // A verified complaint is the one recipient's, whatever Original-Rcpt-To (optional, often
  // redacted: RFC 5965 §3.2) or the returned copy's To say. Simulated: those, then the sent
  // message itself when it had a single recipient.
  let who = only ? [only] : report.recipients.map((r) => r.originalRecipient).filter((a): a is string => a !== null && ours.has(a));
  if (!who.length) who = report.originalRecipients.filter((a) => ours.has(a));
  if (!who.length && ours.size === 1) who = [...ours];
  const recipients: (string | null)[] = who.length ? [...new Set(who)] : [null];
  const at = isoAt(ctx.clock.now());
  for (const recipient of recipients) {
    if (await alreadyRecorded(tx, sent, 'message.complained', recipient, null)) continue;
    const ev = await emitEvent(ctx, tx, {
      type: 'message.complained', workspaceId: sent.workspace_id, agentId: sent.agent_id, threadId: sent.thread_id,
      sourceMessageId: sent.id, testMode,
      data: {
        message_id: sent.id, rfc_message_id: sent.rfc_message_id, recipient, feedback_type: report.feedbackType,
        user_agent: report.userAgent, report_format: report.format, report_message_id: input.receivedId,
        report_rfc_message_id: input.parsed.messageId, verified_by: target.by, reported_at: at,
      },
    });
    out.events.push({ id: ev.id, type: 'message.complained', recipient });
    if (recipient && !testMode) {
      const { created } = await addSuppression(ctx, tx, {
        workspaceId: sent.workspace_id, agentId: sent.agent_id, address: recipient, type: 'complaint',
        sourceMessageId: sent.id, reason: `abuse report${report.userAgent ? ` from ${report.userAgent}` : ''}`, testMode: false,
      });
      if (created) out.suppressed.push(recipient);
    }
  }
}

/**
 * `message.delivered`: the message was handed to its final transport and accepted — stored in the
 * mailbox of an agent of this instance (`transport: local`), or accepted with a 250 by the SMTP
 * relay (`transport: relay`: "accepted by the next hop", not proof of inbox placement).
 */
export async function emitDelivered(
  ctx: AppContext, tx: Tx, row: SentMessageRow, d: { transport: 'local' | 'relay'; recipients: string[]; response?: string | null },
): Promise<void> {
  await emitEvent(ctx, tx, {
    type: 'message.delivered', workspaceId: row.workspace_id, agentId: row.agent_id, threadId: row.thread_id,
    sourceMessageId: row.id, testMode: row.test_mode,
    data: {
      message_id: row.id, rfc_message_id: row.rfc_message_id, transport: d.transport, recipients: d.recipients,
      ...(d.response !== undefined ? { response: d.response } : {}),
      transport_message_id: row.transport_message_id, delivered_at: isoAt(ctx.clock.now()),
    },
  });
}
