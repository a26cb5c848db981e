import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { dialectOf, type DialectName } from './dialect.js';
import { directStatements } from './direct.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * A query of a hot path, built and compiled by kysely once per engine, then run with each call's
 * values. On SQLite it runs as a synchronous prepared statement (db/open.ts directStatements)
 * whenever that is what kysely would do, otherwise (PostgreSQL; a root-db read while a
 * transaction is open) through kysely's executor with the compiled text: the SQL is kysely's
 * for whichever engine `db` talks to, so repositories stay engine-neutral.
 *
 * Why: building a kysely query (operation-node trees, frozen objects), compiling it and running
 * it through the executor (a connection hand-over and ~15 promises) cost several times SQLite's
 * own work for the small statements an inbound message runs (~20 of them; bench/README.md, round
 * 2 session 5).
 *
 * `build` receives placeholders for the named values and must use each only as a value (in a
 * comparison, a `values()` row, a `set()`): they are told apart from constants by identity when
 * the query is compiled. A build whose parameters are not all placeholders or plain constants
 * (a value that kysely transformed) throws at the first call, so a misuse shows in any test.
 */
export interface PreparedQuery<P, R> {
  /** Every row. */
  all(db: Db, params: P): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Db, params: P): Promise<R | undefined>;
  /** Run a write; the number of rows it changed. */
  run(db: Db, params: P): Promise<number>;
}

interface Compiled {
  sql: string;
  /** Per parameter: the name of a call value, or a constant of the query. */
  slots: ({ name: string } | { value: unknown })[];
  /** Whether the statement may write (UPDATE/INSERT/DELETE): a root-db write goes through kysely. */
  writes: boolean;
}

const PLACEHOLDER = '\u0000mailagent-param:';

export function defineQuery<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, p: P) => Compilable<R>,
): PreparedQuery<P, R> {
  const byDialect = new Map<DialectName, Compiled>();
  const compiled = (db: Db): Compiled => {
    const dialect = dialectOf(db);
    let c = byDialect.get(dialect);
    if (c) return c;
    const names = new Map<string, string>();
    const p = new Proxy({}, {
      get(_t, key) {
        if (typeof key !== 'string') return undefined;
        const v = `${PLACEHOLDER}${key}`;
        names.set(v, key);
        return v;
      },
    }) as P;
    const q = build(db as Kysely<Database>, p).compile();
    const slots = q.parameters.map((v) => {
      if (typeof v === 'string' && v.startsWith(PLACEHOLDER)) {
        const name = names.get(v);
        if (name === undefined) throw new Error(`defineQuery: a value was transformed before it reached the query (${q.sql})`);
        return { name };
      }
      return { value: v };
    });
    // A placeholder inside a text (e.g. concatenated into a LIKE pattern) would be sent as is.
    if (slots.length !== q.parameters.length || q.sql.includes(PLACEHOLDER)) throw new Error(`defineQuery: placeholders must be used as whole values (${q.sql})`);
    c = { sql: q.sql, slots, writes: q.query.kind !== 'SelectQueryNode' };
    byDialect.set(dialect, c);
    return c;
  };
  const values = (c: Compiled, params: P): unknown[] => c.slots.map((s) => ('name' in s ? params[s.name] : s.value));
  const viaKysely = async (db: Db, c: Compiled, params: P) => db.executeQuery<R>(CompiledQuery.raw(c.sql, values(c, params)));
  return {
    async all(db, params) {
      const c = compiled(db);
      const direct = directStatements(db as Kysely<Database>, c.writes);
      if (direct) return direct.all(c.sql, values(c, params)) as R[];
      return (await viaKysely(db, c, params)).rows;
    },
    async first(db, params) {
      const c = compiled(db);
      const direct = directStatements(db as Kysely<Database>, c.writes);
      if (direct) return direct.get(c.sql, values(c, params)) as R | undefined;
      return (await viaKysely(db, c, params)).rows[0];
    },
    async run(db, params) {
      const c = compiled(db);
      const direct = directStatements(db as Kysely<Database>, c.writes);
      if (direct) return direct.run(c.sql, values(c, params));
      return Number((await viaKysely(db, c, params)).numAffectedRows ?? 0);
    },
  };
}
