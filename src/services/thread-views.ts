import type { Thread, ThreadListQuery, ThreadUpdate, ThreadWithMessages } from '../contract/threads.js';
import type { PageOf } from '../contract/common.js';
import {
  getThread, listThreadsView, purgeThread, threadHasSending, threadMessages, updateThread, type ThreadRow,
} from '../db/repos/threads.js';
import { Errors } from '../shared/errors.js';
import { isoAt } from '../shared/clock.js';
import { inboundSettled, inTransaction, type AppContext, type AuthContext, type Tx } from './context.js';
import { requireNotConnectedApp } from './auth.js';
import { emitEvent } from './events.js';
import { resolveAgent } from './agents.js';
import { ensureLabels, normalizeLabelName } from './labels.js';
import { recordAudit } from './audit-log.js';
import { pageOf } from '../db/paginate.js';
import { searchFor } from './search.js';

export function toThread(r: ThreadRow): Thread {
  return {
    id: r.id, object: 'thread', agent_id: r.agent_id, subject: r.subject, last_message_at: r.last_message_at,
    message_count: r.message_count, participants: r.participants, labels: r.labels, status: r.status,
    trashed_at: r.trashed_at, has_live_mail: r.has_live, created_at: r.created_at, updated_at: r.updated_at,
  };
}

/** A thread the caller may see: same workspace, not deleted, and its own agent's for a bound key (else 404). */
export async function requireThread(ctx: AppContext, auth: AuthContext, id: string, db = ctx.db): Promise<ThreadRow> {
  const t = await getThread(db, auth.workspaceId, id);
  if (!t || t.deleted_at || (auth.agentId && t.agent_id !== auth.agentId)) throw Errors.notFound('thread', id);
  return t;
}

export async function listThreadsPage(ctx: AppContext, auth: AuthContext, q: ThreadListQuery): Promise<PageOf<Thread>> {
  await inboundSettled(ctx);
  const agentId = q.agent_id ? (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id : auth.agentId;
  const res = await listThreadsView(ctx.db, auth.workspaceId, { agentId, status: q.status, label: q.label, trashed: q.trashed ?? false, search: await searchFor(ctx, q.q) }, q);
  return pageOf(res, res.rows.map(toThread));
}

export async function getThreadView(ctx: AppContext, auth: AuthContext, id: string): Promise<ThreadWithMessages> {
  await inboundSettled(ctx);
  const t = await requireThread(ctx, auth, id);
  const messages = await threadMessages(ctx.db, auth.workspaceId, t.id);
  return {
    ...toThread(t),
    messages: messages.map((m) => ({
      id: m.id, direction: m.direction, from: m.from, from_name: m.from_name, to: m.to, ...(m.to_all ? { to_all: m.to_all } : {}), cc: m.cc, subject: m.subject,
      snippet: m.snippet, status: m.status, test_mode: m.test_mode, sent_at: m.sent_at, received_at: m.received_at,
      created_at: m.created_at,
    })),
  };
}

async function changed(ctx: AppContext, tx: Tx, auth: AuthContext, t: ThreadRow, change: Record<string, unknown>): Promise<void> {
  await emitEvent(ctx, tx, {
    type: 'thread.updated', workspaceId: t.workspace_id, agentId: t.agent_id, threadId: t.id, testMode: auth.mode === 'test',
    data: { thread_id: t.id, subject: t.subject, message_count: t.message_count, last_message_at: t.last_message_at, status: t.status, labels: t.labels, trashed_at: t.trashed_at, change },
  });
}

export async function updateThreadView(ctx: AppContext, auth: AuthContext, id: string, body: ThreadUpdate): Promise<Thread> {
  const t = await requireThread(ctx, auth, id);
  assertMayTouchLive(auth, t, 'change');
  const labels = body.labels === undefined ? undefined : [...new Set(body.labels.map((l, i) => normalizeLabelName(l, `labels[${i}]`)))];
  return inTransaction(ctx, async (tx) => {
    const patch: Partial<ThreadRow> = {};
    if (labels !== undefined && JSON.stringify(labels) !== JSON.stringify(t.labels)) {
      await ensureLabels(ctx, tx, auth, labels);
      patch.labels = labels;
    }
    if (body.status !== undefined && body.status !== t.status) patch.status = body.status;
    if (!Object.keys(patch).length) return toThread(t);
    patch.updated_at = isoAt(ctx.clock.now());
    await updateThread(tx.db, t.id, patch);
    const updated = { ...t, ...patch };
    const change = Object.fromEntries(Object.keys(patch).filter((k) => k !== 'updated_at').map((k) => [k, { from: t[k as keyof ThreadRow], to: patch[k as keyof ThreadRow] }]));
    await changed(ctx, tx, auth, updated, change);
    return toThread(updated);
  });
}

/**
 * Spec: live_mode_required — a test key trashing or deleting a thread with live mail; also
 * changing its status or labels and restoring it from the trash (docs/security.md: test keys get
 * 403 on live threads).
 */
function assertMayTouchLive(auth: AuthContext, t: ThreadRow, what: string): void {
  if (auth.mode === 'test' && t.has_live) throw Errors.liveModeRequired(`${what} thread ${t.id}, which has live mail`);
}

export async function trashThread(ctx: AppContext, auth: AuthContext, id: string): Promise<Thread> {
  const t = await requireThread(ctx, auth, id);
  assertMayTouchLive(auth, t, 'trash');
  if (t.trashed_at) return toThread(t);
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    await updateThread(tx.db, t.id, { trashed_at: at, updated_at: at });
    const updated = { ...t, trashed_at: at, updated_at: at };
    await changed(ctx, tx, auth, updated, { trashed_at: { from: null, to: at } });
    return toThread(updated);
  });
}

export async function restoreThread(ctx: AppContext, auth: AuthContext, id: string): Promise<Thread> {
  const t = await requireThread(ctx, auth, id);
  assertMayTouchLive(auth, t, 'restore');
  if (!t.trashed_at) return toThread(t);
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    await updateThread(tx.db, t.id, { trashed_at: null, updated_at: at });
    const updated = { ...t, trashed_at: null, updated_at: at };
    await changed(ctx, tx, auth, updated, { trashed_at: { from: t.trashed_at, to: null } });
    return toThread(updated);
  });
}

/** Drafts of the thread being sent right now (a draft send also counts as "one of its messages"). */
async function threadDraftSending(tx: Tx, threadId: string): Promise<boolean> {
  const r = await tx.db.selectFrom('drafts').select('id').where('thread_id', '=', threadId).where('status', '=', 'sending').limit(1).executeTakeFirst();
  return r !== undefined;
}

export async function deleteThreadForGood(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; deleted_at: string }> {
  requireNotConnectedApp(auth, 'delete a thread for good (moving it to the trash is allowed)');
  const t0 = await requireThread(ctx, auth, id);
  assertMayTouchLive(auth, t0, 'delete');
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    const t = await requireThread(ctx, auth, id, tx.db);
    if ((await threadHasSending(tx.db, t.workspace_id, t.id)) || (await threadDraftSending(tx, t.id))) {
      throw Errors.duplicate(`A message of thread ${t.id} is being sent right now; delete the thread once it has gone out.`);
    }
    const purged = await purgeThread(tx.db, auth.workspaceId, t.id, at);
    await emitEvent(ctx, tx, {
      type: 'thread.deleted', workspaceId: t.workspace_id, agentId: t.agent_id, threadId: t.id, testMode: auth.mode === 'test',
      data: { thread_id: t.id, deleted_at: at, messages_deleted: purged.sent + purged.received },
    });
    await recordAudit(ctx, tx.db, {
      workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'thread', action: 'thread.deleted', targetId: t.id,
      agentId: t.agent_id, metadata: { sent_deleted: purged.sent, received_deleted: purged.received },
    });
    return { id: t.id, deleted_at: at };
  });
}
