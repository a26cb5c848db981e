import type { Kysely } from 'kysely';

// Portable DDL only. A consent allow entry remembers the mode of the key that made it (issue #10
// item 6; spec: live_mode_required): an entry made with a test key lifts suppressions for
// test-mode sends only, and a test key cannot revoke an entry a live key made. Entries that
// exist already were made before modes were told apart, so they count as live (the default).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('consent_allows').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('consent_allows').dropColumn('mode').execute();
}
