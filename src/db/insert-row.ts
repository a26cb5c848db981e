import { CompiledQuery, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { dialectOf } from './dialect.js';
import { directStatements } from './direct.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * INSERT statements compiled by kysely once per engine, table, column list and conflict clause,
 * then run with each row's values. Building and compiling a kysely query (operation-node trees,
 * frozen objects, identifier escaping) cost more than SQLite's own work for the small rows the
 * hot paths write (an event, a sent message, a thread, a Message-ID ref); the statement text is
 * still kysely's, for whichever engine `db` talks to, so repositories stay engine-neutral.
 *
 * The cache is filled only when the compiled query's parameters are exactly the row's defined
 * values in key order (how kysely builds a one-row insert; undefined values are left out);
 * otherwise the row is simply run through kysely each time.
 */
const compiled = new Map<string, string>();
const COMPILED_MAX = 200;

function planOf(db: Db, table: string, row: object, onConflictDoNothing?: readonly string[] | 'any'): { cols: string[]; params: unknown[]; key: string } {
  const cols: string[] = [];
  const params: unknown[] = [];
  for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
    if (v === undefined) continue;
    cols.push(k);
    params.push(v);
  }
  const key = `${dialectOf(db)}|${table}|${cols.join(',')}|${onConflictDoNothing === undefined ? '' : onConflictDoNothing === 'any' ? '*' : onConflictDoNothing.join(',')}`;
  return { cols, params, key };
}

/**
 * insertRow() done at once, without a promise, when it can be: inside an open SQLite transaction
 * (db/open.ts directStatements) with the statement already compiled. false: nothing was run, call
 * insertRow(). The hot paths (a send's rows and events) use it to spare a promise per row.
 */
export function insertRowNow<T extends keyof Database & string>(
  db: Db, table: T, row: Insertable<Database[T]>, onConflictDoNothing?: readonly string[] | 'any',
): boolean {
  const direct = directStatements(db as Kysely<Database>, true);
  if (!direct) return false;
  // The last row shape run at once for this table and conflict clause: a row with the same defined
  // columns in the same order runs its statement without building the plan's key (Object.entries,
  // a join and a Map look-up per row, six rows per send).
  const conflictKey = onConflictDoNothing ?? NO_CONFLICT;
  const shape = lastShapes.get(table)?.get(conflictKey);
  if (shape) {
    const params: unknown[] = [];
    const cols = shape.cols;
    let i = 0;
    let same = true;
    for (const k in row) {
      const v = (row as Record<string, unknown>)[k];
      if (v === undefined) continue;
      if (cols[i] !== k) {
        same = false; // another column here, or one more than the shape has
        break;
      }
      params.push(v);
      i++;
    }
    if (same && i === cols.length) {
      direct.run(shape.sql, params);
      return true;
    }
  }
  const { cols, params, key } = planOf(db, table, row, onConflictDoNothing);
  const sql = compiled.get(key);
  if (sql === undefined) return false;
  let byConflict = lastShapes.get(table);
  if (!byConflict) lastShapes.set(table, (byConflict = new Map()));
  byConflict.set(conflictKey, { cols, sql });
  direct.run(sql, params);
  return true;
}

/** insertRowNow's last shape per table and conflict clause (SQLite only: directStatements). */
const lastShapes = new Map<string, Map<readonly string[] | string, { cols: string[]; sql: string }>>();
const NO_CONFLICT = '';

export async function insertRow<T extends keyof Database & string>(
  db: Db, table: T, row: Insertable<Database[T]>, onConflictDoNothing?: readonly string[] | 'any',
): Promise<void> {
  const { params, key } = planOf(db, table, row, onConflictDoNothing);
  const sql = compiled.get(key);
  if (sql !== undefined) {
    // Inside a SQLite transaction: a synchronous prepared statement (db/open.ts directStatements).
    const direct = directStatements(db as Kysely<Database>, true);
    if (direct) direct.run(sql, params);
    else await db.executeQuery(CompiledQuery.raw(sql, params));
    return;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let q = (db as Kysely<any>).insertInto(table).values(row as never);
  if (onConflictDoNothing === 'any') q = q.onConflict((oc) => oc.doNothing());
  else if (onConflictDoNothing) q = q.onConflict((oc) => oc.columns(onConflictDoNothing as never).doNothing());
  const c = q.compile();
  if (c.parameters.length === params.length && c.parameters.every((p, i) => p === params[i])) {
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(key, c.sql);
  }
  await db.executeQuery(c);
}
