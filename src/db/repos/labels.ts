import type { Db } from '../schema.js';
import type { LabelsTable } from '../tables/resources.js';
import { paginate, type PageRequest, type PageResult } from '../paginate.js';

export type LabelRow = LabelsTable;

export async function insertLabel(db: Db, row: LabelRow): Promise<void> {
  await db.insertInto('labels').values(row).execute();
}

export async function getLabel(db: Db, workspaceId: string, id: string): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function labelByName(db: Db, workspaceId: string, name: string): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('workspace_id', '=', workspaceId).where('name', '=', name).executeTakeFirst();
}

export async function labelsByNames(db: Db, workspaceId: string, names: string[]): Promise<LabelRow[]> {
  if (!names.length) return [];
  return db.selectFrom('labels').selectAll().where('workspace_id', '=', workspaceId).where('name', 'in', names).execute();
}

export async function renameLabel(db: Db, id: string, name: string, at: string): Promise<void> {
  await db.updateTable('labels').set({ name, updated_at: at }).where('id', '=', id).execute();
}

export async function deleteLabel(db: Db, id: string): Promise<void> {
  await db.deleteFrom('labels').where('id', '=', id).execute();
}

export async function listLabels(db: Db, workspaceId: string, page: PageRequest): Promise<PageResult<LabelRow>> {
  return paginate<LabelRow>(db.selectFrom('labels').selectAll().where('workspace_id', '=', workspaceId), 'id', page, 'labels');
}
