import { PostgresAdapter, sql, type Expression, type Kysely, type SqlBool } from 'kysely';

/**
 * The few places where SQLite and PostgreSQL differ, in one file. Repositories and migrations ask
 * here instead of testing the dialect themselves, so a new migration or query ports by calling
 * one of these helpers (and services never learn which database they have).
 *
 * Both dialects store the same encodings (schema.ts): ISO 8601 text timestamps, 0/1 integer
 * booleans, JSON as text. Keeping one encoding means one set of row converters and one set of
 * repositories; only the physical column types below differ.
 */
export type DialectName = 'sqlite' | 'postgres';

// Kysely<any>: migrations get Kysely<unknown> (or a transaction of it), repositories Kysely<Database>.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Which engine a Kysely instance (or a transaction of one) talks to. */
export function dialectOf(db: AnyDb): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Column types for migrations. SQLite's `real` is a double but PostgreSQL's is a 4-byte float
 * (cost_usd and classifier scores would lose digits); `blob` does not exist in PostgreSQL (bytea).
 */
export function columnTypes(db: AnyDb): { blob: 'blob' | 'bytea'; real: 'real' | 'double precision' } {
  return dialectOf(db) === 'postgres' ? { blob: 'bytea', real: 'double precision' } : { blob: 'blob', real: 'real' };
}

/**
 * PostgreSQL errors after which the whole transaction may simply be run again: serialization
 * failures (SERIALIZABLE isolation detected a conflict with a concurrent transaction) and
 * deadlocks. SQLite serialises writers and never reports either.
 */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * Serialise transactions working on the same key until they end (PostgreSQL: a transaction-
 * scoped advisory lock on the key's hash). Used where many concurrent transactions hit one hot
 * row set (a key's burst window): they queue instead of failing serialization and re-running.
 * SQLite runs one writer at a time already.
 */
export async function lockKey(db: AnyDb, key: string): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
}

/** Whether a table exists (SQLite: sqlite_master; PostgreSQL: the current schema's catalogue). */
export async function hasTable(db: AnyDb, name: string): Promise<boolean> {
  const { rows } = dialectOf(db) === 'postgres'
    ? await sql`select 1 from information_schema.tables where table_schema = current_schema() and table_name = ${name}`.execute(db)
    : await sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ${name}`.execute(db);
  return rows.length > 0;
}

/**
 * Work claims (docs/scale-out.md → Work done once). A claim is one statement: `UPDATE … SET
 * lease/status … WHERE <claimIn(db, 'id', SELECT id … LIMIT n)> RETURNING …`. On PostgreSQL the
 * sub-select takes `FOR UPDATE SKIP LOCKED`: rows another daemon is claiming at this instant are
 * skipped (it gets them, this daemon takes the next ones) instead of waited for, and a row whose
 * claim committed meanwhile is re-checked against the WHERE (no double claim). SQLite has one
 * writer: the sub-select is left as it is. The claim must run outside a SERIALIZABLE transaction
 * (READ COMMITTED: the root db, not runTransaction), or a concurrent claim would surface as a
 * serialization failure instead of a skip.
 *
 * The sub-select must run once. As `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` PostgreSQL
 * may plan a semi-join that re-runs it for every candidate row, and each re-run skips the rows
 * this statement has just updated (its own lock on a row it modified: skipped) and returns the
 * next one: `LIMIT 1` claimed every due row, and the caller, expecting one, sent the first and
 * left the others `sending` (issue: five sends due in the same second, one sent, four stuck until
 * the 10-minute lease). `id = ANY(ARRAY(SELECT …))` is an uncorrelated sub-plan, run once.
 */
export function claimIn<QB extends Expression<unknown> & { forUpdate(): QB; skipLocked(): QB }>(db: AnyDb, column: string, sub: QB): Expression<SqlBool> {
  return dialectOf(db) === 'postgres'
    ? sql<SqlBool>`${sql.ref(column)} = any(array(${sub.forUpdate().skipLocked()}))`
    : sql<SqlBool>`${sql.ref(column)} in (${sub})`;
}

/**
 * A read that the transaction will write back (read-modify-write of one row): PostgreSQL takes
 * the row lock an UPDATE that keeps the key takes (`FOR NO KEY UPDATE`: rows referencing this
 * one by foreign key can still be inserted meanwhile), so under READ COMMITTED a concurrent
 * writer of the row waits for this transaction and then reads what it wrote (no lost update);
 * under SERIALIZABLE it only makes a conflict surface at the read. SQLite has one writer: the
 * query is left as it is. Apply with `.$call(lockRowForUpdate(db))`.
 */
export function lockRowForUpdate(db: AnyDb) {
  const pg = dialectOf(db) === 'postgres';
  return <QB extends { forNoKeyUpdate(): QB }>(qb: QB): QB => (pg ? qb.forNoKeyUpdate() : qb);
}

/** Ids among `ids` that no other transaction holds a row lock on, locked for this one (see skipLocked). */
export async function lockAvailable(db: AnyDb, table: string, column: string, ids: string[]): Promise<string[]> {
  if (!ids.length || dialectOf(db) !== 'postgres') return ids;
  const { rows } = await sql<{ id: string }>`select ${sql.ref(column)} as id from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(ids)}) for update skip locked`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * A JSON array column (text, schema.ts encoding) holds `value` as one of its elements: exact and
 * case-sensitive on both engines (labels are case-sensitive names). A LIKE on the JSON text was
 * case-insensitive on SQLite and case-sensitive on PostgreSQL, and matched inside an element
 * holding an escaped quote.
 */
export function jsonArrayHas(db: AnyDb, column: string, value: string) {
  return dialectOf(db) === 'postgres'
    ? sql<boolean>`(${sql.ref(column)})::jsonb @> jsonb_build_array(${value}::text)`
    : sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) where json_each.value = ${value})`;
}
