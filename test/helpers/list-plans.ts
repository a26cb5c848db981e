import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { migrate, openDatabase, type OpenedDb } from '../../src/db/open.js';
import { onPostgres, testDatabase, type TestDatabase } from './db.js';

/**
 * For the list-index tests (test/unit/db/list-indexes.test.ts, filter-indexes.test.ts): a second
 * connection to a SQLite file that records each query, and SQLite's plan of every query a call
 * made (`EXPLAIN QUERY PLAN`: ' | ' between the steps of one query, ' || ' between queries).
 */
/** Seeded rows' ids (`p_00042`) and times (a minute apart from 2026-01-01), so that id order is time order. */
export const seqId = (p: string, i: number): string => `${p}_${String(i).padStart(5, '0')}`;
export const seqAt = (i: number): string => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();

export function planRecorder(file: string): { db: Kysely<Database>; sqlite: BetterSqlite3.Database; planOf(run: () => Promise<unknown>): Promise<string> } {
  const sqlite = new BetterSqlite3(file);
  const queries: CompiledQuery[] = [];
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => { if (e.level === 'query') queries.push(e.query); } });
  return {
    db,
    sqlite,
    async planOf(run) {
      queries.length = 0;
      await run();
      return queries.map((q) => (sqlite.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[])
        .map((r) => r.detail).join(' | ')).join(' || ');
    },
  };
}

/** Every page of a list, concatenated, with the plan of each page's query (none when `planOf` is null: PostgreSQL). */
export async function allPages<T>(
  list: (cursor?: string) => Promise<{ rows: T[]; next_cursor?: string }>,
  planOf: ((run: () => Promise<unknown>) => Promise<string>) | null,
): Promise<{ rows: T[]; plans: string[] }> {
  const rows: T[] = [];
  const plans: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 300; guard++) {
    let page!: { rows: T[]; next_cursor?: string };
    const run = async () => { page = await list(cursor); };
    if (planOf) plans.push(await planOf(run));
    else await run();
    rows.push(...page.rows);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return { rows, plans };
}

/** Every page of a list as [ids, has_more, next_cursor] (the cursor is the page's contract too). */
export async function pagesOfList(list: (cursor?: string) => Promise<{ rows: { id: string }[]; has_more: boolean; next_cursor?: string }>): Promise<[string[], boolean, string | undefined][]> {
  const out: [string[], boolean, string | undefined][] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 400; guard++) {
    const p = await list(cursor);
    out.push([p.rows.map((r) => r.id), p.has_more, p.next_cursor]);
    if (!p.next_cursor) break;
    cursor = p.next_cursor;
  }
  return out;
}

/** Rows for those tests: every NOT NULL column gets a neutral value, then the row's own (so a test follows the schema). */
export function rowInserter(db: Kysely<Database>): { neutralOf(table: string): Promise<Record<string, unknown>>; insert(table: string, row: Record<string, unknown>): Promise<void> } {
  const neutral = new Map<string, Record<string, unknown>>();
  const neutralOf = async (table: string) => {
    if (!neutral.has(table)) {
      const t = (await db.introspection.getTables()).find((x) => x.name === table)!;
      neutral.set(table, Object.fromEntries(t.columns.filter((c) => !c.isNullable).map((c) => [c.name,
        /int|real|float|numeric|double/i.test(c.dataType) ? 0 : /blob|bytea/i.test(c.dataType) ? Buffer.alloc(0) : /bool/i.test(c.dataType) ? false : ''])));
    }
    return neutral.get(table)!;
  };
  return {
    neutralOf,
    async insert(table, row) {
      await db.insertInto(table as never).values({ ...(await neutralOf(table)), ...row } as never).execute();
    },
  };
}

/**
 * The store of a list test (list-indexes, filter-indexes, list-seek): a database in a temp dir
 * (migrated, or `unmigrated` for a test that migrates it itself), rows inserted on its own
 * connection, and once `recordPlans()` is called the lists' `db` is, on SQLite, a plan recorder's
 * connection to the same file (PostgreSQL: the store itself; its planner's choices are its own).
 */
export interface ListStore {
  opened: OpenedDb;
  /** The db the lists run on: the store's own until recordPlans(), then the recorder's on SQLite. */
  db: Kysely<Database>;
  recorder: ReturnType<typeof planRecorder> | null;
  insert(table: string, row: Record<string, unknown>): Promise<void>;
  neutralOf(table: string): Promise<Record<string, unknown>>;
  recordPlans(): void;
  /** Every page of a list with each page's plan (SQLite, after recordPlans()). */
  allPages<T>(list: (cursor?: string) => Promise<{ rows: T[]; next_cursor?: string }>): Promise<{ rows: T[]; plans: string[] }>;
  close(): Promise<void>;
}

export async function openListStore(prefix: string, opts: { unmigrated?: boolean } = {}): Promise<ListStore> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store: TestDatabase = await testDatabase(dir, opts);
  const opened = openDatabase(store.spec);
  if (!opts.unmigrated) await migrate(opened.db);
  const rows = rowInserter(opened.db);
  const s: ListStore = {
    opened,
    db: opened.db,
    recorder: null,
    insert: (table, row) => rows.insert(table, row),
    neutralOf: (table) => rows.neutralOf(table),
    recordPlans() {
      if (onPostgres || s.recorder) return;
      s.recorder = planRecorder((store.spec as { file: string }).file);
      s.db = s.recorder.db;
    },
    allPages: (list) => allPages(list, s.recorder ? s.recorder.planOf : null),
    async close() {
      if (s.recorder) await s.recorder.db.destroy();
      await opened.close();
      await store.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return s;
}
