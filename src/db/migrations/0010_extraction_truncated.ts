import type { Kysely } from 'kysely';

// Portable DDL only. received_messages.extraction_truncated: 1 when the pipeline's per-message
// budget cut parsing or classification short (src/server/pipeline); existing rows were complete.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('received_messages').addColumn('extraction_truncated', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('received_messages').dropColumn('extraction_truncated').execute();
}
