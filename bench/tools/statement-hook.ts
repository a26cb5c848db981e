/**
 * Observe every SQL statement better-sqlite3 runs in this process (the bench tools' shared hook).
 * Statements are prepared once and cached (db/open.ts), so executions are observed on the
 * Statement prototype, patched the first time anything is prepared; preparing is timed too.
 * Main-thread time only: better-sqlite3 is synchronous (COMMIT includes its fsync).
 */
import BetterSqlite3 from 'better-sqlite3';

export interface StatementObserver {
  /** A statement ran: its SQL text and how long it took. */
  ran(source: string, ms: number): void;
  /** A statement was prepared, taking ms. */
  prepared?(ms: number): void;
}

export function observeStatements(observer: StatementObserver): void {
  const proto = (BetterSqlite3 as unknown as { prototype: { prepare: (sql: string) => object } }).prototype;
  const prepare = proto.prepare;
  let patched = false;
  proto.prepare = function (this: unknown, sql: string) {
    const t0 = performance.now();
    const stmt = prepare.call(this, sql);
    observer.prepared?.(performance.now() - t0);
    if (!patched) {
      patched = true;
      const sp = Object.getPrototypeOf(stmt) as Record<string, (...a: unknown[]) => unknown>;
      for (const m of ['all', 'run', 'get', 'iterate']) {
        const orig = sp[m];
        sp[m] = function (this: { source: string }, ...args: unknown[]) {
          const t = performance.now();
          try {
            return orig.apply(this, args);
          } finally {
            observer.ran(this.source, performance.now() - t);
          }
        };
      }
    }
    return stmt;
  };
}

/** Per statement text: how often and how long in all (the tools' tables). */
export class StatementTimes {
  readonly stats = new Map<string, { n: number; ms: number }>();
  add(key: string, ms: number): void {
    const s = this.stats.get(key) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += ms;
    this.stats.set(key, s);
  }
}
