import type { Db } from '../schema.js';
import type { IdempotencyKeysTable } from '../tables/outbound.js';

export type IdempotencyRow = IdempotencyKeysTable;

/**
 * Claim a key: insert it in progress. Atomic (primary key + ON CONFLICT DO NOTHING), so of any
 * number of concurrent requests with one key exactly one wins. A row older than `staleBefore`
 * is an expired key and is taken over. Returns null when claimed, else the existing row.
 */
export async function claimIdempotencyKey(
  db: Db, row: { scope: string; key: string; request_hash: string; created_at: string }, staleBefore: string,
): Promise<IdempotencyRow | null> {
  const ins = await db.insertInto('idempotency_keys')
    .values({ ...row, state: 'in_progress', response_status: null, response_body: null, request_id: null })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 1) return null;
  const taken = await db.updateTable('idempotency_keys')
    .set({ request_hash: row.request_hash, state: 'in_progress', response_status: null, response_body: null, request_id: null, created_at: row.created_at })
    .where('scope', '=', row.scope).where('key', '=', row.key).where('created_at', '<', staleBefore)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return null;
  const existing = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', row.scope).where('key', '=', row.key).executeTakeFirst();
  // Released between the insert and the read: report it as in progress; the client retries.
  return existing ?? { ...row, state: 'in_progress', response_status: null, response_body: null, request_id: null };
}

export async function completeIdempotencyKey(db: Db, scope: string, key: string, r: { status: number; body: string; requestId: string }): Promise<void> {
  await db.updateTable('idempotency_keys')
    .set({ state: 'done', response_status: r.status, response_body: r.body, request_id: r.requestId })
    .where('scope', '=', scope).where('key', '=', key).execute();
}

export async function releaseIdempotencyKey(db: Db, scope: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('state', '=', 'in_progress').execute();
}

export async function purgeIdempotencyKeys(db: Db, before: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
