import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, migrate, transactionCounts, withTransactionKind, TransactionEscapeError, type OpenedDb } from '../../../src/db/open.js';
import { sql } from 'kysely';
import { groupedTransaction, inTransaction, withinTransaction, type AppContext } from '../../../src/services/context.js';
import { createContext } from '../../../src/server/context.js';
import { loadConfig } from '../../../src/server/config.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { onPostgres, testDatabase, type TestDatabase } from '../../helpers/db.js';

// SQLite has one connection behind a mutex: a root-db query from inside a transaction callback
// would wait for that mutex forever (the whole daemon with it). On PostgreSQL (a pool) the same
// query would run outside the transaction and could wait on its row locks forever. Transactions
// are therefore passed explicitly (tx.db, or a context bound to one: withinTransaction), and the
// suite runs with the check that refuses the rest (MAILAGENT_CHECK_TX=1, vitest.config.ts): the
// tests below show that it would catch a call path that escaped its transaction.
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;
let ctx: AppContext;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-tx-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db);
  ctx = createContext(loadConfig({ dataDir: dir, logLevel: 'silent' }, {}), opened.db, new ManualClock());
});
afterEach(async () => {
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const ws = (id: string) => ({ id, slug: id.replace('wsk_', 's'), display_name: id, tier: 'free', tier_status: 'active', created_at: 'x' });
const count = async () => (await opened.db.selectFrom('workspaces').select('id').execute()).length;
/** A hang guard, not a timing assertion: a deadlock would otherwise stall the run until vitest's timeout. */
const race = <T>(p: Promise<T>) => Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000).unref())]);

describe('inTransaction', () => {
  it('the suite runs with the transaction check on', () => {
    expect(process.env.MAILAGENT_CHECK_TX).toBe('1');
  });

  it('a root-db query or write, or a transaction on the root context, inside the callback is refused (not hung); the transaction rolls back', async () => {
    for (const escape of [
      () => ctx.db.selectFrom('workspaces').select('id').execute(),
      () => ctx.db.insertInto('workspaces').values(ws('wsk_b')).execute(),
      () => inTransaction(ctx, async (inner) => { await inner.db.insertInto('workspaces').values(ws('wsk_b')).execute(); }),
      () => groupedTransaction(ctx, async (inner) => { await inner.db.insertInto('workspaces').values(ws('wsk_b')).execute(); }),
    ]) {
      const r = await race(inTransaction(ctx, async (tx) => {
        await tx.db.insertInto('workspaces').values(ws('wsk_a')).execute();
        await escape();
      }).then(() => 'committed', (e: Error) => e));
      expect(r).toBeInstanceOf(TransactionEscapeError);
      expect(await count()).toBe(0);
    }
  });

  it('a context bound to the transaction reads through it; a nested inTransaction joins it; afterCommit runs after the outer commit', async () => {
    const order: string[] = [];
    await inTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws('wsk_a')).execute();
      const bound = withinTransaction(ctx, tx);
      expect((await bound.db.selectFrom('workspaces').select('id').execute()).map((r) => r.id)).toEqual(['wsk_a']);
      await inTransaction(bound, async (inner) => {
        expect(inner.db).toBe(tx.db);
        await inner.db.insertInto('workspaces').values(ws('wsk_b')).execute();
        inner.afterCommit(() => order.push('inner after commit'));
      });
      await groupedTransaction(bound, async (inner) => {
        await inner.db.insertInto('workspaces').values(ws('wsk_c')).execute();
      });
      order.push('outer body done');
    });
    order.push('returned');
    expect(order).toEqual(['outer body done', 'inner after commit', 'returned']);
    expect(await count()).toBe(3);

    await expect(inTransaction(ctx, async (tx) => {
      await inTransaction(withinTransaction(ctx, tx), async (inner) => {
        await inner.db.insertInto('workspaces').values(ws('wsk_d')).execute();
      });
      throw new Error('outer fails');
    })).rejects.toThrow('outer fails');
    expect(await count()).toBe(3);
  });

  it('a failed nested inTransaction on a bound context is undone alone (savepoint) and its afterCommit dropped', async () => {
    const after: string[] = [];
    await inTransaction(ctx, async (tx) => {
      const bound = withinTransaction(ctx, tx);
      await tx.db.insertInto('workspaces').values(ws('wsk_keep')).execute();
      await expect(inTransaction(bound, async (inner) => {
        await inner.db.insertInto('workspaces').values(ws('wsk_undone')).execute();
        inner.afterCommit(() => after.push('undone'));
        throw new Error('inner fails');
      })).rejects.toThrow('inner fails');
      await inTransaction(bound, async (inner) => {
        await inner.db.insertInto('workspaces').values(ws('wsk_kept_too')).execute();
        inner.afterCommit(() => after.push('kept'));
      });
    });
    expect(after).toEqual(['kept']);
    expect((await opened.db.selectFrom('workspaces').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['wsk_keep', 'wsk_kept_too']);
  });

  it('other callers see only committed rows (SQLite: they wait for the transaction)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let inserted!: () => void;
    const didInsert = new Promise<void>((r) => { inserted = r; });
    const tx = inTransaction(ctx, async (t) => {
      await t.db.insertInto('workspaces').values(ws('wsk_a')).execute();
      inserted();
      await gate;
    });
    await didInsert;
    let outsideDone = false;
    const outside = ctx.db.selectFrom('workspaces').select('id').execute().then((rows) => { outsideDone = true; return rows; });
    if (onPostgres) {
      // Another pool connection: it does not wait, and sees the snapshot before the commit.
      expect((await outside).map((r) => r.id)).toEqual([]);
      release();
      await tx;
      expect(await count()).toBe(1);
      return;
    }
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(outsideDone).toBe(false);
    release();
    await tx;
    expect((await outside).map((r) => r.id)).toEqual(['wsk_a']);
  });

  it('work left running after the transaction ends takes the lock normally', async () => {
    let later!: Promise<unknown>;
    await inTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws('wsk_a')).execute();
      later = new Promise((r) => setImmediate(r)).then(() => ctx.db.insertInto('workspaces').values(ws('wsk_b')).execute());
    });
    await later;
    // The connection is free again: a new transaction starts and commits.
    await race(inTransaction(ctx, async (tx) => { await tx.db.insertInto('workspaces').values(ws('wsk_c')).execute(); }));
    expect(await count()).toBe(3);
  });

  it('a chain left behind by one transaction never joins a later one', async () => {
    let go!: () => void;
    const leakGo = new Promise<void>((r) => { go = r; });
    let leaked!: Promise<unknown>;
    await inTransaction(ctx, async () => {
      leaked = leakGo.then(() => ctx.db.insertInto('workspaces').values(ws('wsk_leak')).execute());
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let inserted!: () => void;
    const didInsert = new Promise<void>((r) => { inserted = r; });
    const second = inTransaction(ctx, async (t) => {
      await t.db.insertInto('workspaces').values(ws('wsk_a')).execute();
      inserted();
      await gate;
      throw new Error('roll back the second transaction');
    });
    await didInsert;
    go();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    release();
    await expect(second).rejects.toThrow('roll back');
    await leaked;
    // Had the leftover write joined the second transaction, it would have been rolled back too.
    expect((await opened.db.selectFrom('workspaces').select('id').execute()).map((r) => r.id)).toEqual(['wsk_leak']);
  });

  it('concurrent read-check-then-write transactions behave as if run one at a time', async () => {
    // The pattern behind name checks, caps and idempotency keys: read, decide, write. On
    // PostgreSQL the transactions overlap on the pool; SERIALIZABLE plus a re-run on conflict
    // must still let exactly one of them insert.
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => inTransaction(ctx, async (tx) => {
      const n = (await tx.db.selectFrom('workspaces').select('id').execute()).length;
      if (n > 0) return 'full';
      await new Promise((r) => setTimeout(r, 5));
      await tx.db.insertInto('workspaces').values(ws(`wsk_${i}`)).execute();
      return 'inserted';
    })));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(results.filter((r) => r.status === 'fulfilled' && r.value === 'inserted')).toHaveLength(1);
    expect(await count()).toBe(1);
  });

  it('re-runs are counted per kind of transaction (PostgreSQL; SQLite never re-runs)', async () => {
    // The same read-check-then-write race, counted under a kind: every transaction once, and on
    // PostgreSQL the attempts it lost. The first two wait (up to a second; SQLite runs them one
    // at a time, so there the wait just runs out) until both have read before either writes, so
    // at least one serialization failure is certain rather than left to the pool's timing.
    let arrived = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((r) => { bothRead = r; });
    await Promise.all(Array.from({ length: 12 }, (_, i) => withTransactionKind('race', () => inTransaction(ctx, async (tx) => {
      const n = (await tx.db.selectFrom('workspaces').select('id').execute()).length;
      if (n > 0) return;
      if (i < 2) {
        if (++arrived === 2) bothRead();
        await Promise.race([barrier, new Promise((r) => setTimeout(r, 1000))]);
      } else await new Promise((r) => setTimeout(r, 5));
      await tx.db.insertInto('workspaces').values(ws(`wsk_${i}`)).execute();
    }))));
    await inTransaction(ctx, async () => undefined);
    const c = transactionCounts(opened.db);
    if (!onPostgres) {
      expect(c.size).toBe(0);
      return;
    }
    expect(c.get('race')).toMatchObject({ transactions: 12, failed: 0 });
    expect(c.get('race')!.serializationFailures + c.get('race')!.deadlocks).toBeGreaterThan(0);
    expect(c.get('other')!.transactions).toBeGreaterThanOrEqual(1);
  });

  it('isolation: read committed where asked for, serializable otherwise (PostgreSQL)', async () => {
    if (!onPostgres) return; // one writer: SQLite has no isolation levels to choose
    const level = (isolation?: 'read committed') => inTransaction(ctx, async (tx) =>
      (await sql<{ l: string }>`select current_setting('transaction_isolation') as l`.execute(tx.db)).rows[0].l, { isolation });
    expect(await level()).toBe('serializable');
    expect(await level('read committed')).toBe('read committed');
    // Under READ COMMITTED each statement sees what committed before it: a row committed by
    // another transaction while this one runs is seen by its next statement (under
    // SERIALIZABLE the snapshot of the first statement would hold).
    let release!: () => void;
    let firstRead!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const read = new Promise<void>((r) => (firstRead = r));
    const seen = inTransaction(ctx, async (tx) => {
      const before = (await tx.db.selectFrom('workspaces').select('id').execute()).length;
      firstRead();
      await gate;
      return [before, (await tx.db.selectFrom('workspaces').select('id').execute()).length];
    }, { isolation: 'read committed' });
    await read;
    await opened.db.insertInto('workspaces').values(ws('wsk_c')).execute();
    release();
    expect(await seen).toEqual([0, 1]);
  });

  it('a raw nested transaction fails loudly instead of hanging', async () => {
    const r = await race(inTransaction(ctx, async () => {
      await ctx.db.transaction().execute(async (t2) => t2.selectFrom('workspaces').selectAll().execute());
    }).then(() => 'ok', (e: Error) => e));
    expect(r).toBeInstanceOf(TransactionEscapeError);
    // And the database is usable afterwards.
    expect(await race(count())).toBe(0);
  });
});
