import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, migrate, runTransaction, setWriteGate, writeLockWanted, type OpenedDb } from '../../../src/db/open.js';
import { QueueWriter } from '../../../src/db/queue-writer.js';
import { groupedTransaction, type AppContext } from '../../../src/services/context.js';
import { createContext } from '../../../src/server/context.js';
import { loadConfig } from '../../../src/server/config.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { onPostgres, testDatabase, type TestDatabase } from '../../helpers/db.js';

// db/open.ts CommitSync: `off-thread` commits are as durable as `inline` ones when the promise
// resolves (the WAL is fdatasync'd on the thread pool first), `none` commits without a flush of
// their own; the connection's synchronous=FULL is restored after either.
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;
let ctx: AppContext;

// FileHandle is not exported; its prototype is reached through a handle.
const probe = await open(import.meta.filename, 'r');
const handleProto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
await probe.close();
const realDatasync = handleProto.datasync;
let syncs = 0;
let syncGate: Promise<void> | null = null;
let syncFails = false;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-commit-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db);
  ctx = createContext(loadConfig({ dataDir: dir, logLevel: 'silent' }, {}), opened.db, new ManualClock());
  syncs = 0;
  syncGate = null;
  syncFails = false;
  handleProto.datasync = async function (this: unknown) {
    syncs++;
    if (syncGate) await syncGate;
    if (syncFails) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    return realDatasync.call(this);
  };
});
afterEach(async () => {
  handleProto.datasync = realDatasync;
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const ws = (id: string) => ({ id, slug: id.replace('wsk_', 's'), display_name: id, tier: 'free', tier_status: 'active', created_at: 'x' });
const ids = async () => (await opened.db.selectFrom('workspaces').select('id').orderBy('id').execute()).map((r) => r.id);
const synchronous = async () => Number((await sql<{ synchronous: number }>`pragma synchronous`.execute(opened.db)).rows[0].synchronous);

describe('runTransaction commit modes', () => {
  it('every mode commits; none and off-thread run again as ordinary transactions afterwards', async () => {
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_a')).execute(), 'inline');
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_b')).execute(), 'off-thread');
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_c')).execute(), 'none');
    expect(await ids()).toEqual(['wsk_a', 'wsk_b', 'wsk_c']);
    // A failing body rolls back in every mode.
    await expect(runTransaction(opened.db, async (trx) => {
      await trx.insertInto('workspaces').values(ws('wsk_d')).execute();
      throw new Error('boom');
    }, 'none')).rejects.toThrow('boom');
    expect(await ids()).toEqual(['wsk_a', 'wsk_b', 'wsk_c']);
  });

  it.skipIf(onPostgres)('SQLite: synchronous is FULL again after an off-thread or none commit, also a failed one', async () => {
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_a')).execute(), 'off-thread');
    expect(await synchronous()).toBe(2);
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_b')).execute(), 'none');
    expect(await synchronous()).toBe(2);
    await expect(runTransaction(opened.db, async () => {
      throw new Error('boom');
    }, 'none')).rejects.toThrow('boom');
    expect(await synchronous()).toBe(2);
  });

  it.skipIf(onPostgres)('SQLite: off-thread resolves only after the WAL flush; none waits for no flush', async () => {
    let open!: () => void;
    syncGate = new Promise<void>((r) => (open = r));
    let resolved = false;
    const p = runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_a')).execute(), 'off-thread').then(() => {
      resolved = true;
    });
    for (let i = 0; i < 1000 && syncs === 0; i++) await new Promise((r) => setTimeout(r, 5)); // up to ~5 s on a loaded machine
    expect(syncs).toBe(1);
    // Committed (visible to other queries) but not yet acknowledged: the flush is still running.
    expect(await ids()).toEqual(['wsk_a']);
    expect(resolved).toBe(false);
    open();
    await p;
    expect(resolved).toBe(true);

    syncs = 0;
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_b')).execute(), 'none');
    expect(syncs).toBe(0);
  });

  it.skipIf(onPostgres)('SQLite: a failed WAL flush rejects the commit it covers instead of acknowledging it', async () => {
    syncFails = true;
    await expect(runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_a')).execute(), 'off-thread')).rejects.toThrow(/EIO/);
    syncFails = false;
    // The next commit flushes again (and succeeds).
    await runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_b')).execute(), 'off-thread');
    expect(await ids()).toEqual(['wsk_a', 'wsk_b']);
  });

  it.skipIf(onPostgres)('SQLite: commits made while a flush runs share the next flush', async () => {
    let open!: () => void;
    syncGate = new Promise<void>((r) => (open = r));
    const first = runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws('wsk_a')).execute(), 'off-thread');
    for (let i = 0; i < 1000 && syncs === 0; i++) await new Promise((r) => setTimeout(r, 5)); // up to ~5 s on a loaded machine
    const rest = ['wsk_b', 'wsk_c', 'wsk_d'].map((id) => runTransaction(opened.db, (trx) => trx.insertInto('workspaces').values(ws(id)).execute(), 'off-thread'));
    await new Promise((r) => setTimeout(r, 20));
    syncGate = null;
    open();
    await Promise.all([first, ...rest]);
    // One flush for the first commit, one shared by the three that came while it ran.
    expect(syncs).toBe(2);
  });

  it.skipIf(onPostgres)('SQLite: a group-committed unit is not acknowledged when its flush fails', async () => {
    syncFails = true;
    const units = ['wsk_a', 'wsk_b'].map((id) => groupedTransaction(ctx, (tx) => tx.db.insertInto('workspaces').values(ws(id)).execute()));
    for (const u of units) await expect(u).rejects.toThrow(/EIO/);
  });
});

describe('groupedTransaction (group commit)', () => {
  it('a failing unit is undone and rejected alone; the others commit, then their afterCommit runs', async () => {
    const after: string[] = [];
    const unit = (id: string, fail = false) => groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws(id)).execute();
      tx.afterCommit(() => after.push(id));
      if (fail) throw new Error(`unit ${id} failed`);
      return id;
    });
    // Queued in the same tick: one batch.
    const results = await Promise.allSettled([unit('wsk_a'), unit('wsk_b', true), unit('wsk_c'), unit('wsk_d', true), unit('wsk_e')]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'wsk_a', 'unit wsk_b failed', 'wsk_c', 'unit wsk_d failed', 'wsk_e',
    ]);
    expect(await ids()).toEqual(['wsk_a', 'wsk_c', 'wsk_e']);
    expect(after.sort()).toEqual(['wsk_a', 'wsk_c', 'wsk_e']);
  });

  it.skipIf(onPostgres)('SQLite: the next batch is written while the previous one\'s flush runs; neither is acknowledged before its own flush', async () => {
    let open!: () => void;
    syncGate = new Promise<void>((r) => (open = r));
    const order: string[] = [];
    const unit = (id: string) => groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws(id)).execute();
      tx.afterCommit(() => order.push(`after ${id}`));
      return id;
    }).then((v) => {
      order.push(`resolved ${v}`);
    });
    const a = unit('wsk_a');
    for (let i = 0; i < 40 && syncs === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(syncs).toBe(1); // batch 1 committed, its flush held
    const b = unit('wsk_b');
    for (let i = 0; i < 40 && (await ids()).length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    // Batch 2 committed while batch 1's flush still runs; nothing acknowledged, no afterCommit ran.
    expect(await ids()).toEqual(['wsk_a', 'wsk_b']);
    expect(order).toEqual([]);
    syncGate = null;
    open();
    await Promise.all([a, b]);
    // Batch 2 waited for a flush of its own, started after its commit (not batch 1's).
    expect(syncs).toBe(2);
    expect(order).toEqual(['after wsk_a', 'resolved wsk_a', 'after wsk_b', 'resolved wsk_b']);
  });

  it.skipIf(onPostgres)('SQLite: when a later batch\'s flush fails, that batch is rejected, the earlier one acknowledged', async () => {
    let open!: () => void;
    syncGate = new Promise<void>((r) => (open = r));
    const a = groupedTransaction(ctx, (tx) => tx.db.insertInto('workspaces').values(ws('wsk_a')).execute());
    for (let i = 0; i < 40 && syncs === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const b = groupedTransaction(ctx, (tx) => tx.db.insertInto('workspaces').values(ws('wsk_b')).execute());
    for (let i = 0; i < 40 && (await ids()).length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    // The first flush succeeds; the second (batch 2's) fails.
    handleProto.datasync = async function (this: unknown) {
      syncs++;
      if (syncs === 1) return realDatasync.call(this);
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    };
    syncGate = null;
    open();
    const [ra, rb] = await Promise.allSettled([a, b]);
    expect(ra.status).toBe('fulfilled');
    expect(rb.status === 'rejected' && String(rb.reason)).toMatch(/EIO/);
  });

  it.skipIf(onPostgres)('SQLite: a unit with maxGroup joins no batch larger than that', async () => {
    // Units of one batch run in one transaction: the same tx.db.
    const batchOf = new Map<string, unknown>();
    const unit = (id: string, maxGroup?: number) => groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws(id)).execute();
      batchOf.set(id, tx.db);
      return id;
    }, undefined, { maxGroup });
    const batches = (of: string[]) => of.map((id) => [...new Set(of.map((x) => batchOf.get(x)))].indexOf(batchOf.get(id)));
    // Queued in the same tick: five units of at most two per batch → three batches.
    const five = ['wsk_a', 'wsk_b', 'wsk_c', 'wsk_d', 'wsk_e'];
    await Promise.all(five.map((id) => unit(id, 2)));
    expect(batches(five)).toEqual([0, 0, 1, 1, 2]);
    expect(await ids()).toEqual(five);
    // Units without a cap share a batch; a capped unit behind them does not join it past its cap.
    const four = ['wsk_f', 'wsk_g', 'wsk_h', 'wsk_i'];
    await Promise.all([unit('wsk_f'), unit('wsk_g'), unit('wsk_h'), unit('wsk_i', 2)]);
    expect(batches(four)).toEqual([0, 0, 0, 1]);
  });

  it('holdMs: a batch that has run that long commits before the next unit, which leads the next batch', async () => {
    const batchOf = new Map<string, unknown>();
    const order: string[] = [];
    const unit = (id: string, holdMs?: number) => groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws(id)).execute();
      batchOf.set(id, tx.db);
      order.push(id);
      return id;
    }, undefined, { holdMs });
    const batches = (of: string[]) => of.map((id) => [...new Set(of.map((x) => batchOf.get(x)))].indexOf(batchOf.get(id)));
    // Queued in the same tick. holdMs 0: every unit after a batch's first waits for the next one.
    const three = ['wsk_a', 'wsk_b', 'wsk_c'];
    expect(await Promise.all(three.map((id) => unit(id, 0)))).toEqual(three);
    expect(batches(three)).toEqual([0, 1, 2]);
    // SQLite runs the batches one after another in queue order; PostgreSQL runs each unit as its
    // own concurrent transaction, so their order there is the pool's, not the queue's.
    if (!onPostgres) expect(order).toEqual(three);
    else expect([...order].sort()).toEqual(three);
    // Without holdMs (or with a long one) they share one batch (SQLite; PostgreSQL runs each alone).
    const more = ['wsk_d', 'wsk_e', 'wsk_f'];
    await Promise.all([unit('wsk_d'), unit('wsk_e', 60_000), unit('wsk_f', 60_000)]);
    expect(batches(more)).toEqual(onPostgres ? [0, 1, 2] : [0, 0, 0]);
    expect(await ids()).toEqual([...three, ...more]);
  });

  it.skipIf(onPostgres)('SQLite: a batch commits before its next unit while the queue writer waits for the write lock', async () => {
    // The inbound queue's writer thread (db/queue-writer.ts) and the main connection take turns
    // through one lock. A store batch that holds it lets the writer's acknowledgement go between
    // two of its units, not after all of them.
    const writer = new QueueWriter(join(dir, 'mailagent.db'));
    await writer.ready();
    setWriteGate(opened.db, writer.gate);
    try {
      const queued = async (db: typeof opened.db) => (await db.selectFrom('inbound_queue').select('id').execute()).map((r) => r.id);
      const seen: Record<string, string[]> = {};
      let acked: Promise<void> | null = null;
      const unit = (id: string) => groupedTransaction(ctx, async (tx) => {
        await tx.db.insertInto('workspaces').values(ws(id)).execute();
        seen[id] = await queued(tx.db);
        if (id === 'wsk_a') {
          // An acknowledgement reaches the writer while this batch holds the lock: the writer waits.
          acked = writer.insert({
            id: 'inq_1', received_at: 'x', mail_from: 'a@b.test', rcpt_to: '[]', message_ids: '[]', remote_address: null, helo: null, raw: Buffer.from('x'),
          });
          const deadline = Date.now() + 30_000;
          while (!writeLockWanted(opened.db) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
          expect(writeLockWanted(opened.db)).toBe(true);
        }
        return id;
      }, undefined, { holdMs: 60_000, yieldAfter: 1 });
      await Promise.all([unit('wsk_a'), unit('wsk_b'), unit('wsk_c')]);
      await acked;
      // The writer committed between wsk_a's batch and wsk_b's: wsk_b's transaction sees the row.
      expect(seen).toEqual({ wsk_a: [], wsk_b: ['inq_1'], wsk_c: ['inq_1'] });
      expect(writeLockWanted(opened.db)).toBe(false);
      expect(await ids()).toEqual(['wsk_a', 'wsk_b', 'wsk_c']);
    } finally {
      setWriteGate(opened.db, null);
      await writer.close();
    }
  }, 60_000); // the writer thread starts through tsx here: seconds on a loaded machine

  it('a lone failing unit leaves nothing behind, and the queue keeps working', async () => {
    await expect(groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws('wsk_a')).execute();
      throw new Error('no');
    })).rejects.toThrow('no');
    expect(await groupedTransaction(ctx, async (tx) => {
      await tx.db.insertInto('workspaces').values(ws('wsk_b')).execute();
      return 'ok';
    })).toBe('ok');
    expect(await ids()).toEqual(['wsk_b']);
  });
});
