import type { Kysely } from 'kysely';

// Portable DDL only. webhook_endpoints and webhook_deliveries come from 0001 (emitEvent writes
// delivery rows); this adds the claim lease the delivery worker needs and the attempt history.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A worker claims a due delivery by setting lease_until; a crash mid-attempt leaves a lease
  // that simply expires, so the delivery is retried (at-least-once; receivers de-duplicate by id).
  await db.schema.alterTable('webhook_deliveries').addColumn('lease_until', 'text').execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id', 'id']).execute();

  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('webhook_endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('response_body_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_delivery_attempts_pk', ['delivery_id', 'attempt_number'])
    .execute();
}
