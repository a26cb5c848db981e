import type { Label, LabelCreate } from '../contract/threads.js';
import type { ListQuery, PageOf } from '../contract/common.js';
import { deleteLabel, getLabel, insertLabel, labelByName, labelsByNames, listLabels, renameLabel, type LabelRow } from '../db/repos/labels.js';
import { threadsWithLabel, updateThread } from '../db/repos/threads.js';
import { Errors } from '../shared/errors.js';
import { newId, hasPrefix } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext, type Tx } from './context.js';
import { recordAudit } from './audit-log.js';
import { pageOf } from '../db/paginate.js';

export function toLabel(r: LabelRow): Label {
  return { id: r.id, object: 'label', name: r.name, created_at: r.created_at, updated_at: r.updated_at };
}

export function normalizeLabelName(raw: string, param = 'name'): string {
  const name = raw.trim();
  if (!name) throw Errors.invalidParam(param, 'A label name cannot be blank.');
  return name;
}

/** A label by id (`lbl_...`) or by its exact name. */
async function requireLabel(ctx: AppContext, auth: AuthContext, ref: string): Promise<LabelRow> {
  const row = hasPrefix(ref, 'lbl') ? await getLabel(ctx.db, auth.workspaceId, ref) : await labelByName(ctx.db, auth.workspaceId, ref);
  if (!row) throw Errors.notFound('label', ref);
  return row;
}

async function insertNew(ctx: AppContext, tx: Tx, auth: AuthContext, name: string): Promise<LabelRow> {
  const at = isoAt(ctx.clock.now());
  const row: LabelRow = { id: newId('lbl', ctx.clock), workspace_id: auth.workspaceId, name, created_at: at, updated_at: at };
  await insertLabel(tx.db, row);
  await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'label', action: 'label.created', targetId: row.id, metadata: { name } });
  return row;
}

export async function createLabel(ctx: AppContext, auth: AuthContext, body: LabelCreate): Promise<Label> {
  const name = normalizeLabelName(body.name);
  return inTransaction(ctx, async (tx) => {
    if (await labelByName(tx.db, auth.workspaceId, name)) throw Errors.duplicate(`A label named "${name}" already exists.`);
    return toLabel(await insertNew(ctx, tx, auth, name));
  });
}

/**
 * Labels named on a thread must exist; an unbound key creates missing ones on the way (as a
 * mail client does), an agent-bound key may only use existing ones (spec: Agent-bound keys →
 * 403 on creating a label).
 */
export async function ensureLabels(ctx: AppContext, tx: Tx, auth: AuthContext, names: string[]): Promise<void> {
  const known = new Set((await labelsByNames(tx.db, auth.workspaceId, names)).map((l) => l.name));
  const missing = names.filter((n) => !known.has(n));
  if (!missing.length) return;
  if (auth.agentId) {
    throw Errors.insufficientScope(`An agent-bound key cannot create labels; "${missing[0]}" does not exist. Create it with a key that is not bound to an agent.`);
  }
  for (const n of missing) await insertNew(ctx, tx, auth, n);
}

/**
 * Spec: live_mode_required. Renaming or deleting a label rewrites the labels of every thread that
 * carries it: a test key may do so only while no thread with live mail carries it.
 */
async function assertNoLiveThreadCarries(ctx: AppContext, auth: AuthContext, label: LabelRow, what: string): Promise<void> {
  if (auth.mode !== 'test') return;
  const live = (await threadsWithLabel(ctx.db, auth.workspaceId, label.name)).find((t) => t.has_live);
  if (live) throw Errors.liveModeRequired(`${what} label "${label.name}": thread ${live.id}, which has live mail, carries it`);
}

export async function renameLabelByRef(ctx: AppContext, auth: AuthContext, ref: string, body: LabelCreate): Promise<Label> {
  const label = await requireLabel(ctx, auth, ref);
  const name = normalizeLabelName(body.name);
  if (name === label.name) return toLabel(label);
  await assertNoLiveThreadCarries(ctx, auth, label, 'rename');
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    if (await labelByName(tx.db, auth.workspaceId, name)) throw Errors.duplicate(`A label named "${name}" already exists.`);
    await renameLabel(tx.db, label.id, name, at);
    for (const t of await threadsWithLabel(tx.db, auth.workspaceId, label.name)) {
      const labels = [...new Set(t.labels.map((l) => (l === label.name ? name : l)))];
      await updateThread(tx.db, t.id, { labels });
    }
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'label', action: 'label.renamed', targetId: label.id, metadata: { from: label.name, to: name } });
    return toLabel({ ...label, name, updated_at: at });
  });
}

export async function deleteLabelByRef(ctx: AppContext, auth: AuthContext, ref: string): Promise<{ id: string; deleted_at: string }> {
  const label = await requireLabel(ctx, auth, ref);
  await assertNoLiveThreadCarries(ctx, auth, label, 'delete');
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    await deleteLabel(tx.db, label.id);
    for (const t of await threadsWithLabel(tx.db, auth.workspaceId, label.name)) {
      await updateThread(tx.db, t.id, { labels: t.labels.filter((l) => l !== label.name) });
    }
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'label', action: 'label.deleted', targetId: label.id, metadata: { name: label.name } });
    return { id: label.id, deleted_at: at };
  });
}

export async function listLabelsPage(ctx: AppContext, auth: AuthContext, q: ListQuery): Promise<PageOf<Label>> {
  const res = await listLabels(ctx.db, auth.workspaceId, q);
  return pageOf(res, res.rows.map(toLabel));
}
