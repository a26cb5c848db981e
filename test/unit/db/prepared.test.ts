import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, migrate, runTransaction, tableMark, type OpenedDb } from '../../../src/db/open.js';
import { directStatements } from '../../../src/db/direct.js';
import { defineQuery } from '../../../src/db/prepared.js';
import { testDatabase, type TestDatabase } from '../../helpers/db.js';

// db/prepared.ts (defineQuery: compiled once per engine, run with each call's values) and
// db/direct.ts (SQLite: synchronous statements where kysely would run the same one right away).
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-prepared-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db);
  for (const [id, tier] of [['wsk_1', 'free'], ['wsk_2', 'scale']]) {
    await opened.db.insertInto('workspaces').values({ id, slug: id, display_name: 'w', tier, tier_status: 'active', created_at: 'x' }).execute();
  }
});
afterEach(async () => {
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const byId = defineQuery((db, p: { id: string }) => db.selectFrom('workspaces').select(['id', 'tier']).where('id', '=', p.id));
// A constant (the tier literal, the limit) among the call's values, and a value used twice.
const scaleOrNamed = defineQuery((db, p: { a: string; b: string }) => db.selectFrom('workspaces').select('id')
  .where((eb) => eb.or([eb('id', '=', p.a), eb('slug', '=', p.a), eb.and([eb('tier', '=', 'scale'), eb('id', '=', p.b)])])).orderBy('id').limit(10));
const setTier = defineQuery((db, p: { id: string; tier: string }) => db.updateTable('workspaces').set({ tier: p.tier }).where('id', '=', p.id));

describe('defineQuery', () => {
  it('runs with each call\'s values, constants kept, on either engine', async () => {
    const db = opened.db;
    expect(await byId.first(db, { id: 'wsk_2' })).toEqual({ id: 'wsk_2', tier: 'scale' });
    expect(await byId.first(db, { id: 'wsk_1' })).toEqual({ id: 'wsk_1', tier: 'free' });
    expect(await byId.first(db, { id: 'nope' })).toBeUndefined();
    expect((await scaleOrNamed.all(db, { a: 'wsk_1', b: 'wsk_2' })).map((r) => r.id)).toEqual(['wsk_1', 'wsk_2']);
    expect((await scaleOrNamed.all(db, { a: 'nope', b: 'wsk_1' })).map((r) => r.id)).toEqual([]);
    expect(await setTier.run(db, { id: 'wsk_1', tier: 'team' })).toBe(1);
    expect(await setTier.run(db, { id: 'nope', tier: 'team' })).toBe(0);
    expect(await byId.first(db, { id: 'wsk_1' })).toEqual({ id: 'wsk_1', tier: 'team' });
  });

  it('inside a transaction: sees its uncommitted rows and rolls back with it', async () => {
    const db = opened.db;
    await expect(runTransaction(db, async (trx) => {
      expect(await setTier.run(trx, { id: 'wsk_1', tier: 'team' })).toBe(1);
      expect(await byId.first(trx, { id: 'wsk_1' })).toEqual({ id: 'wsk_1', tier: 'team' });
      throw new Error('undo');
    })).rejects.toThrow('undo');
    expect(await byId.first(db, { id: 'wsk_1' })).toEqual({ id: 'wsk_1', tier: 'free' });
  });

  it('refuses a build that does not use its values as whole values', async () => {
    const bad = defineQuery((db, p: { slug: string }) => db.selectFrom('workspaces').select('id').where('slug', 'like', `${p.slug}%`));
    await expect(bad.all(opened.db, { slug: 'w' })).rejects.toThrow(/^defineQuery: /);
  });
});

describe('direct statements (SQLite)', () => {
  it('only where kysely would run the statement at once: in an open transaction of its own, or an autocommit read', async (t) => {
    if (opened.dialect !== 'sqlite') t.skip();
    const db = opened.db;
    expect(directStatements(db, false)).not.toBeNull();
    // Writes on the root database go through kysely (the write gate of the queue writer thread).
    expect(directStatements(db, true)).toBeNull();
    let inside: unknown = 'unset';
    let rootWhileOpen: unknown = 'unset';
    let txAfter: unknown = 'unset';
    let kept: Parameters<typeof directStatements>[0] | null = null;
    await runTransaction(db, async (trx) => {
      inside = directStatements(trx, true);
      // Another chain's root read while this transaction is open: kysely's (it waits, or joins).
      rootWhileOpen = directStatements(db, false);
      kept = trx;
    });
    txAfter = directStatements(kept!, true);
    expect(inside).not.toBeNull();
    expect(rootWhileOpen).toBeNull();
    // A transaction object kept after its end never runs anything directly (it would run in whatever is open next).
    expect(txAfter).toBeNull();
  });

  it('a direct write moves tableMark as a kysely write does (caches of that table are dropped)', async (t) => {
    if (opened.dialect !== 'sqlite') t.skip();
    const db = opened.db;
    const before = tableMark(db, ['workspaces']);
    await runTransaction(db, async (trx) => {
      await setTier.run(trx, { id: 'wsk_1', tier: 'team' });
    });
    expect(tableMark(db, ['workspaces'])).not.toBe(before);
    const mark = tableMark(db, ['workspaces']);
    await byId.first(db, { id: 'wsk_1' });
    expect(tableMark(db, ['workspaces'])).toBe(mark);
  });
});
