import type { Db, Decoded } from '../schema.js';
import type { ReceivedAttachmentsTable, ReceivedMessagesTable } from '../tables/inbound.js';
import { bool, json, paginate, type PageRequest, type PageResult } from '../paginate.js';
import { receivedConditions, searchPage, textMatchOf, type MessageSearch } from './search.js';
import { dialectOf, lockKey } from '../dialect.js';
import { defineQuery } from '../prepared.js';
import { insertRow } from '../insert-row.js';
import { deleteBlobs, isLarge, readStoredBytes, storedBytesForDownload, writeBlob, yieldTurn, type StoredBytesStream } from './blobs.js';

export type OverLimit = 'plus_address_limit' | 'held_code';
export type InboundSource = 'smtp' | 'local' | 'simulator';

export type ReceivedRow = Decoded<ReceivedMessagesTable, {
  references: string[];
  to: string[];
  cc: string[];
  headers: [string, string][];
  spf_pass: boolean | null;
  dkim_pass: boolean | null;
  classification: Record<string, unknown> | null;
  quarantined: boolean;
  test_mode: boolean;
  over_limit: OverLimit | null;
  source: InboundSource;
  extraction_truncated: boolean;
}, 'raw' | 'raw_blob'>;

/** A list row: no bodies, headers or raw bytes (spec: list responses give excerpts only). */
export type ReceivedSummaryRow = Omit<ReceivedRow, 'text' | 'html' | 'headers'>;

export type AttachmentRow = Omit<ReceivedAttachmentsTable, 'content' | 'content_blob'>;

const nb = (v: number | null): boolean | null => (v === null ? null : v === 1);
const ni = (v: boolean | null): number | null => (v === null ? null : v ? 1 : 0);

const SUMMARY_COLUMNS = [
  'id', 'workspace_id', 'agent_id', 'thread_id', 'rfc_message_id', 'in_reply_to', 'references', 'from_address',
  'from_name', 'from_domain', 'to', 'cc', 'recipient', 'plus_address', 'subject', 'extracted_text', 'excerpt', 'size',
  'spf_pass', 'dkim_pass', 'dmarc', 'trusted_network', 'classification', 'quarantined', 'test_mode', 'over_limit', 'source',
  'answers_message_id', 'event_id', 'event_type', 'remote_address', 'received_at', 'extraction_truncated', 'read_at',
] as const;
const FULL_COLUMNS = [...SUMMARY_COLUMNS, 'text', 'html', 'headers'] as const;

type Stored = Partial<ReceivedMessagesTable> & Pick<ReceivedMessagesTable, (typeof SUMMARY_COLUMNS)[number]>;

function decode(r: Stored): ReceivedRow {
  return {
    id: r.id, workspace_id: r.workspace_id, agent_id: r.agent_id, thread_id: r.thread_id,
    rfc_message_id: r.rfc_message_id, in_reply_to: r.in_reply_to, references: json<string[]>(r.references, []),
    from_address: r.from_address, from_name: r.from_name, from_domain: r.from_domain,
    to: json<string[]>(r.to, []), cc: json<string[]>(r.cc, []), recipient: r.recipient, plus_address: r.plus_address,
    subject: r.subject, text: r.text ?? null, html: r.html ?? null, extracted_text: r.extracted_text, excerpt: r.excerpt,
    headers: json<[string, string][]>(r.headers, []), size: r.size,
    spf_pass: nb(r.spf_pass), dkim_pass: nb(r.dkim_pass), dmarc: r.dmarc, trusted_network: r.trusted_network ?? null,
    classification: json<Record<string, unknown> | null>(r.classification, null),
    quarantined: bool(r.quarantined), test_mode: bool(r.test_mode), over_limit: r.over_limit as OverLimit | null,
    source: r.source as InboundSource, answers_message_id: r.answers_message_id, event_id: r.event_id,
    event_type: r.event_type, remote_address: r.remote_address, received_at: r.received_at,
    extraction_truncated: bool(r.extraction_truncated),
    read_at: r.read_at ?? null,
  };
}

export interface NewAttachment {
  id: string;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  disposition: string | null;
  size: number;
  sha256: string;
  content: Buffer;
  /** The content is stored already, as this blob (written by the queue's writer thread): only named here. */
  storedBlob?: string;
}

/**
 * The raw bytes' last `bytes` bytes are stored already, as blob `blobId` (a queued message's
 * blob: services/inbound-queue.ts): the message takes that blob over instead of writing them again.
 */
export interface StoredTail {
  blobId: string;
  bytes: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * Insert a received message with its raw bytes and attachments. Large byte strings go to
 * blob_chunks in pieces (repos/blobs.ts), so no statement holds the thread for long.
 */
export async function insertReceived(db: Db, row: ReceivedRow, raw: Buffer | null, attachments: NewAttachment[] = [], tail?: StoredTail): Promise<void> {
  let head = raw;
  let rawBlob: string | null = null;
  if (raw && tail && tail.bytes <= raw.length) {
    head = raw.subarray(0, raw.length - tail.bytes);
    rawBlob = tail.blobId;
  } else if (raw && isLarge(raw.length)) {
    rawBlob = `${row.id}.raw`;
    await writeBlob(db, rawBlob, raw);
    head = EMPTY;
  }
  const stored: ReceivedMessagesTable = {
    ...row,
    references: JSON.stringify(row.references),
    to: JSON.stringify(row.to),
    cc: JSON.stringify(row.cc),
    headers: JSON.stringify(row.headers),
    raw: head,
    raw_blob: rawBlob,
    spf_pass: ni(row.spf_pass),
    dkim_pass: ni(row.dkim_pass),
    classification: row.classification ? JSON.stringify(row.classification) : null,
    quarantined: row.quarantined ? 1 : 0,
    test_mode: row.test_mode ? 1 : 0,
    extraction_truncated: row.extraction_truncated ? 1 : 0,
    has_attachments: attachments.length ? 1 : 0,
  };
  // One compiled statement, run directly inside a SQLite transaction (insert-row.ts).
  await insertRow(db, 'received_messages', stored);
  if (!attachments.length) return;
  const rows: ReceivedAttachmentsTable[] = [];
  for (const [i, { storedBlob, ...a }] of attachments.entries()) {
    let blob = storedBlob ?? null;
    if (!blob && isLarge(a.content.length)) {
      await yieldTurn();
      await writeBlob(db, (blob = a.id), a.content);
    }
    rows.push({ ...a, content: blob ? EMPTY : a.content, content_blob: blob, received_message_id: row.id, workspace_id: row.workspace_id, position: i });
  }
  await db.insertInto('received_attachments').values(rows).execute();
}

/** Delete the blobs of received messages and of their attachments (before deleting the rows). */
export async function deleteReceivedBlobs(db: Db, messageIds: string[]): Promise<void> {
  if (!messageIds.length) return;
  const raw = await db.selectFrom('received_messages').select('raw_blob').where('id', 'in', messageIds).where('raw_blob', 'is not', null).execute();
  const att = await db.selectFrom('received_attachments').select('content_blob')
    .where('received_message_id', 'in', messageIds).where('content_blob', 'is not', null).execute();
  await deleteBlobs(db, [...raw.map((r) => r.raw_blob), ...att.map((a) => a.content_blob)]);
}

export async function getReceived(db: Db, workspaceId: string, id: string): Promise<ReceivedRow | undefined> {
  const r = await db.selectFrom('received_messages').select(FULL_COLUMNS)
    .where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

/**
 * The raw bytes for a download: inline ones as a Buffer, large ones as a stream of their pieces
 * (repos/blobs.ts StoredBytesStream, read as the client takes them). null: a record that keeps
 * none; undefined: no such message, or its pieces deleted already.
 */
export async function getReceivedRawDownload(db: Db, workspaceId: string, id: string): Promise<Buffer | StoredBytesStream | null | undefined> {
  const r = await db.selectFrom('received_messages').select(['raw', 'raw_blob', 'size'])
    .where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!r) return undefined;
  if (!r.raw) return null;
  return storedBytesForDownload(db, r.raw, r.raw_blob, r.size);
}

export interface ReceivedFilter {
  agentId?: string | null;
  threadId?: string | null;
  search?: MessageSearch | null;
}

export async function listReceived(db: Db, workspaceId: string, f: ReceivedFilter, page: PageRequest): Promise<PageResult<ReceivedSummaryRow>> {
  let q = db.selectFrom('received_messages').select(SUMMARY_COLUMNS).where('workspace_id', '=', workspaceId);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.threadId) q = q.where('thread_id', '=', f.threadId);
  // A text search on SQLite is paged by searchPage (repos/search.ts), which adds the text match.
  const match = textMatchOf(db, f.search);
  if (f.search) for (const cond of receivedConditions(db, f.search, match === null)) q = q.where(cond);
  const res = match === null ? await paginate<Stored>(q, 'id', page, 'received messages') : await searchPage<Stored>(db, q, 'received', match, page, 'received messages');
  return { ...res, rows: res.rows.map(decode) };
}

/** Marks read (first time only: read_at keeps the first read) or unread. */
export async function setReceivedRead(db: Db, id: string, read: boolean, atIso: string): Promise<void> {
  if (read) await db.updateTable('received_messages').set({ read_at: atIso }).where('id', '=', id).where('read_at', 'is', null).execute();
  else await db.updateTable('received_messages').set({ read_at: null }).where('id', '=', id).execute();
}

/** One attachment with its bytes, scoped to its message (GET /v1/messages/{id}/attachments/{attachment_id}). */
export async function receivedAttachment(db: Db, messageId: string, attachmentId: string): Promise<(AttachmentRow & { content: Buffer }) | undefined> {
  const a = await db.selectFrom('received_attachments').selectAll()
    .where('received_message_id', '=', messageId).where('id', '=', attachmentId).executeTakeFirst();
  return a && withContent(db, a);
}

/** One attachment's row and its content for a download (a stream when stored in pieces; undefined: none, or deleted). */
export async function receivedAttachmentDownload(db: Db, messageId: string, attachmentId: string): Promise<(AttachmentRow & { download: Buffer | StoredBytesStream }) | undefined> {
  const a = await db.selectFrom('received_attachments').selectAll()
    .where('received_message_id', '=', messageId).where('id', '=', attachmentId).executeTakeFirst();
  if (!a) return undefined;
  const { content_blob: blob, ...row } = a;
  const download = await storedBytesForDownload(db, row.content, blob, row.size);
  return download && { ...row, download };
}

/** An attachment row with its whole content (head + blob); undefined when its pieces vanished (deleted meanwhile). */
async function withContent(db: Db, a: ReceivedAttachmentsTable): Promise<(AttachmentRow & { content: Buffer }) | undefined> {
  const { content_blob: blob, ...row } = a;
  if (!blob) return row;
  const content = await readStoredBytes(db, row.content, blob, row.size);
  return content && { ...row, content };
}

export async function attachmentsOf(db: Db, messageId: string): Promise<AttachmentRow[]> {
  return db.selectFrom('received_attachments')
    .select(['id', 'received_message_id', 'workspace_id', 'position', 'filename', 'content_type', 'content_id', 'disposition', 'size', 'sha256'])
    .where('received_message_id', '=', messageId).orderBy('position').execute();
}

export async function attachmentContents(db: Db, messageId: string): Promise<(AttachmentRow & { content: Buffer })[]> {
  const rows = await db.selectFrom('received_attachments').selectAll()
    .where('received_message_id', '=', messageId).orderBy('position').execute();
  const out: (AttachmentRow & { content: Buffer })[] = [];
  for (const r of rows) {
    const a = await withContent(db, r);
    if (a) out.push(a);
  }
  return out;
}

/**
 * The oldest deliverable message for an agent after a point (long-poll wait). held_code records are
 * never returned (spec: Plus addresses, "no wait finds it"); plus_address_limit records are, so the
 * waiter can answer 402.
 */
export async function nextReceived(
  db: Db, agentId: string, after: { id?: string | null; at?: string | null }, address: string | null,
): Promise<ReceivedRow | undefined> {
  let q = db.selectFrom('received_messages').select(FULL_COLUMNS).where('agent_id', '=', agentId)
    .where((eb) => eb.or([eb('over_limit', 'is', null), eb('over_limit', '!=', 'held_code')]));
  if (after.id) q = q.where('id', '>', after.id);
  if (after.at) q = q.where('received_at', '>=', after.at);
  if (address) q = q.where('recipient', '=', address);
  const r = await q.orderBy('id', 'asc').limit(1).executeTakeFirst();
  return r && decode(r);
}

/**
 * Sender history for the classifier (earlier mail to this workspace). Counts stop at HISTORY_CAP:
 * reputation uses their logarithm, and a prolific sender must not make every message slower.
 */
export const HISTORY_CAP = 1000;

/**
 * Counts that reached HISTORY_CAP (SQLite, one daemon): such a count can only fall when received
 * messages are deleted, so it is not read again until then — each read scans HISTORY_CAP index
 * entries, the largest SQL cost of an inbound message from a prolific sender (~0.1 ms each on
 * the main thread). deleteMessages (repos/retention.ts, every deletion of received messages)
 * forgets them all, before it deletes. Not on PostgreSQL: another daemon may delete. Capped at
 * SATURATED_MAX keys (then emptied: it only saves reads).
 */
const saturated = new Set<string>();
const SATURATED_MAX = 10_000;
export function forgetSaturatedCounts(): void {
  saturated.clear();
}

/** Each count reads at most HISTORY_CAP index entries (a subquery with a LIMIT). */
const countsOfSender = {
  sender: defineQuery((db, p: { workspaceId: string; value: string }) => db.selectFrom(
    db.selectFrom('received_messages').select('from_address').where('workspace_id', '=', p.workspaceId).where('over_limit', 'is', null)
      .where('from_address', '=', p.value).limit(HISTORY_CAP).as('s'),
  ).select((eb) => eb.fn.countAll<number>().as('n'))),
  replies: defineQuery((db, p: { workspaceId: string; value: string }) => db.selectFrom(
    db.selectFrom('received_messages').select('answers_message_id').where('workspace_id', '=', p.workspaceId).where('over_limit', 'is', null)
      .where('from_address', '=', p.value).where('answers_message_id', 'is not', null).limit(HISTORY_CAP).as('s'),
  ).select((eb) => eb.fn.countAll<number>().as('n'))),
  domain: defineQuery((db, p: { workspaceId: string; value: string }) => db.selectFrom(
    db.selectFrom('received_messages').select('from_domain').where('workspace_id', '=', p.workspaceId).where('over_limit', 'is', null)
      .where('from_domain', '=', p.value).limit(HISTORY_CAP).as('s'),
  ).select((eb) => eb.fn.countAll<number>().as('n'))),
};

export async function senderCounts(db: Db, workspaceId: string, from: string, domain: string): Promise<{ fromSender: number; fromDomain: number; repliesFromSender: number }> {
  const remember = dialectOf(db) === 'sqlite';
  const count = async (key: keyof typeof countsOfSender) => {
    const value = key === 'domain' ? domain : from;
    const k = `${key}\0${workspaceId}\0${value}`;
    if (remember && saturated.has(k)) return HISTORY_CAP;
    const n = Number((await countsOfSender[key].first(db, { workspaceId, value }))?.n ?? 0);
    if (remember && n >= HISTORY_CAP) {
      if (saturated.size >= SATURATED_MAX) saturated.clear();
      saturated.add(k);
    }
    return n;
  };
  const fromSender = await count('sender');
  // Replies are some of the sender's messages (same filters, plus answers_message_id): none from
  // the sender, none of them replies — a first message from an address skips the statement.
  const replies = fromSender === 0 ? 0 : await count('replies');
  const fromDomain = await count('domain');
  return { fromSender, fromDomain, repliesFromSender: replies };
}

// ---- plus addresses (spec: Limits → Plus addresses)

/**
 * Plus-address windows and the over-limit record cap are read-check-then-write (count, decide,
 * insert): concurrent messages of one workspace take turns from here to their commit
 * (PostgreSQL: an advisory lock; SQLite has one writer), so the count each one reads includes
 * the others' rows even under READ COMMITTED (services/inbound.ts).
 */
export async function lockPlusAddressWindow(db: Db, workspaceId: string): Promise<void> {
  await lockKey(db, `plus-addresses:${workspaceId}`);
}

export async function plusAddressLastReceived(db: Db, workspaceId: string, address: string): Promise<string | undefined> {
  const r = await db.selectFrom('inbound_plus_addresses').select('last_received_at')
    .where('workspace_id', '=', workspaceId).where('address', '=', address).executeTakeFirst();
  return r?.last_received_at;
}

export async function countPlusAddressesSince(db: Db, workspaceId: string, sinceIso: string): Promise<number> {
  const r = await db.selectFrom('inbound_plus_addresses').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId).where('last_received_at', '>', sinceIso).executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Distinct plus addresses of the workspace that kept mail (not a record) arriving over SMTP since
 * `sinceIso` — from one From domain, or (`unverified`) from mail with neither a trusted network
 * nor a DMARC pass. The shares of services/plus-addresses.ts are counted with these: an address
 * reached by such mail counts whoever opened it (an over-count, never an under-count).
 */
export async function countPlusAddressesReachedSince(
  db: Db, workspaceId: string, sinceIso: string, by: { fromDomain: string } | { unverified: true },
): Promise<number> {
  let q = db.selectFrom('received_messages').select((eb) => eb.fn.count<number>('plus_address').distinct().as('n'))
    .where('workspace_id', '=', workspaceId).where('over_limit', 'is', null).where('received_at', '>', sinceIso)
    .where('plus_address', 'is not', null).where('source', '=', 'smtp');
  if ('fromDomain' in by) q = q.where('from_domain', '=', by.fromDomain);
  else q = q.where('trusted_network', 'is', null).where((eb) => eb.or([eb('dmarc', 'is', null), eb('dmarc', '!=', 'pass')]));
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function touchPlusAddress(db: Db, workspaceId: string, address: string, atIso: string): Promise<void> {
  await db.insertInto('inbound_plus_addresses')
    .values({ workspace_id: workspaceId, address, first_received_at: atIso, last_received_at: atIso })
    .onConflict((oc) => oc.columns(['workspace_id', 'address']).doUpdateSet({ last_received_at: atIso }))
    .execute();
}

export async function countOverLimitRecordsSince(db: Db, workspaceId: string, sinceIso: string): Promise<number> {
  const r = await db.selectFrom('received_messages').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId).where('over_limit', 'is not', null).where('received_at', '>', sinceIso)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function lastOverLimitFor(db: Db, workspaceId: string, address: string, sinceIso: string): Promise<ReceivedSummaryRow | undefined> {
  const r = await db.selectFrom('received_messages').select(SUMMARY_COLUMNS)
    .where('workspace_id', '=', workspaceId).where('recipient', '=', address).where('over_limit', '=', 'plus_address_limit')
    .where('received_at', '>', sinceIso).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return r && decode(r);
}
