import type { Draft, DraftCreate, DraftListQuery, DraftSendRequest, DraftSendResult, DraftUpdate } from '../contract/drafts.js';
import type { PageOf } from '../contract/common.js';
import { ApiError } from '../contract/errors.js';
import { liveAgents, type AgentRow } from '../db/repos/agents.js';
import {
  claimDueDrafts, stalledDrafts, getDraft, insertDraft, listDrafts, transitionDraft, updateDraft, type DraftRow, type DraftStatus,
  draftBlobId, draftBlobIds, isDraftBlobRef, deleteDraftBlobs, readDraftBlob, writeDraftBlobs, type DraftBlobRef,
} from '../db/repos/drafts.js';
import { inTransactionChain } from '../db/open.js';
import { liftedAttachment, setLiftedAttachment } from '../shared/lifted-attachments.js';
import type { Mailbox } from '../mail/address.js';
import { excerptOf } from '../mail/extract.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isoAt, MINUTE } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext, type Tx, type WriteAnnouncement } from './context.js';
import { hasScope } from './auth.js';
import { resolveAgent } from './agents.js';
import { checkScheduleHorizon } from './limits.js';
import { emitEvent } from './events.js';
import { checkAttachmentTotal, findOriginal, normalizeSendRequest, sendMessage } from './send.js';
import { pageOf } from '../db/paginate.js';

/**
 * The API shape of a draft; list items (`set: 'list'`) carry `body_text_excerpt` instead of the
 * bodies (the row's body_text is a prefix there: db/repos/drafts.ts listDrafts).
 */
export function toDraft(r: DraftRow, set: 'full' | 'list' = 'full'): Draft {
  return {
    id: r.id, object: 'draft', agent_id: r.agent_id, to: r.to, cc: r.cc, bcc: r.bcc, subject: r.subject,
    ...(set === 'list' ? { body_text_excerpt: excerptOf(r.body_text) } : { body_text: r.body_text, body_html: r.body_html }),
    status: r.status, send_at: r.send_at, sent_message_id: r.sent_message_id,
    thread_id: r.thread_id, error_message: r.error_message, tags: r.tags, metadata: r.metadata, test_mode: r.mode === 'test',
    sent_at: r.sent_at, created_at: r.created_at, updated_at: r.updated_at,
  };
}

const fmt = (m: Mailbox) => (m.name ? `${m.name} <${m.address}>` : m.address);
const EXTRA_FIELDS = ['reply_to', 'attachments', 'in_reply_to_message_id', 'references'] as const;
/** Fields that may be edited once a draft exists (everything but its agent). */
type Content = Omit<DraftCreate, 'agent' | 'from' | 'send_at'>;

interface DraftContent {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body_text: string | null;
  body_html: string | null;
  tags: { name: string; value: string }[];
  metadata: Record<string, string>;
  extra: Record<string, unknown>;
  /** Attachments to store as blobs before the row that names them (storeWithBlobs). */
  blobs: { id: string; data: Buffer }[];
}

type AttachmentItem = NonNullable<Content['attachments']>[number];
/** An attachment item without its bytes: what a stored blob reference is checked as (its size counted apart). */
const bytelessItem = (a: { filename: string; content_type?: string }): AttachmentItem =>
  ({ filename: a.filename, ...(a.content_type !== undefined ? { content_type: a.content_type } : {}), content_base64: '' });

/**
 * Validate a draft's content exactly as a send would (the same addresses, limits and params), but
 * nothing is required yet: a draft may lack recipients, subject or body until it is sent.
 *
 * Attachments (issue #13): a large one in a request body arrives decoded (the body worker lifted
 * it: server/http/body-lift.ts, shared/lifted-attachments.ts) and is stored as a blob (`blobs`,
 * written before the row: storeWithBlobs), its item in `extra` a DraftBlobRef; a small one stays
 * base64 in `extra`, as every attachment did before. `stored`: the items of the draft being
 * edited that are blob references already (an edit keeps them unless it replaces the list);
 * they count by their size, their bytes are not read.
 */
function validateContent(ctx: AppContext, draftId: string, c: Content, stored: ReadonlySet<object> = new Set()): DraftContent {
  const body_text = c.body_text ?? c.text ?? c.body ?? null;
  const body_html = c.body_html ?? c.html ?? null;
  let storedBytes = 0;
  const attachments = c.attachments?.map((a) => {
    if (!stored.has(a)) return a;
    storedBytes += (a as unknown as DraftBlobRef).size;
    return bytelessItem(a);
  });
  // A stored draft holds NULL where a send request leaves the field out.
  const fields = Object.fromEntries(Object.entries({ ...c, attachments, body_text, body_html, text: undefined, html: undefined, body: undefined })
    .filter(([, v]) => v !== undefined && v !== null));
  const n = normalizeSendRequest(fields, { requireTo: false, requireSubject: false, requireBody: false });
  if (storedBytes) checkAttachmentTotal(n.attachments.reduce((t, a) => t + a.content.length, storedBytes));
  const extra: Record<string, unknown> = {};
  for (const k of EXTRA_FIELDS) if (c[k] !== undefined && c[k] !== null) extra[k] = c[k];
  const blobs: DraftContent['blobs'] = [];
  if (c.attachments) {
    extra.attachments = c.attachments.map((a): AttachmentItem | DraftBlobRef => {
      if (stored.has(a)) return a;
      const bytes = liftedAttachment(a, a.content_base64 !== undefined ? 'content_base64' : 'content');
      if (!bytes) return a;
      const id = draftBlobId(draftId, newId('att', ctx.clock));
      blobs.push({ id, data: bytes });
      return { filename: a.filename, ...(a.content_type !== undefined ? { content_type: a.content_type } : {}), blob: id, size: bytes.length };
    });
  }
  return {
    to: n.to.map(fmt), cc: n.cc.map(fmt), bcc: n.bcc.map(fmt), subject: n.subject ?? '', body_text: n.text, body_html: n.html,
    tags: n.tags, metadata: n.metadata, extra, blobs,
  };
}

function contentOf(r: DraftRow): Content {
  return {
    to: r.to, cc: r.cc, bcc: r.bcc, subject: r.subject, body_text: r.body_text, body_html: r.body_html, tags: r.tags,
    metadata: r.metadata, ...(r.extra as Partial<Content>),
  };
}

/** A stored draft's attachment items that are blob references (validateContent's `stored`). */
function storedRefs(r: DraftRow): Set<object> {
  const list = r.extra.attachments;
  return new Set(Array.isArray(list) ? list.filter((a): a is object => isDraftBlobRef(r.id, a)) : []);
}

/**
 * Run `store` in a transaction after writing `blobs`: on SQLite with the queue writer running, by
 * its thread (AppContext.writeBlobs: the buffers are moved there; issue #13, as a send's large
 * attachments: services/send.ts withAttachmentsWritten), else inside the transaction a piece per
 * statement. If the transaction fails, the blobs no stored draft names are deleted again.
 */
async function storeWithBlobs<T>(
  ctx: AppContext, r: { id: string; workspace_id: string }, blobs: DraftContent['blobs'], store: (tx: Tx) => Promise<T>,
): Promise<T> {
  const ids = blobs.map((b) => b.id);
  let written = false;
  // Inside a transaction the writer would wait for the write lock this thread holds: never.
  if (blobs.length && ctx.writeBlobs && !ctx.enclosing && !inTransactionChain(ctx.db)) {
    const sizes = blobs.map((b) => b.data.length);
    try {
      await ctx.writeBlobs(blobs, true);
      written = true;
    } catch (err) {
      await deleteDraftBlobs(ctx.db, ids).catch((e: unknown) => ctx.log.error({ err: e, draft_id: r.id }, 'blobs of an unstored draft not deleted'));
      // Bytes already handed to the thread cannot be written here instead.
      if (blobs.some((b, i) => b.data.length !== sizes[i])) throw err;
      ctx.log.warn({ err, draft_id: r.id }, 'draft attachments not written by the queue writer; written in the transaction');
    }
  }
  try {
    return await inTransaction(ctx, async (tx) => {
      if (!written) await writeDraftBlobs(tx.db, blobs);
      return store(tx);
    });
  } catch (err) {
    if (written) {
      const named = new Set(draftBlobIds((await getDraft(ctx.db, r.workspace_id, r.id).catch(() => undefined)) ?? { id: r.id, extra: {} }));
      await deleteDraftBlobs(ctx.db, ids.filter((id) => !named.has(id)))
        .catch((e: unknown) => ctx.log.error({ err: e, draft_id: r.id }, 'blobs of an unstored draft not deleted'));
    }
    throw err;
  }
}

/** Delete blobs a committed change left unnamed (an edit replaced them, the draft was deleted or sent); a failure is logged (the orphan sweep at start takes them). */
async function dropBlobs(ctx: AppContext, draftId: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await deleteDraftBlobs(ctx.db, ids).catch((err: unknown) => ctx.log.error({ err, draft_id: draftId }, 'blobs of a draft not deleted'));
}

/** A `send_at` in the future, or an error naming it. Past or present times are refused on drafts. */
function futureSendAt(ctx: AppContext, raw: string, param = 'send_at'): string {
  const t = Date.parse(raw);
  if (!Number.isFinite(t)) throw Errors.invalidParam(param, '`send_at` must be an ISO 8601 timestamp.');
  if (t <= ctx.clock.now()) throw Errors.invalidParam(param, '`send_at` must be in the future; to send now, call POST /v1/drafts/{id}/send.');
  checkScheduleHorizon(ctx.clock.now(), t, param);
  return isoAt(t);
}

/**
 * A draft may answer only a message of its own agent: another agent's message is 404 at creation
 * (and on edit), as every other cross-agent reference is, not only when the draft is sent.
 */
async function checkReplyTarget(ctx: AppContext, auth: AuthContext, agentId: string, c: DraftContent): Promise<void> {
  const ref = c.extra.in_reply_to_message_id;
  if (typeof ref !== 'string' || !ref.trim()) return;
  const id = ref.trim();
  const orig = await findOriginal(ctx, auth, id, 'in_reply_to_message_id');
  if (orig.agentId !== agentId) throw Errors.notFound('message', id);
}

/** Spec: Scopes → the draft scope never sends or schedules a draft. */
function requireSendScope(auth: AuthContext, what: string): void {
  if (!hasScope(auth, 'send')) throw Errors.insufficientScope(`To ${what} this key needs the \`send\` scope; the \`draft\` scope never sends or schedules.`);
}

async function draftAgent(ctx: AppContext, auth: AuthContext, body: DraftCreate): Promise<AgentRow> {
  let agent: AgentRow;
  if (body.agent) agent = await resolveAgent(ctx, auth, body.agent, 'send', 'agent');
  else if (body.from) {
    const handle = body.from.includes('<') ? body.from.replace(/^.*<([^>]*)>.*$/, '$1') : body.from;
    agent = await resolveAgent(ctx, auth, handle.trim().split('@')[0], 'send', 'from');
  } else if (auth.agentId) agent = await resolveAgent(ctx, auth, auth.agentId, 'send', 'agent');
  else {
    const live = await liveAgents(ctx.db, auth.workspaceId, 2);
    if (live.length !== 1) {
      throw Errors.missingField('agent', live.length ? 'This workspace has more than one live agent: name the draft\'s agent in `agent`.' : 'This workspace has no live agent; create one with POST /v1/agents.');
    }
    agent = live[0];
  }
  if (agent.status === 'archived') throw Errors.agentArchived(agent.id, 422);
  return agent;
}

async function draftEvent(ctx: AppContext, tx: Tx, type: 'draft.created' | 'draft.updated' | 'draft.deleted' | 'draft.scheduled' | 'draft.sent' | 'draft.failed', r: DraftRow): Promise<void> {
  await emitEvent(ctx, tx, {
    type, workspaceId: r.workspace_id, agentId: r.agent_id, threadId: r.thread_id, sourceMessageId: r.sent_message_id,
    testMode: r.mode === 'test', data: { ...toDraft(r), draft_id: r.id },
  });
}

export async function createDraft(ctx: AppContext, auth: AuthContext, body: DraftCreate): Promise<Draft> {
  const sendAt = body.send_at ? futureSendAt(ctx, body.send_at) : null;
  if (sendAt) requireSendScope(auth, 'schedule a draft');
  const agent = await draftAgent(ctx, auth, body);
  const id = newId('dft', ctx.clock);
  const { blobs, ...content } = validateContent(ctx, id, body);
  await checkReplyTarget(ctx, auth, agent.id, { ...content, blobs });
  const at = isoAt(ctx.clock.now());
  const row: DraftRow = {
    id, workspace_id: auth.workspaceId, agent_id: agent.id, created_by_key_id: auth.keyId, mode: auth.mode,
    ...content, status: sendAt ? 'scheduled' : 'draft', send_at: sendAt, sent_message_id: null, thread_id: null,
    error_message: null, sending_started_at: null, next_attempt_at: null, sent_at: null, created_at: at, updated_at: at, deleted_at: null,
  };
  return storeWithBlobs(ctx, row, blobs, async (tx) => {
    await insertDraft(tx.db, row);
    await draftEvent(ctx, tx, 'draft.created', row);
    if (sendAt) await draftEvent(ctx, tx, 'draft.scheduled', row);
    return toDraft(row);
  });
}

/** A draft the caller may see: its workspace, and its own agent's for a bound key (else 404). */
async function requireDraft(ctx: AppContext, auth: AuthContext, id: string): Promise<DraftRow> {
  const r = await getDraft(ctx.db, auth.workspaceId, id);
  if (!r || (auth.agentId && r.agent_id !== auth.agentId)) throw Errors.notFound('draft', id);
  return r;
}

/** Spec: live_mode_required — a test key changing, sending or deleting a draft made by a live key. */
function assertMayTouch(auth: AuthContext, r: DraftRow, what: string): void {
  if (auth.mode === 'test' && r.mode === 'live') throw Errors.liveModeRequired(`${what} draft ${r.id}, which a live key made`);
}

/** Spec: duplicate_resource — a draft that began sending cannot be edited, deleted or sent again. */
function assertNotInFlight(r: DraftRow, what: string): void {
  if (r.status === 'sending' || r.status === 'sent') {
    throw Errors.duplicate(`Draft ${r.id} ${r.status === 'sent' ? 'was already sent' : 'is being sent'}; it cannot be ${what}.`);
  }
}

export async function listDraftsPage(ctx: AppContext, auth: AuthContext, q: DraftListQuery): Promise<PageOf<Draft>> {
  const agentId = q.agent_id ? (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id : auth.agentId;
  const res = await listDrafts(ctx.db, auth.workspaceId, { agentId, status: q.status }, q);
  return pageOf(res, res.rows.map((r) => toDraft(r, 'list')));
}

export async function getDraftView(ctx: AppContext, auth: AuthContext, id: string): Promise<Draft> {
  return toDraft(await requireDraft(ctx, auth, id));
}

export async function updateDraftView(ctx: AppContext, auth: AuthContext, id: string, body: DraftUpdate): Promise<Draft> {
  const r = await requireDraft(ctx, auth, id);
  assertMayTouch(auth, r, 'change');
  assertNotInFlight(r, 'edited');
  let sendAt = r.send_at;
  let status: DraftStatus = r.status === 'scheduled' ? 'scheduled' : 'draft';
  if (body.send_at !== undefined) {
    if (body.send_at === null) {
      sendAt = null;
      status = 'draft';
    } else {
      requireSendScope(auth, 'schedule a draft');
      sendAt = futureSendAt(ctx, body.send_at);
      status = 'scheduled';
    }
  }
  const { send_at: _s, ...patchContent } = body;
  const merged: Content = { ...contentOf(r), ...patchContent };
  // Aliases replace the canonical field they stand for.
  if (patchContent.text !== undefined || patchContent.body !== undefined) merged.body_text = patchContent.text ?? patchContent.body;
  if (patchContent.html !== undefined) merged.body_html = patchContent.html;
  const { blobs, ...content } = validateContent(ctx, r.id, merged, storedRefs(r));
  if (patchContent.in_reply_to_message_id !== undefined) await checkReplyTarget(ctx, auth, r.agent_id, { ...content, blobs });
  const at = isoAt(ctx.clock.now());
  const before = draftBlobIds(r);
  const patch: Partial<DraftRow> = {
    ...content, status, send_at: sendAt, error_message: status === r.status ? r.error_message : null, next_attempt_at: null, updated_at: at,
    // A live key scheduling a test key's draft makes it live material (it will be sent live).
    ...(status === 'scheduled' && auth.mode === 'live' ? { mode: 'live' as const } : {}),
  };
  const view = await storeWithBlobs(ctx, r, blobs, async (tx) => {
    // With blob references read from the row, only if no other edit changed them meanwhile.
    if (!(await transitionDraft(tx.db, r.id, [r.status], patch, before.length ? r.extra : undefined))) {
      throw Errors.duplicate(`Draft ${r.id} changed while it was being edited (it may be sending, or edited by another request); fetch it again.`);
    }
    const updated = { ...r, ...patch };
    await draftEvent(ctx, tx, 'draft.updated', updated);
    if (status === 'scheduled' && (r.status !== 'scheduled' || sendAt !== r.send_at)) await draftEvent(ctx, tx, 'draft.scheduled', updated);
    return toDraft(updated);
  });
  const kept = new Set(draftBlobIds({ id: r.id, extra: content.extra }));
  await dropBlobs(ctx, r.id, before.filter((b) => !kept.has(b)));
  return view;
}

export async function deleteDraftView(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; deleted_at: string }> {
  const r = await requireDraft(ctx, auth, id);
  assertMayTouch(auth, r, 'delete');
  assertNotInFlight(r, 'deleted');
  const at = isoAt(ctx.clock.now());
  // A scheduled draft deleted before its time is canceled (it will never go out).
  const patch: Partial<DraftRow> = { deleted_at: at, updated_at: at, ...(r.status === 'scheduled' ? { status: 'canceled' as const } : {}) };
  const done = await inTransaction(ctx, async (tx) => {
    if (!(await transitionDraft(tx.db, r.id, [r.status], patch))) throw Errors.duplicate(`Draft ${r.id} began sending; it cannot be deleted.`);
    await draftEvent(ctx, tx, 'draft.deleted', { ...r, ...patch });
    return { id: r.id, deleted_at: at };
  });
  await dropBlobs(ctx, r.id, draftBlobIds(r));
  return done;
}

/**
 * The send request a draft makes. Its blob attachments are read (a few pieces per statement) and
 * handed to the send decoded, as the body worker hands a send route's large attachments
 * (shared/lifted-attachments.ts): the send stores them as its own blobs.
 */
async function sendRequestOf(ctx: AppContext, r: DraftRow): Promise<Record<string, unknown>> {
  // Empty lists are left out so a draft without recipients gets the send's missing_field `to`.
  const list = (k: string, v: string[]) => (v.length ? { [k]: v } : {});
  const extra = { ...r.extra };
  if (Array.isArray(extra.attachments)) {
    extra.attachments = await Promise.all(extra.attachments.map(async (a: unknown) => {
      if (!isDraftBlobRef(r.id, a)) return a;
      const bytes = await readDraftBlob(ctx.db, a);
      if (!bytes) {
        ctx.log.error({ draft_id: r.id, blob: a.blob }, 'a draft attachment\'s stored bytes are missing');
        throw Errors.internal();
      }
      const item = bytelessItem(a);
      setLiftedAttachment(item, 'content_base64', bytes);
      return item;
    }));
  }
  return {
    agent: r.agent_id, ...list('to', r.to), ...list('cc', r.cc), ...list('bcc', r.bcc), subject: r.subject,
    ...(r.body_text !== null ? { body_text: r.body_text } : {}), ...(r.body_html !== null ? { body_html: r.body_html } : {}),
    tags: r.tags, metadata: r.metadata, ...extra,
  };
}

/** Retryable refusals leave a draft where it was: waiting helps (spec: Retry guidance). */
const retryable = (err: unknown) => err instanceof ApiError && (err.status === 429 || err.code === 'upstream_unavailable' || err.code === 'service_unavailable');
/** Refusals that are about the draft's content or recipients: the caller fixes the draft and sends again. */
const fixable = (err: unknown) => err instanceof ApiError && err.status < 500 && err.status !== 429;

/**
 * Hand a claimed (status `sending`) draft to the one send path (caps, cold screen, suppression,
 * transports, events). Success → `sent`; a transport failure → `failed` with `draft.failed`.
 * `onRefusal` decides where a draft goes when the send is refused before anything left.
 */
async function sendClaimed(
  ctx: AppContext, auth: AuthContext, r: DraftRow, onRefusal: (err: unknown) => Partial<DraftRow> & { status: DraftStatus }, announced?: WriteAnnouncement,
): Promise<DraftRow> {
  try {
    const msg = await sendMessage(ctx, auth, await sendRequestOf(ctx, r), { source: 'draft', announced });
    const at = isoAt(ctx.clock.now());
    const patch: Partial<DraftRow> = {
      status: 'sent', sent_message_id: msg.id, thread_id: msg.thread_id, sent_at: at, error_message: null, next_attempt_at: null, updated_at: at,
    };
    const sent = await inTransaction(ctx, async (tx) => {
      await updateDraft(tx.db, r.id, patch);
      const updated = { ...r, ...patch };
      await draftEvent(ctx, tx, 'draft.sent', updated);
      return updated;
    });
    // The sent message holds its own copy: a sent draft is never sent or edited again.
    await dropBlobs(ctx, r.id, draftBlobIds(r));
    return sent;
  } catch (err) {
    const at = isoAt(ctx.clock.now());
    const patch = { ...onRefusal(err), updated_at: at };
    await inTransaction(ctx, async (tx) => {
      await updateDraft(tx.db, r.id, patch);
      if (patch.status === 'failed' || patch.status === 'canceled') await draftEvent(ctx, tx, 'draft.failed', { ...r, ...patch });
    });
    throw err;
  }
}

function message(err: unknown): string {
  return err instanceof ApiError ? `${err.code}: ${err.message}` : 'internal error';
}

/** POST /v1/drafts/{id}/send: send now, or (with a future `send_at`) schedule. */
export async function sendDraft(ctx: AppContext, auth: AuthContext, id: string, body: DraftSendRequest, announced?: WriteAnnouncement): Promise<DraftSendResult> {
  const r = await requireDraft(ctx, auth, id);
  assertMayTouch(auth, r, 'send');
  assertNotInFlight(r, 'sent again');
  const raw = body.send_at ?? null;
  const when = raw === null ? null : Date.parse(raw);
  if (raw !== null && !Number.isFinite(when)) throw Errors.invalidParam('send_at', '`send_at` must be an ISO 8601 timestamp.');
  if (when !== null) checkScheduleHorizon(ctx.clock.now(), when, 'send_at');
  const at = isoAt(ctx.clock.now());
  const mode = auth.mode === 'live' ? 'live' as const : r.mode;
  if (when !== null && when > ctx.clock.now()) {
    const patch: Partial<DraftRow> = { status: 'scheduled', send_at: isoAt(when), next_attempt_at: null, error_message: null, mode, updated_at: at };
    return inTransaction(ctx, async (tx) => {
      if (!(await transitionDraft(tx.db, r.id, [r.status], patch))) throw Errors.duplicate(`Draft ${r.id} is already in flight.`);
      await draftEvent(ctx, tx, 'draft.scheduled', { ...r, ...patch });
      return { id: r.id, status: 'scheduled' as const, send_at: patch.send_at! };
    });
  }
  // Spec: duplicate_resource covers "a draft already in flight": the claim is atomic.
  const claimed = await transitionDraft(ctx.db, r.id, ['draft', 'scheduled', 'failed', 'canceled'], { status: 'sending', sending_started_at: at, mode, updated_at: at });
  if (!claimed) throw Errors.duplicate(`Draft ${r.id} is already being sent.`);
  const sent = await sendClaimed(ctx, auth, { ...r, status: 'sending', mode }, (err) =>
    fixable(err) || retryable(err) ? { status: r.status, error_message: r.error_message } : { status: 'failed', error_message: message(err) }, announced);
  return { id: sent.id, status: sent.status, message_id: sent.sent_message_id!, thread_id: sent.thread_id!, sent_at: sent.sent_at! };
}

/** The scheduler acts for the draft's agent with the mode of the key that scheduled it. */
function schedulerAuth(r: DraftRow): AuthContext {
  return { keyId: r.created_by_key_id ?? 'scheduler', workspaceId: r.workspace_id, mode: r.mode, scopes: ['send', 'read'], agentId: r.agent_id, expiresAt: null };
}

export const DRAFT_RETRY_MS = MINUTE;

/** How long a draft may stay `sending` before its send counts as abandoned (a daemon died mid-send). */
export const DRAFT_SEND_LEASE_MS = 10 * 60_000;

/**
 * A draft left `sending` by a daemon that died mid-send becomes `failed` (draft.failed), not
 * `scheduled` again: the message may have been sent just before the crash (the sent message and
 * the draft's `sent` are two commits), and sending it twice is worse than asking the owner to
 * look at the sent mail and send again.
 */
async function failStalledDrafts(ctx: AppContext, now: number): Promise<void> {
  const at = isoAt(now);
  for (const r of await stalledDrafts(ctx.db, isoAt(now - DRAFT_SEND_LEASE_MS), 50)) {
    const patch = { status: 'failed' as const, error_message: 'the daemon sending this draft stopped mid-send; check the sent messages before sending it again', updated_at: at };
    await inTransaction(ctx, async (tx) => {
      if (await transitionDraft(tx.db, r.id, ['sending'], patch)) await draftEvent(ctx, tx, 'draft.failed', { ...r, ...patch });
    });
  }
}

/**
 * One pass of the draft scheduler at ctx.clock.now(): every scheduled draft whose time has come is
 * sent through the same path as POST /v1/drafts/{id}/send. A retryable refusal (a cap, the relay
 * down) tries again later; any other refusal marks the draft failed (canceled when its agent is
 * archived) with `draft.failed`.
 */
export async function runDueDrafts(ctx: AppContext, max = 50): Promise<number> {
  const now = ctx.clock.now();
  await failStalledDrafts(ctx, now);
  let handled = 0;
  // One draft claimed `sending` at a time (another daemon skips it), just before it is sent: the
  // stalled-draft lease then bounds one send, not a batch queued behind slow ones.
  // Every claimed row is sent, however many a claim returns (dialect.ts claimIn).
  for (let rows; handled < max && (rows = await claimDueDrafts(ctx.db, isoAt(ctx.clock.now()), 1)).length;) for (const r of rows) {
    handled++;
    try {
      await sendClaimed(ctx, schedulerAuth(r), r, (err) => {
        if (retryable(err)) {
          const resets = err instanceof ApiError && err.extra.resets_at ? Date.parse(err.extra.resets_at) : NaN;
          return { status: 'scheduled', next_attempt_at: isoAt(Number.isFinite(resets) && resets > now ? resets : now + DRAFT_RETRY_MS), error_message: message(err) };
        }
        if (err instanceof ApiError && (err.code === 'agent_archived' || err.code === 'agent_not_found')) return { status: 'canceled', error_message: message(err) };
        return { status: 'failed', error_message: message(err) };
      });
    } catch (err) {
      if (!(err instanceof ApiError)) ctx.log.error({ err, draft_id: r.id }, 'draft scheduler: send failed');
    }
  }
  return handled;
}
