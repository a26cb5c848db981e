import type { Db, WorkspacesTable } from '../schema.js';
import { defineQuery } from '../prepared.js';

export type WorkspaceRow = WorkspacesTable;

export async function insertWorkspace(db: Db, row: WorkspaceRow): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

const workspaceById = defineQuery((db, p: { id: string }) => db.selectFrom('workspaces').selectAll().where('id', '=', p.id));

export async function getWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  return workspaceById.first(db, { id });
}

export async function firstWorkspace(db: Db): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().orderBy('id').limit(1).executeTakeFirst();
}

export async function updateWorkspace(db: Db, id: string, patch: Partial<Omit<WorkspaceRow, 'id'>>): Promise<void> {
  await db.updateTable('workspaces').set(patch).where('id', '=', id).execute();
}
