import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Migration } from 'kysely';
import { dialectOf } from './dialect.js';

// Kysely<any>: migrations get a Kysely of no particular schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * A migration (src/db/migrations/NNNN_*.ts). `up` runs inside a transaction together with the
 * row that records it, on both engines, so a migration is applied whole or not at all, whatever
 * kills the process. Inside a transaction SQLite refuses VACUUM and silently ignores
 * `PRAGMA foreign_keys` (and `journal_mode` cannot change there): such a step goes in
 * `afterCommit`, which runs outside any transaction once `up` has committed, and again at every
 * later migrate() (a crash between the commit and the step must not leave it undone). So it must
 * be idempotent, and cheap when there is nothing left to do (it reads the state it would change
 * first: migration 0012 reads `PRAGMA auto_vacuum`).
 */
export interface MailagentMigration extends Migration {
  afterCommit?(db: AnyDb): Promise<void>;
}

/** kysely's migration tables, created as its Migrator does (older binaries open the same file). */
const MIGRATION_TABLE = 'kysely_migration';
const LOCK_TABLE = 'kysely_migration_lock';
/** kysely's PostgreSQL migration lock (PostgresAdapter): an older daemon starting beside this one waits for it too. */
const PG_MIGRATION_LOCK = BigInt('3853314791062309107');

/**
 * Test-only: MAILAGENT_TEST_MIGRATION_PAUSE=NAME (or NAME:after-commit) makes the runner say
 * `migration NAME: paused` on stderr and wait an hour inside that migration's transaction, after
 * its `up` and before its record (or after its commit, before its afterCommit step), so a test
 * can SIGKILL a real daemon at that point (test/integration/selfhost/migration-crash.test.ts).
 */
async function pauseHook(name: string, where: 'in-transaction' | 'after-commit'): Promise<void> {
  const want = process.env.MAILAGENT_TEST_MIGRATION_PAUSE;
  if (!want || want !== (where === 'in-transaction' ? name : `${name}:after-commit`)) return;
  process.stderr.write(`migration ${want}: paused\n`);
  await new Promise((r) => setTimeout(r, 3_600_000));
}

async function ensureMigrationTables(db: AnyDb): Promise<void> {
  await db.schema.createTable(MIGRATION_TABLE).ifNotExists()
    .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
    .addColumn('timestamp', 'varchar(255)', (c) => c.notNull()).execute();
  await db.schema.createTable(LOCK_TABLE).ifNotExists()
    .addColumn('id', 'varchar(255)', (c) => c.notNull().primaryKey())
    .addColumn('is_locked', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`insert into ${sql.table(LOCK_TABLE)} (id, is_locked) values ('migration_lock', 0) on conflict do nothing`.execute(db);
}

async function recorded(db: AnyDb): Promise<Set<string>> {
  return new Set((await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db)).rows.map((r) => r.name));
}

async function record(db: AnyDb, name: string): Promise<void> {
  await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(db);
}

/** A migration that failed; it was rolled back (nothing of it applied, no record). */
export class MigrationFailedError extends Error {
  constructor(readonly migration: string, override readonly cause: unknown, all = false) {
    super(`migration ${migration} failed and was rolled back (${all ? 'none of the pending migrations was' : 'nothing of it was'} applied): ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MigrationFailedError';
  }
}

export interface RunOptions {
  /** Run inside each migration's transaction right after its `up` (PostgreSQL: the "C" collation step). */
  afterUp?: (trx: AnyDb) => Promise<void>;
  /** The schema replay of schemaDrift (an in-memory database): no afterCommit steps (no data to vacuum), no test pause. */
  replay?: boolean;
}

/**
 * Apply every migration of `list` not recorded yet, in name order; resolves with the names applied.
 *
 * - SQLite: each migration in its own `BEGIN IMMEDIATE` transaction with its record (DDL is
 *   transactional in SQLite, FTS5's CREATE VIRTUAL TABLE included): a kill at any point leaves
 *   the migration either committed and recorded, or absent. IMMEDIATE takes the write lock at
 *   once, so another process migrating the same file (`mailagent admin` beside a starting
 *   daemon) waits (busy_timeout) and then finds it recorded, instead of failing half-way.
 * - PostgreSQL: every pending migration in one transaction (a failure records none), under
 *   kysely's advisory lock, so two daemons starting together migrate once.
 *
 * Before this runner (kysely's Migrator) SQLite ran migrations without a transaction: a start
 * killed during one left its tables without its record, and every later start failed with
 * `table … already exists`. interruptedMigration() recognises such a file.
 */
export async function runMigrations(db: AnyDb, list: Record<string, Migration>, opts: RunOptions = {}): Promise<string[]> {
  const names = Object.keys(list).sort();
  const applied: string[] = [];
  let current = '';
  const up = async (trx: AnyDb, name: string) => {
    current = name;
    await list[name].up(trx);
    await opts.afterUp?.(trx);
    if (!opts.replay) await pauseHook(name, 'in-transaction');
    await record(trx, name);
    applied.push(name);
  };
  const step = (name: string) => (opts.replay ? undefined : (list[name] as MailagentMigration).afterCommit);
  if (dialectOf(db) === 'postgres') {
    await db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${PG_MIGRATION_LOCK})`.execute(conn);
      try {
        await ensureMigrationTables(conn);
        const before = await recorded(conn);
        await conn.transaction().execute(async (trx) => {
          for (const name of names) if (!before.has(name)) await up(trx, name);
        }).catch((err: unknown) => {
          throw new MigrationFailedError(current, err, true);
        });
      } finally {
        await sql`select pg_advisory_unlock(${PG_MIGRATION_LOCK})`.execute(conn);
      }
    });
    // Outside the transaction, once it has committed: every recorded migration's step.
    for (const name of names) await step(name)?.(db);
    return applied;
  }
  await ensureMigrationTables(db);
  const before = await recorded(db);
  // First the steps of migrations committed earlier (a crash between a commit and its step).
  for (const name of names) if (before.has(name)) await step(name)?.(db);
  for (const name of names) {
    if (before.has(name)) continue;
    await db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        // Another process may have applied it since `before` was read: the write lock is held now.
        if (!(await recorded(conn)).has(name)) await up(conn, name);
        await sql`commit`.execute(conn);
      } catch (err) {
        // SQLite may have rolled back already (SQLITE_FULL, SQLITE_IOERR): the ROLLBACK's own
        // error would hide the one that says why.
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw new MigrationFailedError(name, err);
      }
    });
    if (step(name)) {
      await pauseHook(name, 'after-commit');
      await step(name)!(db);
    }
  }
  return applied;
}

/** The objects of a SQLite schema, by name: `table:t`, `column:t.c`, `index:i`, `trigger:x`, `view:v`. */
async function schemaObjects(db: AnyDb): Promise<Set<string>> {
  const { rows } = await sql<{ type: string; name: string }>`
    select type, name from sqlite_master
    where type in ('table', 'index', 'trigger', 'view') and name not like 'sqlite_%' and name not like 'kysely_migration%'`.execute(db);
  const out = new Set<string>();
  for (const r of rows) {
    out.add(`${r.type}:${r.name}`);
    if (r.type !== 'table') continue;
    const cols = await sql<{ name: string }>`select name from pragma_table_info(${r.name})`.execute(db);
    for (const c of cols.rows) out.add(`column:${r.name}.${c.name}`);
  }
  return out;
}

const replays = new Map<string, Promise<{ before: Set<string>; after: Set<string> | null }>>();

/**
 * The schema `applied` makes, and the one `applied` + `next` makes, built by running those
 * migrations on an empty in-memory SQLite database (kept per list of names: doctor, serve and
 * restore may ask for the same one).
 */
function replay(list: Record<string, Migration>, applied: string[], next: string | null): Promise<{ before: Set<string>; after: Set<string> | null }> {
  const key = `${applied.join(',')}|${next ?? ''}`;
  let p = replays.get(key);
  if (!p) {
    p = (async () => {
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
      try {
        await runMigrations(db, Object.fromEntries(applied.map((n) => [n, list[n]])), { replay: true });
        const before = await schemaObjects(db);
        if (!next) return { before, after: null };
        try {
          await runMigrations(db, { ...Object.fromEntries(applied.map((n) => [n, list[n]])), [next]: list[next] }, { replay: true });
        } catch {
          return { before, after: null }; // a migration that fails on an empty schema: nothing to compare with
        }
        return { before, after: await schemaObjects(db) };
      } finally {
        await db.destroy();
      }
    })();
    p.catch(() => replays.delete(key));
    replays.set(key, p);
  }
  return p;
}

/** A SQLite file whose schema is not what its recorded migrations make. */
export interface SchemaDrift {
  /** The migration that was interrupted (its objects exist, its record does not), when that is what happened. */
  interrupted: string | null;
  /** Migrations recorded in the file. */
  applied: string[];
  /** Objects present that the recorded migrations do not make (`table:x`, `column:t.c`, …). */
  extra: string[];
  /** Objects the recorded migrations make that are absent. */
  missing: string[];
}

/**
 * SQLite only (null on PostgreSQL, whose migrations were always transactional): whether the
 * file's tables, columns, indexes, triggers and views are exactly those its recorded migrations
 * make (compared by name with a replay on an empty database; an edited migration's column types
 * do not count). A difference is `interrupted` when every extra object is one the first
 * unrecorded migration makes and nothing is missing: a migration killed half-way by a binary
 * that ran migrations without a transaction (before this runner). Read-only. A data-only
 * migration cut half-way leaves no trace in the schema and is not seen here.
 */
export async function schemaDrift(db: AnyDb, list: Record<string, Migration>): Promise<SchemaDrift | null> {
  if (dialectOf(db) === 'postgres') return null;
  const hasTable = (await sql`select 1 from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)).rows.length > 0;
  const inFile = hasTable ? await recorded(db) : new Set<string>();
  const names = Object.keys(list).sort();
  // Names this binary does not know are migrationState's business (DatabaseTooNewError).
  if ([...inFile].some((n) => !(n in list))) return null;
  const applied = names.filter((n) => inFile.has(n));
  const next = names.find((n) => !inFile.has(n)) ?? null;
  const actual = await schemaObjects(db);
  const { before, after } = await replay(list, applied, next);
  const extra = [...actual].filter((o) => !before.has(o)).sort();
  const missing = [...before].filter((o) => !actual.has(o)).sort();
  if (!extra.length && !missing.length) return null;
  const interrupted = next && after && !missing.length && extra.every((o) => after.has(o)) ? next : null;
  return { interrupted, applied, extra, missing };
}

/** schemaDrift of a SQLite file on disk (a backup), opened read-only. */
export async function fileSchemaDrift(file: string, list: Record<string, Migration>): Promise<SchemaDrift | null> {
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file, { readonly: true, fileMustExist: true }) }) });
  try {
    return await schemaDrift(db, list);
  } finally {
    await db.destroy();
  }
}

/** One line for a SchemaDrift: what is wrong with the file. */
export function describeDrift(d: SchemaDrift): string {
  const list = (objects: string[]) => {
    // `table x`, `column t.c`, …; the columns of a table already named are left out.
    const tables = new Set(objects.filter((o) => o.startsWith('table:')).map((o) => o.slice(6)));
    const order = ['table', 'column', 'index', 'trigger', 'view'];
    const xs = objects
      .filter((o) => !(o.startsWith('column:') && tables.has(o.slice(7, o.indexOf('.')))))
      .sort((a, b) => order.indexOf(a.split(':')[0]) - order.indexOf(b.split(':')[0]) || a.localeCompare(b))
      .map((o) => o.replace(':', ' '));
    return `${xs.slice(0, 6).join(', ')}${xs.length > 6 ? `, … (${xs.length} in all)` : ''}`;
  };
  if (d.interrupted) {
    return `migration ${d.interrupted} was interrupted half-way and is not recorded (it already made ${list(d.extra)}): `
      + 'a start was killed during an upgrade by a mailagent that ran SQLite migrations without a transaction';
  }
  return `its schema is not what its ${d.applied.length} recorded migration(s) make`
    + `${d.extra.length ? `; not made by them: ${list(d.extra)}` : ''}${d.missing.length ? `; missing: ${list(d.missing)}` : ''}`;
}
