import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Retention (issue #16): indexes the retention worker deletes by (oldest first, by time), and
 * auto_vacuum=INCREMENTAL so deleted pages can be returned to the filesystem in small steps.
 *
 * Why incremental vacuum and not a periodic `VACUUM INTO` + swap: the swap needs the daemon to
 * close and reopen its only connection (stopping SMTP and the API meanwhile), twice the disk
 * space, and a full rewrite of the file each time; `PRAGMA incremental_vacuum(N)` frees N pages
 * in one short write transaction, so space comes back while mail keeps flowing. The price is
 * paid once here: switching an existing file to INCREMENTAL needs one full VACUUM (it runs at
 * start, before the listeners open, and needs free space about the size of the database; the
 * automatic pre-migration backup is taken before it). New databases get the mode at creation
 * (db/open.ts) and skip the VACUUM.
 *
 * PostgreSQL: the indexes apply; the pragma block does not (autovacuum does this job there).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('received_messages_received_at').on('received_messages').columns(['received_at']).execute();
  await db.schema.createIndex('sent_messages_created_at').on('sent_messages').columns(['created_at']).execute();
  await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();
  await db.schema.createIndex('logs_category_created').on('logs').columns(['category', 'created_at']).execute();
}

/**
 * Outside the migration's transaction (SQLite refuses VACUUM inside one): runs after `up` has
 * committed and again at every later start, so a start killed before or during the VACUUM
 * finishes it next time (a VACUUM is itself atomic: killed, it leaves the file as it was). A
 * no-op once the file is incremental, or on PostgreSQL (autovacuum returns deleted space there).
 */
export async function afterCommit(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  const mode = Number(Object.values((await sql.raw('PRAGMA auto_vacuum').execute(db)).rows[0] as object)[0]);
  if (mode !== 2) {
    await sql.raw('PRAGMA auto_vacuum = INCREMENTAL').execute(db);
    await sql.raw('VACUUM').execute(db); // takes effect only after a VACUUM on a non-empty file
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const i of ['received_messages_received_at', 'sent_messages_created_at', 'events_created', 'webhook_deliveries_created', 'logs_category_created']) {
    await db.schema.dropIndex(i).ifExists().execute();
  }
}
