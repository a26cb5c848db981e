import type { Kysely } from 'kysely';
import { columnTypes } from '../dialect.js';

/**
 * Issue #13: the SMTP listener acknowledges a message once its raw bytes and envelope are on disk
 * in this queue (group-committed, synchronous=FULL); parsing, classification, threading, storage
 * and events follow, and the row is deleted in the same transaction that stores the message
 * (docs/inbound.md → Durability). Portable DDL only.
 * - message_ids: JSON [{agent_id, message_id}], the rcv ids named in the 250 (kept by processing);
 * - lease_until: several daemons on one PostgreSQL: the daemon processing a row holds it until
 *   then; a row whose holder died is taken by another once it has passed. A lone SQLite daemon
 *   owns every row and ignores it.
 * - attempts / last_error: a row whose processing failed waits (backoff) and is tried again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_queue')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('mail_from', 'text', (c) => c.notNull())
    .addColumn('rcpt_to', 'text', (c) => c.notNull())
    .addColumn('message_ids', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text')
    .addColumn('helo', 'text')
    .addColumn('raw', columnTypes(db).blob, (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_queue').ifExists().execute();
}
