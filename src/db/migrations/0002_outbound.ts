import type { Kysely } from 'kysely';
import { columnTypes } from '../dialect.js';

// Portable DDL only (SQLite and PostgreSQL): text ids and ISO timestamps, integer booleans, JSON as text.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('sent_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('test_mode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('cc', 'text', (c) => c.notNull())
    .addColumn('bcc', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text')
    .addColumn('body_html', 'text')
    .addColumn('rfc_message_id', 'text', (c) => c.notNull())
    .addColumn('in_reply_to', 'text')
    .addColumn('references', 'text', (c) => c.notNull())
    .addColumn('in_reply_to_message_id', 'text')
    .addColumn('forwarded_from', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('classifier_score', t.real, (c) => c.notNull())
    .addColumn('classifier_warning', 'text')
    .addColumn('pool', 'text')
    .addColumn('cost_usd', t.real, (c) => c.notNull())
    .addColumn('transport_message_id', 'text')
    .addColumn('scheduled_at', 'text')
    .addColumn('due_at', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('canceled_at', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sent_messages_workspace').on('sent_messages').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('sent_messages_agent').on('sent_messages').columns(['workspace_id', 'agent_id', 'id']).execute();
  await db.schema.createIndex('sent_messages_thread').on('sent_messages').columns(['workspace_id', 'thread_id', 'id']).execute();
  await db.schema.createIndex('sent_messages_due').on('sent_messages').columns(['status', 'due_at']).execute();

  await db.schema
    .createTable('sent_attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', t.blob, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sent_attachments_message').on('sent_attachments').columns(['message_id', 'position']).execute();

  await db.schema
    .createTable('send_log')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('send_log_pk', ['message_id', 'recipient'])
    .execute();
  await db.schema.createIndex('send_log_workspace_at').on('send_log').columns(['workspace_id', 'at']).execute();
  await db.schema.createIndex('send_log_agent_at').on('send_log').columns(['agent_id', 'at']).execute();
  await db.schema.createIndex('send_log_recipient').on('send_log').columns(['workspace_id', 'recipient', 'at']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('request_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').columns(['created_at']).execute();

  await db.schema
    .createTable('appeals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('review_score', t.real)
    .addColumn('reason', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('appeals_workspace').on('appeals').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('appeals_content').on('appeals').columns(['workspace_id', 'content_hash', 'created_at']).execute();

  await db.schema
    .createTable('simulated_replies')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .execute();
  await db.schema.createIndex('simulated_replies_due').on('simulated_replies').columns(['done_at', 'due_at']).execute();
}
