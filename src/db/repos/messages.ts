import { sql } from 'kysely';
import { claimIn } from '../dialect.js';
import type { Db, Decoded } from '../schema.js';
import type { SentMessagesTable, SentAttachmentsTable } from '../tables/outbound.js';
import { insertRow, insertRowNow } from '../insert-row.js';
import { defineQuery } from '../prepared.js';
import { bool, json, listBodyText, paginate, type ListsEveryColumn, type PageRequest, type PageResult } from '../paginate.js';
import { searchPage, sentConditions, textMatchOf, type MessageSearch } from './search.js';
import { deleteBlobs, isLarge, readStoredBytes, storedBytesForDownload, writeBlob, yieldTurn, type StoredBytesStream } from './blobs.js';

export type SentStatus = 'sending' | 'sent' | 'scheduled' | 'canceled' | 'failed';

export type ClassifierWarning = { code: 'cold_email_prohibited'; message: string; score: number; reason: 'cold_outreach' | 'bulk_marketing' | 'spam' | 'unclear' };

export type SentMessageRow = Decoded<SentMessagesTable, {
  test_mode: boolean;
  status: SentStatus;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  references: string[];
  metadata: Record<string, string>;
  tags: { name: string; value: string }[];
  classifier_warning: ClassifierWarning | null;
}>;

/**
 * A sent attachment with its bytes in hand. `content_blob` set before insertSentMessage: the bytes
 * were written as that blob already (writeSentAttachmentBlobs) and `content` is not read again.
 */
export type AttachmentRow = SentAttachmentsTable;

const EMPTY = Buffer.alloc(0);

/** The blob a large sent attachment's bytes are stored as (migration 0035): named after the attachment. */
export const sentAttachmentBlobId = (attachmentId: string): string => `sent.${attachmentId}`;

/**
 * Write the large attachments' bytes as blobs with `write` (SQLite: the queue writer's thread and
 * connection, db/queue-writer.ts writeBlobs) before the transaction that stores the message, which
 * then only names them; each such attachment gets its `content_blob`. Returns the blob ids
 * written: the caller deletes them if that transaction fails or is refused (deleteSentBlobs).
 * `move`: the buffers go to the thread without a copy and are unusable here afterwards.
 */
export async function writeSentAttachmentBlobs(
  attachments: AttachmentRow[], write: (blobs: { id: string; data: Uint8Array }[], move: boolean) => Promise<void>, move: boolean,
): Promise<string[]> {
  const big = attachments.filter((a) => !a.content_blob && isLarge(a.content.length));
  if (!big.length) return [];
  const blobs = big.map((a) => ({ id: sentAttachmentBlobId(a.id), data: a.content }));
  await write(blobs, move);
  for (const a of big) {
    a.content_blob = sentAttachmentBlobId(a.id);
    a.content = EMPTY;
  }
  return blobs.map((b) => b.id);
}

/** Delete blobs written for a send whose transaction did not commit (writeSentAttachmentBlobs). */
export async function deleteSentBlobs(db: Db, blobIds: string[]): Promise<void> {
  await deleteBlobs(db, blobIds);
}

function decode(r: SentMessagesTable): SentMessageRow {
  return {
    ...r,
    test_mode: bool(r.test_mode),
    status: r.status as SentStatus,
    to: json<string[]>(r.to, []),
    cc: json<string[]>(r.cc, []),
    bcc: json<string[]>(r.bcc, []),
    reply_to: json<string[]>(r.reply_to, []),
    references: json<string[]>(r.references, []),
    metadata: json<Record<string, string>>(r.metadata, {}),
    tags: json<{ name: string; value: string }[]>(r.tags, []),
    classifier_warning: json<SentMessageRow['classifier_warning']>(r.classifier_warning, null),
  };
}

function encode(r: Partial<SentMessageRow>): Partial<SentMessagesTable> {
  const out = { ...(r as Record<string, unknown>) } as Partial<SentMessagesTable>;
  if (r.test_mode !== undefined) out.test_mode = r.test_mode ? 1 : 0;
  if (r.to !== undefined) out.to = JSON.stringify(r.to);
  if (r.cc !== undefined) out.cc = JSON.stringify(r.cc);
  if (r.bcc !== undefined) out.bcc = JSON.stringify(r.bcc);
  if (r.reply_to !== undefined) out.reply_to = JSON.stringify(r.reply_to);
  if (r.references !== undefined) out.references = JSON.stringify(r.references);
  if (r.metadata !== undefined) out.metadata = JSON.stringify(r.metadata);
  if (r.tags !== undefined) out.tags = JSON.stringify(r.tags);
  if (r.classifier_warning !== undefined) out.classifier_warning = r.classifier_warning ? JSON.stringify(r.classifier_warning) : null;
  return out;
}

export async function insertSentMessage(db: Db, row: SentMessageRow, attachments: AttachmentRow[]): Promise<void> {
  const r = encode(row) as SentMessagesTable;
  r.has_attachments = attachments.length ? 1 : 0;
  if (!insertRowNow(db, 'sent_messages', r)) await insertRow(db, 'sent_messages', r);
  if (attachments.length) await db.insertInto('sent_attachments').values(await storedAttachmentRows(db, attachments)).execute();
  const to = toAddressesOf(row.to);
  for (const address of to) {
    const rec = { message_id: row.id, workspace_id: row.workspace_id, address };
    if (!insertRowNow(db, 'sent_recipients', rec, 'any')) await insertRow(db, 'sent_recipients', rec, 'any');
  }
}

/**
 * The rows as stored: a large attachment's bytes as a blob (repos/blobs.ts) — written already
 * (content_blob set: writeSentAttachmentBlobs), or here, in the caller's transaction, one piece per
 * statement with the event loop served between (PostgreSQL, or SQLite without the writer thread).
 */
async function storedAttachmentRows(db: Db, attachments: AttachmentRow[]): Promise<SentAttachmentsTable[]> {
  const rows: SentAttachmentsTable[] = [];
  for (const a of attachments) {
    let blob = a.content_blob ?? null;
    if (!blob && isLarge(a.content.length)) {
      await yieldTurn();
      await writeBlob(db, (blob = sentAttachmentBlobId(a.id)), a.content);
    }
    rows.push({ ...a, content: blob ? EMPTY : a.content, content_blob: blob });
  }
  return rows;
}

/** The lower-cased addresses of stored `to` entries (`addr` or `Name <addr>`), without repeats. */
export function toAddressesOf(to: string[]): string[] {
  return [...new Set(to.map((t) => (/<([^<>]*)>\s*$/.exec(t)?.[1] ?? t).trim().toLowerCase()).filter(Boolean))];
}

/** How many sent messages had `address` in `to` (the classifier's sender history). */
const sentToCount = defineQuery((db, p: { workspaceId: string; address: string }) => db.selectFrom('sent_recipients')
  .select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', p.workspaceId).where('address', '=', p.address));

/** Sent mail to an address (every inbound message's sender history reads it). */
export async function countSentTo(db: Db, workspaceId: string, address: string): Promise<number> {
  const r = await sentToCount.first(db, { workspaceId, address: address.toLowerCase() });
  return Number(r?.n ?? 0);
}

export async function updateSentMessage(db: Db, id: string, patch: Partial<SentMessageRow>): Promise<void> {
  await db.updateTable('sent_messages').set(encode(patch)).where('id', '=', id).execute();
}

/** Compare-and-set on status: true when this caller moved the row (claims a scheduled send). */
export async function transitionStatus(db: Db, id: string, from: SentStatus, patch: Partial<SentMessageRow>): Promise<boolean> {
  const r = await db.updateTable('sent_messages').set(encode(patch)).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function getSentMessage(db: Db, workspaceId: string, id: string): Promise<SentMessageRow | undefined> {
  const r = await db.selectFrom('sent_messages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export async function getSentMessageById(db: Db, id: string): Promise<SentMessageRow | undefined> {
  const r = await db.selectFrom('sent_messages').selectAll().where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

/** Every column but the two bodies: a list reads a prefix of the text body only (LIST_BODY_CHARS). */
const LIST_COLUMNS = [
  'id', 'workspace_id', 'agent_id', 'thread_id', 'api_key_id', 'test_mode', 'status', 'source', 'from_address', 'from_name',
  'to', 'cc', 'bcc', 'reply_to', 'subject', 'rfc_message_id', 'in_reply_to', 'references', 'in_reply_to_message_id',
  'forwarded_from', 'metadata', 'tags', 'classifier_score', 'classifier_warning', 'pool', 'cost_usd', 'transport_message_id',
  'scheduled_at', 'due_at', 'sent_at', 'delivered_at', 'canceled_at', 'error_message', 'created_at', 'updated_at',
] as const;
// A column added to the table must be added above (or to the bodies): this fails to compile until it is.
const listColumnsComplete: ListsEveryColumn<SentMessagesTable, (typeof LIST_COLUMNS)[number], 'body_text' | 'body_html' | 'has_attachments'> = true;
void listColumnsComplete;

/**
 * A page of sent messages, newest first. The rows' `body_text` is the first LIST_BODY_CHARS
 * characters only and `body_html` is null: a page of 100 messages with 1 MB bodies each was 200 MB
 * of JSON built on the main thread (an outside tester held the daemon's health answers for 1.2 s
 * and its RSS at 715 MB with a few such lists). Retrieve gives the bodies.
 */
export async function listSentMessages(
  db: Db, workspaceId: string, f: { agentId?: string | null; threadId?: string | null; search?: MessageSearch | null }, page: PageRequest,
): Promise<PageResult<SentMessageRow>> {
  let q = db.selectFrom('sent_messages').select(LIST_COLUMNS)
    .select(listBodyText().as('body_text'))
    .select(sql<null>`null`.as('body_html'))
    .where('workspace_id', '=', workspaceId);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.threadId) q = q.where('thread_id', '=', f.threadId);
  // A text search on SQLite is paged by searchPage (repos/search.ts), which adds the text match.
  const match = textMatchOf(db, f.search);
  if (f.search) for (const cond of sentConditions(db, f.search, match === null)) q = q.where(cond);
  const res = match === null ? await paginate<SentMessagesTable>(q, 'id', page, 'sent messages') : await searchPage<SentMessagesTable>(db, q, 'sent', match, page, 'sent messages');
  return { ...res, rows: res.rows.map(decode) };
}

/**
 * One attachment for a download, scoped to its message: its bytes when stored inline (every row
 * before migration 0035, and small ones), else a stream of its blob's pieces (repos/blobs.ts
 * StoredBytesStream, read as the client takes them). undefined: none, or its pieces deleted already.
 */
export async function sentAttachmentDownload(db: Db, messageId: string, attachmentId: string): Promise<(Omit<AttachmentRow, 'content' | 'content_blob'> & { download: Buffer | StoredBytesStream }) | undefined> {
  const a = await db.selectFrom('sent_attachments').selectAll().where('message_id', '=', messageId).where('id', '=', attachmentId).executeTakeFirst();
  if (!a) return undefined;
  const { content, content_blob: blob, ...row } = a;
  const download = await storedBytesForDownload(db, content, blob, row.size);
  return download && { ...row, download };
}

/**
 * A message's attachments with their whole bytes (the MIME builds: delivery of a scheduled send,
 * the raw download, a forward), a blob's pieces read a few per statement with the event loop
 * served between; an attachment whose pieces were deleted meanwhile (retention) is left out.
 */
export async function listAttachments(db: Db, messageId: string): Promise<AttachmentRow[]> {
  const rows = await db.selectFrom('sent_attachments').selectAll().where('message_id', '=', messageId).orderBy('position').execute();
  const out: AttachmentRow[] = [];
  for (const { content_blob: blob, ...r } of rows) {
    if (!blob) {
      out.push(r);
      continue;
    }
    const content = await readStoredBytes(db, r.content, blob, r.size);
    if (content) out.push({ ...r, content });
  }
  return out;
}

/** Delete the blobs of sent messages' attachments (before deleting the rows: repos/retention.ts). */
export async function deleteSentAttachmentBlobs(db: Db, messageIds: string[]): Promise<void> {
  if (!messageIds.length) return;
  const att = await db.selectFrom('sent_attachments').select('content_blob')
    .where('message_id', 'in', messageIds).where('content_blob', 'is not', null).execute();
  await deleteBlobs(db, att.map((a) => a.content_blob));
}

/**
 * Claim scheduled sends whose time has come, oldest first, in one statement: each row moves
 * `scheduled → sending` for this daemon only (rows another daemon is claiming right now are
 * skipped: dialect.ts claimIn). Returns the claimed rows; requeueStalledSends is their lease.
 */
export async function claimDueScheduled(db: Db, nowIso: string, max: number): Promise<SentMessageRow[]> {
  const rows = await db.updateTable('sent_messages').set({ status: 'sending', updated_at: nowIso })
    .where(claimIn(db, 'id', db.selectFrom('sent_messages').select('id').where('status', '=', 'scheduled')
      .where('due_at', '<=', nowIso).orderBy('due_at').limit(max)))
    .where('status', '=', 'scheduled')
    .returningAll().execute();
  return rows.map(decode).sort((x, y) => (x.due_at ?? '').localeCompare(y.due_at ?? ''));
}

/**
 * Scheduled sends (due_at set) claimed `sending` before `staleBefore` and never finished go back
 * to `scheduled`, due now. Returns how many.
 */
export async function requeueStalledSends(db: Db, staleBefore: string, nowIso: string): Promise<number> {
  const r = await db.updateTable('sent_messages').set({ status: 'scheduled', due_at: nowIso, updated_at: nowIso })
    .where('status', '=', 'sending').where('due_at', 'is not', null).where('updated_at', '<=', staleBefore).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function insertSimulatedReply(db: Db, r: { message_id: string; workspace_id: string; due_at: string }): Promise<void> {
  await db.insertInto('simulated_replies').values({ ...r, done_at: null }).execute();
}

/**
 * Lease due test-address replies to this daemon until `leaseUntil`, oldest first, in one
 * statement; replies another daemon holds (lease not run out) or is claiming right now are not
 * taken (dialect.ts claimIn). A daemon that dies while delivering leaves the lease to run out,
 * and another takes the reply.
 */
export async function claimDueSimulatedReplies(db: Db, nowIso: string, max: number, leaseUntil: string): Promise<{ message_id: string; workspace_id: string }[]> {
  const due = (w: Db) => w.selectFrom('simulated_replies').select('message_id').where('done_at', 'is', null).where('due_at', '<=', nowIso)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowIso)]));
  const rows = await db.updateTable('simulated_replies').set({ lease_until: leaseUntil })
    .where(claimIn(db, 'message_id', due(db).orderBy('due_at').limit(max)))
    .where('done_at', 'is', null)
    .returning(['message_id', 'workspace_id', 'due_at']).execute();
  return rows.sort((x, y) => x.due_at.localeCompare(y.due_at)).map(({ message_id, workspace_id }) => ({ message_id, workspace_id }));
}

/** Mark a reply delivered, in the transaction that delivers it; false when it already was. */
export async function completeSimulatedReply(db: Db, messageId: string, nowIso: string): Promise<boolean> {
  const r = await db.updateTable('simulated_replies').set({ done_at: nowIso, lease_until: null }).where('message_id', '=', messageId)
    .where('done_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function attachmentInfos(db: Db, messageIds: string[]): Promise<Map<string, Omit<AttachmentRow, 'content'>[]>> {
  const out = new Map<string, Omit<AttachmentRow, 'content'>[]>();
  if (!messageIds.length) return out;
  const rows = await db.selectFrom('sent_attachments').select(['id', 'message_id', 'position', 'filename', 'content_type', 'size'])
    .where('message_id', 'in', messageIds).orderBy('position').execute();
  for (const r of rows) out.set(r.message_id, [...(out.get(r.message_id) ?? []), r]);
  return out;
}
