import type { Db, } from '../schema.js';
import type { SuppressionsTable, ConsentAllowsTable } from '../tables/resources.js';
import { paginate, type PageRequest, type PageResult } from '../paginate.js';
import { defineQuery } from '../prepared.js';

export type SuppressionRow = SuppressionsTable;
export type ConsentAllowRow = ConsentAllowsTable;

export async function insertSuppression(db: Db, row: SuppressionRow): Promise<void> {
  await db.insertInto('suppressions').values(row).execute();
}

/**
 * Entries of an address that apply to a send from `agentId` (workspace-wide ones and the agent's
 * own), newest first. `agentId` null: every entry of the address in the workspace.
 */
// Every inbound message reads them (the classifier's sender history) and so does every send.
const entriesForAgent = defineQuery((db, p: { workspaceId: string; address: string; agentId: string }) => db.selectFrom('suppressions').selectAll()
  .where('workspace_id', '=', p.workspaceId).where('address', '=', p.address)
  .where((eb) => eb.or([eb('scope', '=', 'workspace'), eb('agent_id', '=', p.agentId)])).orderBy('id', 'desc'));
const entriesOfAddress = defineQuery((db, p: { workspaceId: string; address: string }) => db.selectFrom('suppressions').selectAll()
  .where('workspace_id', '=', p.workspaceId).where('address', '=', p.address).orderBy('id', 'desc'));

export async function suppressionsFor(db: Db, workspaceId: string, address: string, agentId: string | null): Promise<SuppressionRow[]> {
  return agentId ? entriesForAgent.all(db, { workspaceId, address, agentId }) : entriesOfAddress.all(db, { workspaceId, address });
}

export async function listSuppressions(db: Db, workspaceId: string, f: { agentId?: string | null }, page: PageRequest): Promise<PageResult<SuppressionRow>> {
  let q = db.selectFrom('suppressions').selectAll().where('workspace_id', '=', workspaceId);
  if (f.agentId) q = q.where((eb) => eb.or([eb('scope', '=', 'workspace'), eb('agent_id', '=', f.agentId!)]));
  return paginate<SuppressionRow>(q, 'id', page, 'suppression entries');
}

export async function insertAllow(db: Db, row: ConsentAllowRow): Promise<void> {
  await db.insertInto('consent_allows').values(row).execute();
}

/** The newest allow entry of an address that is not revoked, among those made in one of `modes`. */
export async function activeAllow(db: Db, workspaceId: string, address: string, modes: readonly string[]): Promise<ConsentAllowRow | undefined> {
  return db.selectFrom('consent_allows').selectAll().where('workspace_id', '=', workspaceId).where('address', '=', address)
    .where('revoked_at', 'is', null).where('mode', 'in', modes).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function getAllow(db: Db, workspaceId: string, id: string): Promise<ConsentAllowRow | undefined> {
  return db.selectFrom('consent_allows').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function revokeAllow(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('consent_allows').set({ revoked_at: at }).where('id', '=', id).execute();
}

export async function listAllows(db: Db, workspaceId: string, f: { includeRevoked: boolean }, page: PageRequest): Promise<PageResult<ConsentAllowRow>> {
  let q = db.selectFrom('consent_allows').selectAll().where('workspace_id', '=', workspaceId);
  if (!f.includeRevoked) q = q.where('revoked_at', 'is', null);
  return paginate<ConsentAllowRow>(q, 'id', page, 'consent allows');
}

// ---- per-instance settings (the unsubscribe signing key)

export async function getSetting(db: Db, name: string): Promise<string | undefined> {
  const r = await db.selectFrom('instance_settings').select('value').where('name', '=', name).executeTakeFirst();
  return r?.value;
}

/** Insert or replace (the return path's current key id: services/return-path.ts rotateReturnPathKey). */
export async function putSetting(db: Db, name: string, value: string, at: string): Promise<void> {
  await db.insertInto('instance_settings').values({ name, value, created_at: at }).onConflict((oc) => oc.column('name').doUpdateSet({ value, created_at: at })).execute();
}

/** Every setting whose name starts with `prefix`, by name. */
export async function settingsWithPrefix(db: Db, prefix: string): Promise<{ name: string; value: string; created_at: string }[]> {
  const rows = await db.selectFrom('instance_settings').select(['name', 'value', 'created_at']).where('name', '>=', prefix).where('name', '<', `${prefix}\u{10ffff}`).orderBy('name').execute();
  return rows.filter((r) => r.name.startsWith(prefix));
}

/** Delete a setting; true when it existed. */
export async function deleteSetting(db: Db, name: string): Promise<boolean> {
  const r = await db.deleteFrom('instance_settings').where('name', '=', name).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Insert once; a concurrent first writer wins and everyone reads its value. */
export async function putSettingIfAbsent(db: Db, name: string, value: string, at: string): Promise<void> {
  await db.insertInto('instance_settings').values({ name, value, created_at: at }).onConflict((oc) => oc.column('name').doNothing()).execute();
}
