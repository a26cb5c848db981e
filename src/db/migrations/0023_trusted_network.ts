import type { Kysely } from 'kysely';

// Portable DDL only. received_messages.trusted_network: the CIDR of --trusted-networks the SMTP
// client was in, for mail accepted without SPF/DKIM checks (null otherwise, and for every existing
// row: whether those were checked is not recorded; their spf_pass/dkim_pass stay as stored).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('received_messages').addColumn('trusted_network', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('received_messages').dropColumn('trusted_network').execute();
}
