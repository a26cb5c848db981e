import type { Db } from '../schema.js';
import type { WebSessionsTable } from '../tables/web.js';

export type WebSessionRow = WebSessionsTable & { kind: 'link' | 'session' };

export async function insertWebSession(db: Db, row: WebSessionRow): Promise<void> {
  await db.insertInto('web_sessions').values(row).execute();
}

export async function webSessionByHash(db: Db, hash: string): Promise<WebSessionRow | undefined> {
  return (await db.selectFrom('web_sessions').selectAll().where('token_hash', '=', hash).executeTakeFirst()) as WebSessionRow | undefined;
}

/** Spend a one-time link: true only for the one caller that moved it from unused to used. */
export async function spendLink(db: Db, id: string, atIso: string): Promise<boolean> {
  const r = await db.updateTable('web_sessions').set({ used_at: atIso }).where('id', '=', id).where('kind', '=', 'link')
    .where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteWebSession(db: Db, hash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('token_hash', '=', hash).execute();
}

export async function deleteExpiredWebSessions(db: Db, nowIso: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('expires_at', '<=', nowIso).execute();
}

/** Sessions and unspent links of one key (the cap per key counts them). */
export async function countWebSessionsOfKey(db: Db, apiKeyId: string): Promise<number> {
  const r = await db.selectFrom('web_sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('api_key_id', '=', apiKeyId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The oldest sessions of a key beyond `keep` are removed (oldest first). */
export async function trimWebSessionsOfKey(db: Db, apiKeyId: string, keep: number): Promise<void> {
  const old = await db.selectFrom('web_sessions').select('id').where('api_key_id', '=', apiKeyId).orderBy('id', 'desc').offset(keep).limit(1000).execute();
  if (old.length) await db.deleteFrom('web_sessions').where('id', 'in', old.map((o) => o.id)).execute();
}

/** A key suitable for the owner's sign-in link at `serve` start: unbound, all scopes, not revoked or expired. */
export async function ownerKeyIds(db: Db): Promise<{ id: string; workspace_id: string; mode: string; scopes: string; expires_at: string | null }[]> {
  return db.selectFrom('api_keys').select(['id', 'workspace_id', 'mode', 'scopes', 'expires_at'])
    .where('agent_id', 'is', null).where('revoked_at', 'is', null).orderBy('id').limit(50).execute();
}
