import { sql, type Kysely } from 'kysely';

// Portable DDL only. Webhook endpoints and sending domains remember the mode of the key that
// made them, so a test key can be refused when it changes live configuration (issue #10 item 6;
// spec: live_mode_required). Existing endpoints take their creator key's mode; anything whose
// creator is unknown (domains, endpoints made by a connected app) counts as live.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
  await db.schema.alterTable('domains').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
  await sql`UPDATE webhook_endpoints SET mode = 'test'
    WHERE created_by_key_id IN (SELECT id FROM api_keys WHERE mode = 'test')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('mode').execute();
  await db.schema.alterTable('domains').dropColumn('mode').execute();
}
