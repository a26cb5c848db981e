import type { Db } from '../schema.js';
import { lockKey } from '../dialect.js';

/**
 * Sliding-window rate limit kept in the database, for limits that must hold across several
 * daemons on one store. Its own short transaction, READ COMMITTED on purpose: the bucket's lock
 * is its first statement, and every statement after it sees what the previous holder committed
 * (a SERIALIZABLE snapshot would be taken before the wait and miss it). Two daemons taking the
 * last slot of one bucket at once cannot both get it.
 * Returns the slots taken in the window before this one and the oldest one's time (the window
 * frees a slot then); `taken` says whether a slot was recorded (count was under the limit).
 */
export async function takeRateSlot(
  root: Db, bucket: string, slot: { id: string; at: string; since: string; limit: number },
): Promise<{ taken: boolean; used: number; oldest: string | null }> {
  return root.transaction().setIsolationLevel('read committed').execute((db) => takeIn(db, bucket, slot));
}

async function takeIn(
  db: Db, bucket: string, slot: { id: string; at: string; since: string; limit: number },
): Promise<{ taken: boolean; used: number; oldest: string | null }> {
  await lockKey(db, `rate:${bucket}`);
  // Expired slots of this bucket go first: the table only ever holds one window per bucket.
  await db.deleteFrom('rate_slots').where('bucket', '=', bucket).where('at', '<=', slot.since).execute();
  const rows = await db.selectFrom('rate_slots').select('at').where('bucket', '=', bucket).orderBy('at').limit(slot.limit).execute();
  const oldest = rows[0]?.at ?? null;
  if (rows.length >= slot.limit) return { taken: false, used: rows.length, oldest };
  await db.insertInto('rate_slots').values({ id: slot.id, bucket, at: slot.at }).execute();
  return { taken: true, used: rows.length + 1, oldest: oldest ?? slot.at };
}
