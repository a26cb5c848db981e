import { sql } from 'kysely';
import { claimIn } from '../dialect.js';
import type { Db, Decoded } from '../schema.js';
import type { DraftsTable } from '../tables/resources.js';
import { json, listBodyText, paginate, type ListsEveryColumn, type PageRequest, type PageResult } from '../paginate.js';
import { deleteBlobs, readStoredBytes, writeBlob, yieldTurn } from './blobs.js';

export type DraftStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'failed' | 'canceled';

export type DraftRow = Decoded<DraftsTable, {
  mode: 'live' | 'test';
  to: string[];
  cc: string[];
  bcc: string[];
  tags: { name: string; value: string }[];
  metadata: Record<string, string>;
  /**
   * reply_to, attachments, in_reply_to_message_id, references: passed to the send. An attachment
   * item is the request's own (`content_base64`/`content`: small ones, and every one stored
   * before round 2 session 14) or a stored blob (DraftBlobRef: the large ones since).
   */
  extra: Record<string, unknown>;
  status: DraftStatus;
}, 'to_addrs'>;

function decode(r: DraftsTable): DraftRow {
  const { to_addrs, ...rest } = r;
  return {
    ...rest,
    mode: r.mode as DraftRow['mode'],
    status: r.status as DraftStatus,
    to: json<string[]>(to_addrs, []),
    cc: json<string[]>(r.cc, []),
    bcc: json<string[]>(r.bcc, []),
    tags: json(r.tags, []),
    metadata: json(r.metadata, {}),
    extra: json(r.extra, {}),
  };
}

function encode(r: Partial<DraftRow>): Partial<DraftsTable> {
  const { to, ...rest } = r;
  const out = { ...(rest as Record<string, unknown>) } as Partial<DraftsTable>;
  if (to !== undefined) out.to_addrs = JSON.stringify(to);
  if (r.cc !== undefined) out.cc = JSON.stringify(r.cc);
  if (r.bcc !== undefined) out.bcc = JSON.stringify(r.bcc);
  if (r.tags !== undefined) out.tags = JSON.stringify(r.tags);
  if (r.metadata !== undefined) out.metadata = JSON.stringify(r.metadata);
  if (r.extra !== undefined) out.extra = JSON.stringify(r.extra);
  return out;
}

/**
 * A large draft attachment (issue #13): its decoded bytes are a blob (blob_chunks, repos/blobs.ts)
 * named `draft.<draft id>.<attachment id>`, and the draft's `extra.attachments` item says only
 * which, and how many bytes. Such an item has `blob` and no `content_base64`/`content`; an item a
 * client sent is never stored with a `blob` key (services/drafts.ts rebuilds every stored item).
 */
export interface DraftBlobRef { filename: string; content_type?: string; blob: string; size: number }

export const draftBlobId = (draftId: string, attachmentId: string): string => `draft.${draftId}.${attachmentId}`;
/** The draft a draft blob id belongs to (the orphan sweep), or null for another kind of blob. */
export const draftOfBlob = (blobId: string): string | null => /^draft\.([^.]+)\./.exec(blobId)?.[1] ?? null;

/** Whether a stored draft's attachment item is a blob reference of that draft. */
export function isDraftBlobRef(draftId: string, item: unknown): item is DraftBlobRef {
  if (typeof item !== 'object' || item === null) return false;
  const o = item as Record<string, unknown>;
  return typeof o.blob === 'string' && o.blob.startsWith(`draft.${draftId}.`) && typeof o.size === 'number'
    && o.content_base64 === undefined && o.content === undefined;
}

/** The blob ids a stored draft's `extra` names. */
export function draftBlobIds(r: Pick<DraftRow, 'id' | 'extra'>): string[] {
  const list = r.extra.attachments;
  return Array.isArray(list) ? list.filter((a) => isDraftBlobRef(r.id, a)).map((a) => (a as DraftBlobRef).blob) : [];
}

/** Write draft blobs in the caller's transaction, a piece per statement (PostgreSQL; SQLite without the writer thread). */
export async function writeDraftBlobs(db: Db, blobs: { id: string; data: Uint8Array }[]): Promise<void> {
  for (const b of blobs) {
    await yieldTurn();
    await writeBlob(db, b.id, b.data);
  }
}

/** Delete draft blobs (a few pieces per statement, yielding between). */
export async function deleteDraftBlobs(db: Db, ids: string[]): Promise<void> {
  await deleteBlobs(db, ids);
}

/** A draft blob's bytes (read a few pieces per statement), or undefined when they are not all there. */
export async function readDraftBlob(db: Db, ref: DraftBlobRef): Promise<Buffer | undefined> {
  return readStoredBytes(db, new Uint8Array(0), ref.blob, ref.size);
}

export async function insertDraft(db: Db, row: DraftRow): Promise<void> {
  await db.insertInto('drafts').values(encode(row) as DraftsTable).execute();
}

export async function updateDraft(db: Db, id: string, patch: Partial<DraftRow>): Promise<void> {
  await db.updateTable('drafts').set(encode(patch)).where('id', '=', id).execute();
}

/**
 * Move a draft from one of `from` to `patch.status` only if it is still there (claims a send).
 * `extraWas`: and only if its `extra` is still that (an edit that read blob references must not
 * write them back after another edit replaced, and deleted, them).
 */
export async function transitionDraft(db: Db, id: string, from: DraftStatus[], patch: Partial<DraftRow>, extraWas?: Record<string, unknown>): Promise<boolean> {
  let q = db.updateTable('drafts').set(encode(patch)).where('id', '=', id).where('status', 'in', from)
    .where('deleted_at', 'is', null);
  if (extraWas) q = q.where('extra', '=', JSON.stringify(extraWas));
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function getDraft(db: Db, workspaceId: string, id: string): Promise<DraftRow | undefined> {
  const r = await db.selectFrom('drafts').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id)
    .where('deleted_at', 'is', null).executeTakeFirst();
  return r && decode(r);
}

/** A draft that may still be sent (not deleted, not sent): its id and `extra`, for the orphan-blob sweep (repos/blob-sweep.ts). */
export async function getDraftForSweep(db: Db, id: string): Promise<Pick<DraftRow, 'id' | 'extra'> | undefined> {
  const r = await db.selectFrom('drafts').select(['id', 'extra']).where('id', '=', id).where('deleted_at', 'is', null)
    .where('status', '!=', 'sent').executeTakeFirst();
  return r && { id: r.id, extra: json(r.extra, {}) };
}

/** Every column but the bodies and `extra` (attachments, base64): a list reads a prefix of the text body only. */
const LIST_COLUMNS = [
  'id', 'workspace_id', 'agent_id', 'created_by_key_id', 'mode', 'to_addrs', 'cc', 'bcc', 'subject', 'tags', 'metadata',
  'status', 'send_at', 'sent_message_id', 'thread_id', 'error_message', 'sending_started_at', 'next_attempt_at', 'sent_at',
  'created_at', 'updated_at', 'deleted_at',
] as const;
// A column added to the table must be added above (or to the three left out): this fails to compile until it is.
const listColumnsComplete: ListsEveryColumn<DraftsTable, (typeof LIST_COLUMNS)[number], 'body_text' | 'body_html' | 'extra'> = true;
void listColumnsComplete;

/**
 * A page of drafts, newest first. The rows' `body_text` is its first LIST_BODY_CHARS characters,
 * `body_html` is null and `extra` is empty: a draft may hold 40 MiB (attachments), and a page of
 * 100 was read, decoded and serialised whole on the main thread.
 */
export async function listDrafts(db: Db, workspaceId: string, f: { agentId?: string | null; status?: string | null }, page: PageRequest): Promise<PageResult<DraftRow>> {
  let q = db.selectFrom('drafts').select(LIST_COLUMNS)
    .select(listBodyText().as('body_text'))
    .select(sql<null>`null`.as('body_html'))
    .select(sql<string>`'{}'`.as('extra'))
    .where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.status) q = q.where('status', '=', f.status);
  const res = await paginate<DraftsTable>(q, 'id', page, 'drafts');
  return { ...res, rows: res.rows.map(decode) };
}

/** Drafts claimed `sending` before `staleBefore` and never finished (their daemon died mid-send). */
export async function stalledDrafts(db: Db, staleBefore: string, max: number): Promise<DraftRow[]> {
  const rows = await db.selectFrom('drafts').selectAll().where('status', '=', 'sending').where('deleted_at', 'is', null)
    .where('sending_started_at', '<=', staleBefore).orderBy('sending_started_at').limit(max).execute();
  return rows.map(decode);
}

/**
 * Claim scheduled drafts whose time (and retry time, if any) has come, oldest first, in one
 * statement: each moves `scheduled → sending` for this daemon only (rows another daemon is
 * claiming right now are skipped: dialect.ts claimIn). stalledDrafts is their lease.
 */
export async function claimDueDrafts(db: Db, nowIso: string, max: number): Promise<DraftRow[]> {
  const rows = await db.updateTable('drafts').set({ status: 'sending', sending_started_at: nowIso, updated_at: nowIso })
    .where(claimIn(db, 'id', db.selectFrom('drafts').select('id').where('status', '=', 'scheduled').where('deleted_at', 'is', null)
      .where('send_at', '<=', nowIso)
      .where((w) => w.or([w('next_attempt_at', 'is', null), w('next_attempt_at', '<=', nowIso)]))
      .orderBy('send_at').limit(max)))
    .where('status', '=', 'scheduled')
    .returningAll().execute();
  return rows.map(decode).sort((x, y) => (x.send_at ?? '').localeCompare(y.send_at ?? ''));
}

/** The earliest time a scheduled draft is due (the worker sleeps until then). */
export async function nextDueAt(db: Db): Promise<string | null> {
  const r = await db.selectFrom('drafts').select((eb) => eb.fn.min(eb.fn.coalesce('next_attempt_at', 'send_at')).as('at'))
    .where('status', '=', 'scheduled').where('deleted_at', 'is', null).executeTakeFirst();
  return (r?.at as string | null | undefined) ?? null;
}

export async function agentHasLiveDraft(db: Db, agentId: string): Promise<boolean> {
  const r = await db.selectFrom('drafts').select('id').where('agent_id', '=', agentId).where('mode', '=', 'live')
    .where('deleted_at', 'is', null).where('status', 'in', ['draft', 'scheduled', 'sending', 'failed']).limit(1).executeTakeFirst();
  return r !== undefined;
}
