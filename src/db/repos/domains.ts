import type { Db } from '../schema.js';
import type { DomainsTable } from '../tables/resources.js';
import { paginate, type PageRequest, type PageResult } from '../paginate.js';

export type DomainRow = DomainsTable;

export async function insertDomain(db: Db, row: DomainRow): Promise<void> {
  await db.insertInto('domains').values(row).execute();
}

export async function updateDomain(db: Db, id: string, patch: Partial<DomainRow>): Promise<void> {
  await db.updateTable('domains').set(patch).where('id', '=', id).execute();
}

export async function deleteDomain(db: Db, id: string): Promise<void> {
  await db.deleteFrom('domains').where('id', '=', id).execute();
}

export async function getDomain(db: Db, workspaceId: string, id: string): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function domainByName(db: Db, domain: string): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').selectAll().where('domain', '=', domain).executeTakeFirst();
}

export async function listDomains(db: Db, workspaceId: string, page: PageRequest): Promise<PageResult<DomainRow>> {
  return paginate<DomainRow>(db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId), 'id', page, 'domains');
}

export async function countAgentsOnDomain(db: Db, workspaceId: string, domain: string): Promise<number> {
  const r = await db.selectFrom('agents').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId)
    .where('domain', '=', domain).where('status', '!=', 'archived').executeTakeFirst();
  return Number(r?.n ?? 0);
}
