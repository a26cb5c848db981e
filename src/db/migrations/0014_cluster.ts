import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Several daemons on one database (PostgreSQL). Portable DDL only; runs on SQLite too, where the
 * tables simply stay empty or unused by a lone daemon.
 * - rate_slots: the per-key burst window when the store is shared (one row per send request
 *   in the last 10 s; in process memory it would be per daemon).
 * - simulated_replies.lease_until: the test-address reply is claimed with a lease, so a daemon
 *   killed while delivering it leaves it to another once the lease runs out (before, the claim
 *   marked it done and a crash lost it).
 * - event_clock (PostgreSQL only): event ids follow commit order across daemons.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_slots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_slots_bucket_at').on('rate_slots').columns(['bucket', 'at']).execute();
  await db.schema.alterTable('simulated_replies').addColumn('lease_until', 'text').execute();
  // PostgreSQL: the clock event ids take their time from (db/repos/events.ts orderEventWrite).
  if (dialectOf(db) === 'postgres') await sql`create sequence event_clock`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`drop sequence if exists event_clock`.execute(db);
  await db.schema.alterTable('simulated_replies').dropColumn('lease_until').execute();
  await db.schema.dropTable('rate_slots').ifExists().execute();
}
