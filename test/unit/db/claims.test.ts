import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, migrate, type OpenedDb } from '../../../src/db/open.js';
import { claimDueSimulatedReplies } from '../../../src/db/repos/messages.js';
import { onPostgres, testDatabase, type TestDatabase } from '../../helpers/db.js';

// Work claims (db/dialect.ts skipLocked, docs/scale-out.md → Work done once): one statement per
// claim; a row leased by another daemon is not taken until its lease runs out, and on PostgreSQL a
// row another daemon is claiming at this very moment (row locked) is skipped, not waited for.
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-claims-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db);
  await opened.db.insertInto('simulated_replies').values(['r1', 'r2', 'r3'].map((id, i) => ({
    message_id: id, workspace_id: 'wsk_x', due_at: `2026-01-01T00:00:0${i}.000Z`, done_at: null,
  }))).execute();
});
afterEach(async () => {
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = '2026-01-01T00:01:00.000Z';
const LEASE = '2026-01-01T00:03:00.000Z';
const ids = (rows: { message_id: string }[]) => rows.map((r) => r.message_id);
/** A hang guard, not a timing assertion: a claim that waited on the lock would stall here. */
const race = <T>(p: Promise<T>) => Promise.race([p, new Promise<'waited'>((r) => setTimeout(() => r('waited'), 5000).unref())]);

describe('work claims', () => {
  it('claims due rows oldest first, at most max, each once until its lease runs out', async () => {
    expect(ids(await claimDueSimulatedReplies(opened.db, NOW, 2, LEASE))).toEqual(['r1', 'r2']);
    expect(ids(await claimDueSimulatedReplies(opened.db, NOW, 50, LEASE))).toEqual(['r3']);
    expect(await claimDueSimulatedReplies(opened.db, NOW, 50, LEASE)).toEqual([]);
    // A daemon killed holding them: after the lease, any daemon takes them again.
    expect(ids(await claimDueSimulatedReplies(opened.db, LEASE, 50, '2026-01-01T00:05:00.000Z'))).toEqual(['r1', 'r2', 'r3']);
  });

  it.skipIf(!onPostgres)('PostgreSQL: a row another daemon is claiming right now is skipped, not waited for', async () => {
    const other = openDatabase(store.spec); // another daemon's pool
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      // The other daemon is in the middle of a claim that holds r1's row lock.
      const claim = other.db.transaction().execute(async (trx) => {
        await trx.selectFrom('simulated_replies').select('message_id').where('message_id', '=', 'r1').forUpdate().execute();
        locked();
        await held;
      });
      await isLocked;
      const got = await race(claimDueSimulatedReplies(opened.db, NOW, 50, LEASE));
      release();
      await claim;
      expect(got === 'waited' ? got : ids(got)).toEqual(['r2', 'r3']);
      // Its transaction ended without leasing r1: r1 is free for the next pass.
      expect(ids(await claimDueSimulatedReplies(opened.db, NOW, 50, LEASE))).toEqual(['r1']);
    } finally {
      await other.close();
    }
  });
});
