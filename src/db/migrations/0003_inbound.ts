import type { Kysely } from 'kysely';
import { columnTypes } from '../dialect.js';

// Portable DDL only (SQLite and PostgreSQL): text ids and ISO timestamps, integer booleans,
// JSON as text, blobs for the original bytes and attachment contents.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('received_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('thread_id', 'text')
    .addColumn('rfc_message_id', 'text')
    .addColumn('in_reply_to', 'text')
    .addColumn('references', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('from_domain', 'text', (c) => c.notNull())
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('cc', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('plus_address', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('html', 'text')
    .addColumn('extracted_text', 'text')
    .addColumn('excerpt', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('raw', t.blob)
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('spf_pass', 'integer')
    .addColumn('dkim_pass', 'integer')
    .addColumn('dmarc', 'text')
    .addColumn('classification', 'text')
    .addColumn('quarantined', 'integer', (c) => c.notNull())
    .addColumn('test_mode', 'integer', (c) => c.notNull())
    .addColumn('over_limit', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('answers_message_id', 'text')
    .addColumn('event_id', 'text')
    .addColumn('event_type', 'text')
    .addColumn('remote_address', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('received_workspace_id').on('received_messages').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('received_agent_id').on('received_messages').columns(['agent_id', 'id']).execute();
  await db.schema.createIndex('received_thread_id').on('received_messages').columns(['thread_id', 'id']).execute();
  // Covering indexes: sender history is counted from the index alone (classifier input).
  await db.schema.createIndex('received_from').on('received_messages').columns(['workspace_id', 'from_address', 'over_limit', 'answers_message_id']).execute();
  await db.schema.createIndex('received_from_domain').on('received_messages').columns(['workspace_id', 'from_domain', 'over_limit']).execute();
  await db.schema.createIndex('received_over_limit').on('received_messages').columns(['workspace_id', 'over_limit', 'received_at']).execute();

  await db.schema
    .createTable('received_attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('received_message_id', 'text', (c) => c.notNull().references('received_messages.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('disposition', 'text')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('content', t.blob, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('received_attachments_message').on('received_attachments').columns(['received_message_id', 'position']).execute();

  await db.schema
    .createTable('inbound_plus_addresses')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('first_received_at', 'text', (c) => c.notNull())
    .addColumn('last_received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_plus_addresses_pk', ['workspace_id', 'address'])
    .execute();
  await db.schema.createIndex('inbound_plus_addresses_recent').on('inbound_plus_addresses').columns(['workspace_id', 'last_received_at']).execute();
}
