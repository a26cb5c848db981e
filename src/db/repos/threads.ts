import { sql, type SqlBool } from 'kysely';
import { deleteMessages, tombstoneThread } from './retention.js';
import { dialectOf, jsonArrayHas, lockRowForUpdate } from '../dialect.js';
import type { Db, Decoded, MessageRefsTable, ThreadsTable } from '../schema.js';
import { insertRow, insertRowNow } from '../insert-row.js';
import { bool, decodeCursor, encodeCursor, json, type PageRequest, type PageResult } from '../paginate.js';
import { threadConditions, type MessageSearch } from './search.js';
import { Errors } from '../../shared/errors.js';

export type ThreadRow = Decoded<ThreadsTable, {
  status: 'open' | 'closed' | 'archived';
  labels: string[];
  participants: string[];
  has_live: boolean;
}>;

function decode(r: ThreadsTable): ThreadRow {
  return {
    ...r,
    status: r.status as ThreadRow['status'],
    labels: json<string[]>(r.labels, []),
    participants: json<string[]>(r.participants, []),
    has_live: bool(r.has_live),
  };
}

function encode(r: Partial<ThreadRow>): Partial<ThreadsTable> {
  const out = { ...(r as Record<string, unknown>) } as Partial<ThreadsTable>;
  if (r.labels !== undefined) out.labels = JSON.stringify(r.labels);
  if (r.participants !== undefined) out.participants = JSON.stringify(r.participants);
  if (r.has_live !== undefined) out.has_live = r.has_live ? 1 : 0;
  return out;
}

export async function insertThread(db: Db, row: ThreadRow): Promise<void> {
  const r = encode(row) as ThreadsTable;
  if (!insertRowNow(db, 'threads', r)) await insertRow(db, 'threads', r);
}

export async function updateThread(db: Db, id: string, patch: Partial<ThreadRow>): Promise<void> {
  await db.updateTable('threads').set(encode(patch)).where('id', '=', id).execute();
}

export async function getThread(db: Db, workspaceId: string, id: string): Promise<ThreadRow | undefined> {
  const r = await db.selectFrom('threads').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

/** getThread, the row locked until the transaction ends (it is about to be updated: dialect.ts lockRowForUpdate). */
export async function getThreadForUpdate(db: Db, workspaceId: string, id: string): Promise<ThreadRow | undefined> {
  const r = await db.selectFrom('threads').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id)
    .$call(lockRowForUpdate(db)).executeTakeFirst();
  return r && decode(r);
}

export interface ThreadFilter {
  agentId?: string | null;
  status?: string | null;
  label?: string | null;
  trashed?: boolean;
  search?: MessageSearch | null;
}

export async function findRefThread(db: Db, agentId: string, rfcIds: string[]): Promise<{ thread_id: string; message_id: string; direction: string } | undefined> {
  if (!rfcIds.length) return undefined;
  const rows = await db.selectFrom('message_refs').select(['rfc_message_id', 'thread_id', 'message_id', 'direction'])
    .where('agent_id', '=', agentId).where('rfc_message_id', 'in', rfcIds).execute();
  // Prefer the id listed first (In-Reply-To comes first, then References newest to oldest).
  for (const id of rfcIds) {
    const hit = rows.find((r) => r.rfc_message_id === id);
    if (hit) return hit;
  }
  return undefined;
}

const REF_KEY = ['agent_id', 'rfc_message_id'];

export async function insertRef(db: Db, ref: MessageRefsTable): Promise<void> {
  if (!insertRowNow(db, 'message_refs', ref, REF_KEY)) await insertRow(db, 'message_refs', ref, REF_KEY);
}

export async function agentHasLiveThreads(db: Db, agentId: string): Promise<boolean> {
  const r = await db.selectFrom('threads').select('id').where('agent_id', '=', agentId).where('has_live', '=', 1).limit(1).executeTakeFirst();
  return r !== undefined;
}

// ---- thread views (resources feature): lists with an exact label match, messages of a thread, permanent delete

export async function listThreadsView(db: Db, workspaceId: string, f: ThreadFilter, page: PageRequest): Promise<PageResult<ThreadRow>> {
  const search = f.search ? threadConditions(db, workspaceId, f.search) : [];
  // With a search, the threads are those the matching messages name (the subquery, read whole
  // either way): SQLite is told to look them up by id and sort them (the workspace condition
  // written `+workspace_id`, which no index serves) instead of walking every thread of the
  // workspace in activity order to test each — a rare match read all of them (issue #13).
  let q = db.selectFrom('threads').selectAll()
    .where(search.length && dialectOf(db) === 'sqlite' ? sql<SqlBool>`+threads.workspace_id = ${workspaceId}` : sql<SqlBool>`threads.workspace_id = ${workspaceId}`)
    .where('deleted_at', 'is', null);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  // The partial indexes of migration 0030 hold filed, labelled and trashed threads only: the
  // redundant literal conditions let SQLite see that they apply (a bound value does not).
  if (f.status) q = q.where('status', '=', f.status);
  if (f.status && f.status !== 'open') q = q.where(sql<SqlBool>`status <> 'open'`);
  if (f.label) q = q.where(sql<SqlBool>`labels <> '[]'`).where(jsonArrayHas(db, 'labels', f.label));
  for (const cond of search) q = q.where(cond);
  q = f.trashed ? q.where('trashed_at', 'is not', null) : q.where('trashed_at', 'is', null);
  // Most recent activity first (a reply moves its thread to the top), id breaking ties; the
  // cursor is the last row's "last_message_at id" (both printable, see encodeCursor).
  const limit = page.limit ?? 25;
  if (page.cursor) {
    const [at, id] = decodeCursor('threads', page.cursor).split('|');
    if (!at || !id) throw Errors.invalidParam('cursor', 'The cursor is not valid (altered or cut short); pass the `next_cursor` of the previous page of this list unchanged, or leave `cursor` out to start from the first page.');
    // A row value, not `last_message_at < at OR (last_message_at = at AND id < id)`: both engines
    // read it as a range of the activity indexes (SQLite walked the OR form from the workspace's
    // newest thread and skipped every earlier page's rows: page n read 20·n rows; issue #13).
    q = q.where((eb) => eb(eb.refTuple('last_message_at', 'id'), '<', eb.tuple(at, id)));
  }
  const rows = (await q.orderBy('last_message_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute()) as ThreadsTable[];
  const has_more = rows.length > limit;
  if (has_more) rows.pop();
  const last = rows[rows.length - 1];
  return { rows: rows.map(decode), has_more, ...(has_more && last ? { next_cursor: encodeCursor('threads', `${last.last_message_at}|${last.id}`) } : {}) };
}

/** Threads of a workspace carrying a label (for rename and delete of the label). */
export async function threadsWithLabel(db: Db, workspaceId: string, label: string): Promise<ThreadRow[]> {
  const rows = await db.selectFrom('threads').selectAll().where('workspace_id', '=', workspaceId)
    .where(jsonArrayHas(db, 'labels', label)).execute();
  return rows.map(decode);
}

export interface ThreadMessageRow {
  id: string;
  direction: 'outbound' | 'inbound';
  from: string;
  from_name: string | null;
  /** Outbound: the recipients; inbound: the address it was delivered to (compat.md). */
  to: string | string[];
  /** Inbound only: every address of the To header. */
  to_all?: string[];
  cc: string[];
  subject: string;
  snippet: string;
  status: string;
  test_mode: boolean;
  at: string;
  sent_at: string | null;
  received_at: string | null;
  created_at: string;
}

const snippetOf = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);

/** Both directions of a thread, oldest first (sent by creation time, received by arrival). */
export async function threadMessages(db: Db, workspaceId: string, threadId: string): Promise<ThreadMessageRow[]> {
  const sent = await db.selectFrom('sent_messages')
    .select(['id', 'from_address', 'from_name', 'to', 'cc', 'subject', 'body_text', 'status', 'test_mode', 'sent_at', 'created_at'])
    .where('workspace_id', '=', workspaceId).where('thread_id', '=', threadId).execute();
  const received = await db.selectFrom('received_messages')
    .select(['id', 'from_address', 'from_name', 'recipient', 'to', 'cc', 'subject', 'excerpt', 'test_mode', 'received_at'])
    .where('workspace_id', '=', workspaceId).where('thread_id', '=', threadId).execute();
  const out: ThreadMessageRow[] = [
    ...sent.map((m) => ({
      id: m.id, direction: 'outbound' as const, from: m.from_address, from_name: m.from_name,
      to: json<string[]>(m.to, []), cc: json<string[]>(m.cc, []), subject: m.subject,
      snippet: snippetOf(m.body_text), status: m.status, test_mode: bool(m.test_mode), at: m.created_at,
      sent_at: m.sent_at, received_at: null, created_at: m.created_at,
    })),
    ...received.map((m) => ({
      id: m.id, direction: 'inbound' as const, from: m.from_address, from_name: m.from_name,
      to: m.recipient, to_all: json<string[]>(m.to, []), cc: json<string[]>(m.cc, []), subject: m.subject,
      snippet: snippetOf(m.excerpt), status: 'received', test_mode: bool(m.test_mode), at: m.received_at,
      sent_at: null, received_at: m.received_at, created_at: m.received_at,
    })),
  ];
  // Ids share one monotonic generator, so the id breaks ties inside one millisecond.
  return out.sort((a, b) => (a.at === b.at ? (a.id.slice(4) < b.id.slice(4) ? -1 : 1) : a.at < b.at ? -1 : 1));
}

/** Is one of the thread's messages being handed to a transport right now? */
export async function threadHasSending(db: Db, workspaceId: string, threadId: string): Promise<boolean> {
  // Through sent_messages_thread (workspace, thread): the status index holds scheduled sends only (migration 0028).
  const r = await db.selectFrom('sent_messages').select('id').where('workspace_id', '=', workspaceId).where('thread_id', '=', threadId)
    .where('status', '=', 'sending').limit(1).executeTakeFirst();
  return r !== undefined;
}

/**
 * Delete a thread's mail for good: bodies, attachments, raw bytes and Message-ID refs. The thread
 * row stays as a scrubbed tombstone so its id keeps answering 404. Send-log rows stay: caps count
 * mail that was sent even after it is deleted (spec: Limits).
 */
export async function purgeThread(db: Db, workspaceId: string, threadId: string, at: string): Promise<{ sent: number; received: number }> {
  const sentIds = (await db.selectFrom('sent_messages').select('id').where('workspace_id', '=', workspaceId).where('thread_id', '=', threadId).execute()).map((r) => r.id);
  const rcvIds = (await db.selectFrom('received_messages').select('id').where('workspace_id', '=', workspaceId).where('thread_id', '=', threadId).execute()).map((r) => r.id);
  // The same deletion retention uses (raw bytes are a column of the row; attachments, recipients
  // and refs go with it); the thread is tombstoned even when it held no message.
  await deleteMessages(db, rcvIds, sentIds, at);
  await tombstoneThread(db, threadId, at);
  return { sent: sentIds.length, received: rcvIds.length };
}
