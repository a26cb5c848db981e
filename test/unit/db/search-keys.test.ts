import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openListStore, pagesOfList, seqAt as at, type ListStore } from '../../helpers/list-plans.js';
import { onPostgres } from '../../helpers/db.js';
import { migrate } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { indexSearchBatch } from '../../../src/db/search-index.js';
import { SEARCH_KINDS, SEARCH_ROWID_STEP } from '../../../src/db/search-index-sql.js';
import { paginate, type PageResult } from '../../../src/db/paginate.js';
import { listSentMessages } from '../../../src/db/repos/messages.js';
import { listReceived } from '../../../src/db/repos/received.js';
import { receivedConditions, sentConditions } from '../../../src/db/repos/search.js';
import { parseSearch } from '../../../src/services/search.js';

// Migration 0036 (issue #13, bench/README.md round 2 session 14): the search index's FTS5 rowids
// are, within each kind of mail's range, in the order of the message ids (the lists' order), so
// a text search reads the doclist newest first and stops at its page. What must hold whatever
// order mail is stored and indexed in, edited or deleted: every key in its kind's range, keys in
// id order, each message's index row under its key; an index made before 0036 keyed again so.
// SQLite only (PostgreSQL's index is keyed by message id).
let store: ListStore;
const WS = 'wsk_1';

async function addSent(id: string, subject: string) {
  await store.insert('sent_messages', {
    id, workspace_id: WS, agent_id: 'agt_1', thread_id: 'thr_1', status: 'sent', to: '["c@z.test"]', cc: '[]', bcc: '[]', reply_to: '[]',
    references: '[]', metadata: '{}', tags: '[]', subject, body_text: 'hello', from_address: 'agt_1@y.test', created_at: at(0), updated_at: at(0),
  });
}
async function addReceived(id: string, subject: string) {
  await store.insert('received_messages', {
    id, workspace_id: WS, agent_id: 'agt_1', thread_id: 'thr_1', from_address: 'a@x.test', to: '[]', cc: '[]', recipient: 'agent@y.test',
    subject, excerpt: 'e', headers: '[]', classification: '{}', test_mode: 0, source: 'smtp', received_at: at(0),
  });
}
const add = (id: string, subject: string) => (id.startsWith('rcv_') ? addReceived(id, subject) : addSent(id, subject));
/** A word only this message's subject holds. */
const wordOf = (id: string) => `w${id.replace(/[^a-z0-9]/g, '')}`;
const keys = async () => (await sql<{ r: number; id: string }>`SELECT search_rowid AS r, message_id AS id FROM message_search_keys ORDER BY search_rowid`.execute(store.db)).rows;
const catchUp = async (batch: number) => { while ((await indexSearchBatch(store.db, batch)) > 0); };

/** The invariants of the keys (see above), against the messages stored. */
async function expectKeysInListOrder() {
  const all = await keys();
  for (const [kind, K] of Object.entries(SEARCH_KINDS)) {
    const stored = (await sql<{ id: string }>`SELECT id FROM ${sql.table(K.table)} ORDER BY id`.execute(store.db)).rows.map((r) => r.id);
    const mine = all.filter((k) => k.r >= K.lo && k.r <= K.hi);
    expect(mine.map((k) => k.id), `${kind}: keys by rowid are the messages in id order`).toEqual(stored);
    for (const k of mine) {
      const hit = await sql<{ r: number }>`SELECT rowid AS r FROM message_search WHERE message_search MATCH ${wordOf(k.id)}`.execute(store.db);
      expect(hit.rows.map((h) => h.r), `${k.id}'s index row under its key`).toEqual([k.r]);
    }
  }
  expect(all.every((k) => Object.values(SEARCH_KINDS).some((K) => k.r >= K.lo && k.r <= K.hi))).toBe(true);
}

/** A deterministic shuffle (no randomness in tests). */
const shuffled = <T>(xs: T[]) => xs.map((x, i) => [((i * 7919) % 1009), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);

describe.skipIf(onPostgres)('search index keys in list order (migration 0036)', () => {
  beforeEach(async () => {
    store = await openListStore('mailagent-searchkeys-', { unmigrated: true });
    await sql`PRAGMA foreign_keys = OFF`.execute(store.opened.db);
  });
  afterEach(async () => { await store.close(); });

  it('mail stored and indexed out of id order, into a crowded gap, edited and deleted: keys stay in id order per kind', async () => {
    await migrate(store.db);
    const ids = shuffled(Array.from({ length: 120 }, (_, i) => `${i % 2 ? 'rcv' : 'msg'}_${String(1000 + i * 10).padStart(6, '0')}`));
    // Stored in a shuffled order, indexed 5 at a time every 9 messages: older ids keep arriving.
    for (let i = 0; i < ids.length; i++) {
      await add(ids[i], `order ${wordOf(ids[i])}`);
      if (i % 9 === 8) await indexSearchBatch(store.db, 5);
    }
    await catchUp(7);
    await expectKeysInListOrder();
    // 60 ids between two neighbours, one batch each, each just above the last: the gap halves
    // each time until the next key is taken out and placed again.
    const crowdedNext = (await keys()).find((k) => k.id === 'msg_001020')!;
    for (let j = 0; j < 60; j++) {
      await add(`msg_001010${String(j).padStart(2, '0')}`, `crowd ${wordOf(`msg_001010${String(j).padStart(2, '0')}`)}`);
      await catchUp(1);
    }
    expect((await keys()).find((k) => k.id === 'msg_001020')!.r, 'the crowded gap made room by moving the next key').not.toBe(crowdedNext.r);
    await expectKeysInListOrder();
    // The same crowding in one batch: the batch's ids share the gap.
    for (let j = 0; j < 30; j++) await add(`rcv_001030${String(j).padStart(2, '0')}`, `crowd ${wordOf(`rcv_001030${String(j).padStart(2, '0')}`)}`);
    await catchUp(256);
    await expectKeysInListOrder();
    // Edits re-queue (migration 0027's trigger): keyed again between the same neighbours.
    for (const id of ids.slice(0, 20)) await sql`UPDATE ${sql.table(id.startsWith('rcv_') ? 'received_messages' : 'sent_messages')} SET subject = ${`edited ${wordOf(id)}`} WHERE id = ${id}`.execute(store.db);
    await catchUp(3);
    await expectKeysInListOrder();
    for (const id of ids.slice(20, 40)) await sql`DELETE FROM ${sql.table(id.startsWith('rcv_') ? 'received_messages' : 'sent_messages')} WHERE id = ${id}`.execute(store.db);
    await expectKeysInListOrder();
    // Newer mail after the last key: STEP apart.
    await add('msg_999998', 'new'); await add('msg_999999', 'newer');
    await catchUp(256);
    const tail = (await keys()).filter((k) => k.r < SEARCH_KINDS.sent.hi).slice(-2);
    expect(tail[1].r - tail[0].r).toBe(SEARCH_ROWID_STEP);
  });

  it('an index made before it is keyed again in list order, and searches answer as the plain query', async () => {
    await migrate(store.db, Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0036')));
    const ids = shuffled(Array.from({ length: 90 }, (_, i) => `${i % 3 ? 'rcv' : 'msg'}_${String(5000 + i).padStart(6, '0')}`));
    for (const id of ids) await add(id, `${wordOf(id)} ${Number(id.slice(4)) % 4 === 0 ? 'zebra' : 'plain'}`);
    // The indexer before 0036: keys handed out in queue order (here: newest id first, both kinds in one sequence).
    await sql`INSERT INTO message_search_keys (message_id) SELECT message_id FROM message_search_pending ORDER BY message_id DESC`.execute(store.db);
    for (const [table, cols] of [['sent_messages', `m.subject`], ['received_messages', `m.subject`]]) {
      await sql`INSERT INTO message_search (rowid, subject) SELECT k.search_rowid, ${sql.raw(cols)} FROM ${sql.table(table)} m JOIN message_search_keys k ON k.message_id = m.id`.execute(store.db);
    }
    await sql`DELETE FROM message_search_pending`.execute(store.db);
    // One more still queued when the migration runs: keyed by the indexer afterwards.
    await add('msg_004999', `${wordOf('msg_004999')} zebra`);
    expect(await migrate(store.db)).toEqual(['0036_search_keys_in_list_order']);
    await catchUp(256);
    await expectKeysInListOrder();
    for (const kind of ['sent', 'received'] as const) {
      for (const limit of [2, 5]) {
        const want = await pagesOfList((cursor) => reference(kind, 'zebra', limit, cursor));
        expect(want.flatMap((p) => p[0]).length).toBeGreaterThan(limit);
        expect(await pagesOfList((cursor) => listOf(kind, 'zebra', limit, cursor)), `${kind} limit ${limit}`).toEqual(want);
      }
    }
  });

  it('a page after a cursor whose message was deleted: as the plain query', async () => {
    await migrate(store.db);
    for (let i = 0; i < 30; i++) await add(`msg_${String(7000 + i)}`, `${i % 2 ? 'zebra' : 'plain'} ${wordOf(`msg_${7000 + i}`)}`);
    await catchUp(256);
    const first = await listOf('sent', 'zebra', 3);
    expect(first.next_cursor).toBeDefined();
    await sql`DELETE FROM sent_messages WHERE id = ${first.rows[2].id}`.execute(store.db);
    const want = await reference('sent', 'zebra', 3, first.next_cursor);
    expect(want.rows.length).toBe(3);
    expect(await listOf('sent', 'zebra', 3, first.next_cursor)).toEqual(want);
  });
});

function reference(kind: 'received' | 'sent', q: string, limit: number, cursor?: string): Promise<PageResult<{ id: string }>> {
  const s = parseSearch(q);
  const db = store.db;
  if (kind === 'received') {
    let b = db.selectFrom('received_messages').select('id').where('workspace_id', '=', WS);
    for (const c of receivedConditions(db, s)) b = b.where(c);
    return paginate<{ id: string }>(b, 'id', { limit, cursor }, 'received messages');
  }
  let b = db.selectFrom('sent_messages').select('id').where('workspace_id', '=', WS);
  for (const c of sentConditions(db, s)) b = b.where(c);
  return paginate<{ id: string }>(b, 'id', { limit, cursor }, 'sent messages');
}
const listOf = async (kind: 'received' | 'sent', q: string, limit: number, cursor?: string): Promise<PageResult<{ id: string }>> => {
  const page = kind === 'received'
    ? await listReceived(store.db, WS, { agentId: null, search: parseSearch(q) }, { limit, cursor })
    : await listSentMessages(store.db, WS, { agentId: null, search: parseSearch(q) }, { limit, cursor });
  return { ...page, rows: page.rows.map((r) => ({ id: r.id })) };
};
