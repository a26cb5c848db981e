import type { Kysely } from 'kysely';
import { toAddressesOf } from '../repos/messages.js';

// Portable DDL only. sent_recipients indexes the `to` addresses of sent mail (see tables/outbound.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sent_recipients')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sent_recipients_pk', ['message_id', 'address'])
    .execute();
  await db.schema.createIndex('sent_recipients_address').on('sent_recipients').columns(['workspace_id', 'address']).execute();
  // Backfill mail sent before this migration, in pages (a data dir may hold many messages).
  const k = db as unknown as Kysely<{ sent_messages: { id: string; workspace_id: string; to: string }; sent_recipients: { message_id: string; workspace_id: string; address: string } }>;
  let after = '';
  for (;;) {
    const rows = await k.selectFrom('sent_messages').select(['id', 'workspace_id', 'to']).where('id', '>', after).orderBy('id').limit(500).execute();
    if (!rows.length) break;
    const values = rows.flatMap((r) => toAddressesOf(JSON.parse(r.to) as string[]).map((address) => ({ message_id: r.id, workspace_id: r.workspace_id, address })));
    if (values.length) await k.insertInto('sent_recipients').values(values).onConflict((oc) => oc.doNothing()).execute();
    after = rows[rows.length - 1].id;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sent_recipients').execute();
}
