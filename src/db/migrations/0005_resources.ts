import type { Kysely } from 'kysely';

// Portable DDL only (SQLite and PostgreSQL): text ids and ISO timestamps, integer booleans, JSON as text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('suppressions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('source_message_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('suppressions_address').on('suppressions').columns(['workspace_id', 'address', 'id']).execute();
  await db.schema.createIndex('suppressions_workspace').on('suppressions').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('consent_allows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('attestation', 'text', (c) => c.notNull())
    .addColumn('created_by_key_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('consent_allows_address').on('consent_allows').columns(['workspace_id', 'address', 'id']).execute();
  await db.schema.createIndex('consent_allows_workspace').on('consent_allows').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('labels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('labels_workspace_name', ['workspace_id', 'name'])
    .execute();
  await db.schema.createIndex('labels_workspace').on('labels').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('created_by_key_id', 'text')
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('to_addrs', 'text', (c) => c.notNull())
    .addColumn('cc', 'text', (c) => c.notNull())
    .addColumn('bcc', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text')
    .addColumn('body_html', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('extra', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('send_at', 'text')
    .addColumn('sent_message_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('error_message', 'text')
    .addColumn('sending_started_at', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('drafts_workspace').on('drafts').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('drafts_agent').on('drafts').columns(['agent_id', 'id']).execute();
  await db.schema.createIndex('drafts_due').on('drafts').columns(['status', 'send_at']).execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('dkim_selector', 'text', (c) => c.notNull())
    .addColumn('dkim_private_key', 'text', (c) => c.notNull())
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    .addColumn('records_status', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('last_checked_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('domains_workspace').on('domains').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_resource_id', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('logs_workspace').on('logs').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('logs_category').on('logs').columns(['workspace_id', 'category', 'id']).execute();
  await db.schema.createIndex('logs_action').on('logs').columns(['workspace_id', 'action', 'id']).execute();

  await db.schema
    .createTable('instance_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['instance_settings', 'logs', 'domains', 'drafts', 'labels', 'consent_allows', 'suppressions']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
