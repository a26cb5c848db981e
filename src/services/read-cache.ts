import { tableMark } from '../db/open.js';
import type { AppContext } from './context.js';

/**
 * Rows that change rarely (workspaces, agents, webhook endpoints), kept in memory per database
 * while db/open.ts `tableMark` of the tables they come from holds still: any write to one of those
 * tables on the daemon's connection, whatever the code path (a repository, a test's direct
 * UPDATE, a migration, a rolled-back transaction), drops every entry of the cache at once; a
 * commit by another connection or process that wrote one of them (`mailagent admin`, counted by
 * migration 0026's triggers) from the next event-loop turn on. Writes to other tables (every send
 * and inbound message, the queue writer's request log) do not. A read inside a transaction that has written one of the tables is neither served nor
 * kept (its rows may still be rolled back). On PostgreSQL (several daemons share the store and
 * nothing tells this one) nothing is cached.
 *
 * Values are shared between callers: `read` must return a fresh value, and callers must not
 * change what they get (`copy`, when given, hands each caller its own).
 */
export class ReadCache<V> {
  private readonly perDb = new WeakMap<object, { mark: string; entries: Map<string, V> }>();

  constructor(
    private readonly tables: readonly string[],
    private readonly max = 1000,
    private readonly copy: (v: V) => V = (v) => v,
  ) {}

  /** The kept value of `key` while it may be served (as get() would), without reading; else undefined. */
  peek(ctx: AppContext, key: string): V | undefined {
    const mark = tableMark(ctx.db, this.tables);
    const c = mark === null ? undefined : this.perDb.get(ctx.db);
    return c && c.mark === mark && c.entries.has(key) ? this.copy(c.entries.get(key)!) : undefined;
  }

  /**
   * peek() without the copy: the kept value itself, which the caller must not change. It is
   * replaced, never changed, when the cache reads again, so its identity tells a caller that
   * derived something from it (services/me.ts) whether that is still current.
   */
  peekKept(ctx: AppContext, key: string): V | undefined {
    const mark = tableMark(ctx.db, this.tables);
    const c = mark === null ? undefined : this.perDb.get(ctx.db);
    return c && c.mark === mark ? c.entries.get(key) : undefined;
  }

  async get(ctx: AppContext, key: string, read: () => Promise<V>): Promise<V> {
    const mark = tableMark(ctx.db, this.tables);
    if (mark === null) return read();
    let c = this.perDb.get(ctx.db);
    if (c && c.mark === mark && c.entries.has(key)) return this.copy(c.entries.get(key)!);
    const value = await read();
    // Kept only if nothing was written to these tables while the read waited for the connection.
    if (tableMark(ctx.db, this.tables) === mark) {
      if (!c || c.mark !== mark) this.perDb.set(ctx.db, (c = { mark, entries: new Map() }));
      if (c.entries.size >= this.max) c.entries.clear();
      c.entries.set(key, value);
      return this.copy(value);
    }
    return value;
  }
}
