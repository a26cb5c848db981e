import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, migrate, type OpenedDb } from '../../../src/db/open.js';
import { insertRow, insertRowNow } from '../../../src/db/insert-row.js';
import { runTransaction } from '../../../src/db/open.js';
import { testDatabase, type TestDatabase } from '../../helpers/db.js';

// db/insert-row.ts: one-row INSERTs compiled by kysely once, then run with each row's values.
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-insrow-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db);
  await opened.db.insertInto('workspaces').values({ id: 'wsk_1', slug: 's1', display_name: 'w', tier: 'free', tier_status: 'active', created_at: 'x' }).execute();
});
afterEach(async () => {
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const ev = (id: string, extra: Record<string, unknown> = {}) => ({
  id, workspace_id: 'wsk_1', agent_id: null, thread_id: null, type: 'message.sent', test_mode: 1, payload: `{"id":"${id}"}`, created_at: `2026-01-0${id.slice(-1)}`, ...extra,
});

describe('insertRow', () => {
  it('writes each row with its own values, the statement compiled once and reused', async () => {
    const seen: string[] = [];
    const db = opened.db;
    const exec = db.executeQuery.bind(db) as (q: unknown) => Promise<unknown>;
    (db as unknown as { executeQuery: (q: { sql: string }) => Promise<unknown> }).executeQuery = (q) => {
      seen.push(q.sql);
      return exec(q);
    };
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await insertRow(db, 'events', ev(id));
    // A row with a column left undefined is another statement, not the cached one with a hole.
    await insertRow(db, 'events', { ...ev('evt_4'), agent_id: undefined } as never);
    const rows = await db.selectFrom('events').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.id, r.payload, r.created_at, r.agent_id])).toEqual([
      ['evt_1', '{"id":"evt_1"}', '2026-01-01', null], ['evt_2', '{"id":"evt_2"}', '2026-01-02', null],
      ['evt_3', '{"id":"evt_3"}', '2026-01-03', null], ['evt_4', '{"id":"evt_4"}', '2026-01-04', null],
    ]);
    expect(new Set(seen.slice(0, 3)).size).toBe(1);
    expect(seen[3]).not.toBe(seen[0]);
  });

  it('on conflict do nothing, by columns or any', async () => {
    const ref = { agent_id: 'agt_1', rfc_message_id: 'a@b', workspace_id: 'wsk_1', message_id: 'msg_1', thread_id: 'thrd_1', direction: 'outbound', created_at: 'x' };
    await opened.db.insertInto('agents').values({
      id: 'agt_1', workspace_id: 'wsk_1', name: 'a', display_name: null, email: 'a@b', domain: 'b', status: 'active', daily_send_limit: null,
      hourly_send_limit: null, classify_inbound: 1, allowlist_domains: '[]', blocklist_domains: '[]', created_at: 'x', updated_at: 'x', archived_at: null,
    }).execute();
    await insertRow(opened.db, 'message_refs', ref, ['agent_id', 'rfc_message_id']);
    await insertRow(opened.db, 'message_refs', { ...ref, message_id: 'msg_2' }, ['agent_id', 'rfc_message_id']);
    const refs = await opened.db.selectFrom('message_refs').select('message_id').execute();
    expect(refs.map((r) => r.message_id)).toEqual(['msg_1']);
    await expect(insertRow(opened.db, 'message_refs', { ...ref, message_id: 'msg_3' })).rejects.toThrow();
  });

  it('insertRowNow: at once inside a SQLite transaction once the statement is compiled; otherwise false and nothing written', async () => {
    const db = opened.db;
    const sqlite = store.spec.kind === 'sqlite';
    // A column list no other test compiles (the cache is per process).
    const evx = (id: string) => ({ ...ev(id), thread_id: undefined }) as never;
    // Outside a transaction: never at once (root writes go through kysely and the write gate).
    expect(insertRowNow(db, 'events', evx('evt_1'))).toBe(false);
    const before = await runTransaction(db, async (trx) => insertRowNow(trx, 'events', evx('evt_2')));
    expect(before).toBe(false); // not compiled yet
    await insertRow(db, 'events', evx('evt_3'));
    const inside = await runTransaction(db, async (trx) => {
      const done = insertRowNow(trx, 'events', evx('evt_4'));
      const seen = await trx.selectFrom('events').select('id').where('id', '=', 'evt_4').execute();
      return { done, seen: seen.length };
    });
    expect(inside).toEqual(sqlite ? { done: true, seen: 1 } : { done: false, seen: 0 });
    const ids = (await db.selectFrom('events').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(sqlite ? ['evt_3', 'evt_4'] : ['evt_3']);
  });

  it('insertRowNow: rows of other shapes after the remembered one (a column left out, one more, another order) write their own values', async () => {
    if (store.spec.kind !== 'sqlite') return; // at once only on SQLite (above)
    const db = opened.db;
    // Shapes no other test compiles: type and payload in the other order.
    const a = (id: string, extra: Record<string, unknown> = {}) => ({ id, workspace_id: 'wsk_1', payload: `{"id":"${id}"}`, type: 'message.sent', test_mode: 1, created_at: `2026-01-0${id.slice(-1)}`, ...extra });
    const rows: Record<string, unknown>[] = [
      a('evt_1'), a('evt_2', { agent_id: undefined }), a('evt_3', { thread_id: 'thrd_3' }),
      { ...a('evt_4', { created_at: undefined }), test_mode: 0, type: 'message.failed', created_at: '2026-01-04' }, // same keys, one moved last
      { type: 'message.bounced', id: 'evt_5', workspace_id: 'wsk_1', payload: '{"id":"evt_5"}', test_mode: 1, created_at: '2026-01-05' },
      a('evt_6', { agent_id: null }), a('evt_7', { agent_id: undefined, thread_id: undefined }), a('evt_8'),
    ];
    for (const r of rows) await insertRow(db, 'events', r as never); // compiles every shape once
    await db.deleteFrom('events').execute();
    const done = await runTransaction(db, async (trx) => rows.map((r) => insertRowNow(trx, 'events', r as never)));
    expect(done).toEqual(rows.map(() => true));
    const got = await db.selectFrom('events').select(['id', 'type', 'thread_id', 'test_mode', 'payload', 'created_at']).orderBy('id').execute();
    expect(got).toEqual([
      { id: 'evt_1', type: 'message.sent', thread_id: null, test_mode: 1, payload: '{"id":"evt_1"}', created_at: '2026-01-01' },
      { id: 'evt_2', type: 'message.sent', thread_id: null, test_mode: 1, payload: '{"id":"evt_2"}', created_at: '2026-01-02' },
      { id: 'evt_3', type: 'message.sent', thread_id: 'thrd_3', test_mode: 1, payload: '{"id":"evt_3"}', created_at: '2026-01-03' },
      { id: 'evt_4', type: 'message.failed', thread_id: null, test_mode: 0, payload: '{"id":"evt_4"}', created_at: '2026-01-04' },
      { id: 'evt_5', type: 'message.bounced', thread_id: null, test_mode: 1, payload: '{"id":"evt_5"}', created_at: '2026-01-05' },
      { id: 'evt_6', type: 'message.sent', thread_id: null, test_mode: 1, payload: '{"id":"evt_6"}', created_at: '2026-01-06' },
      { id: 'evt_7', type: 'message.sent', thread_id: null, test_mode: 1, payload: '{"id":"evt_7"}', created_at: '2026-01-07' },
      { id: 'evt_8', type: 'message.sent', thread_id: null, test_mode: 1, payload: '{"id":"evt_8"}', created_at: '2026-01-08' },
    ]);
  });
});
