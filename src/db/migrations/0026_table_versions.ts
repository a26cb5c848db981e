import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * SQLite only (a no-op on PostgreSQL, where nothing is cached: db/open.ts tableMark).
 * table_versions: one counter per table that the daemon's read caches hold rows of
 * (services/read-cache.ts: workspaces, agents, webhook endpoints), moved by a trigger on every
 * row any connection inserts, updates or deletes there. `PRAGMA data_version` only says that
 * another connection committed *something*: the daemon's own queue-writer thread commits the
 * request log and the inbound queue on every group commit, and each of those dropped every cache.
 * With these counters a commit elsewhere drops a cache only if it wrote one of its tables
 * (db/open.ts tableMark). A table without a row here is still watched through data_version alone.
 */
const TABLES = ['workspaces', 'agents', 'webhook_endpoints'];
const OPS = ['insert', 'update', 'delete'];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  await sql`create table table_versions (table_name text primary key, version integer not null default 0)`.execute(db);
  for (const t of TABLES) {
    await sql`insert into table_versions (table_name) values (${t})`.execute(db);
    for (const op of OPS) {
      await sql.raw(`create trigger table_versions_${t}_${op} after ${op} on ${t} begin
        update table_versions set version = version + 1 where table_name = '${t}';
      end`).execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  for (const t of TABLES) for (const op of OPS) await sql.raw(`drop trigger if exists table_versions_${t}_${op}`).execute(db);
  await sql`drop table if exists table_versions`.execute(db);
}
