import type { Db, ThreadsTable } from '../schema.js';
import { bool, json, paginate, type PageRequest, type PageResult } from '../paginate.js';

export interface ThreadRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  subject: string;
  normalized_subject: string;
  status: 'open' | 'closed' | 'archived';
  labels: string[];
  participants: string[];
  message_count: number;
  last_message_at: string;
  has_live: boolean;
  trashed_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

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
  await db.insertInto('threads').values(encode(row) as ThreadsTable).execute();
}

export async function updateThread(db: Db, id: string, patch: Partial<ThreadRow>): Promise<void> {
  await db.updateTable('threads').set(encode(patch)).where('id', '=', id).execute();
}

export async function getThread(db: Db, workspaceId: string, id: string): Promise<ThreadRow | undefined> {
  const r = await db.selectFrom('threads').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export interface ThreadFilter {
  agentId?: string | null;
  status?: string | null;
  label?: string | null;
  trashed?: boolean;
}

export async function listThreads(db: Db, workspaceId: string, f: ThreadFilter, page: PageRequest): Promise<PageResult<ThreadRow>> {
  let q = db.selectFrom('threads').selectAll().where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.label) q = q.where('labels', 'like', `%${JSON.stringify(f.label)}%`);
  q = f.trashed ? q.where('trashed_at', 'is not', null) : q.where('trashed_at', 'is', null);
  const res = await paginate<ThreadsTable>(q, 'id', page);
  return { ...res, rows: res.rows.map(decode) };
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

export async function insertRef(db: Db, ref: { agent_id: string; rfc_message_id: string; workspace_id: string; message_id: string; thread_id: string; direction: string; created_at: string }): Promise<void> {
  await db.insertInto('message_refs').values(ref).onConflict((oc) => oc.columns(['agent_id', 'rfc_message_id']).doNothing()).execute();
}

export async function agentHasLiveThreads(db: Db, agentId: string): Promise<boolean> {
  const r = await db.selectFrom('threads').select('id').where('agent_id', '=', agentId).where('has_live', '=', 1).limit(1).executeTakeFirst();
  return r !== undefined;
}
