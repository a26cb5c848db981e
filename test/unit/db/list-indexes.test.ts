import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/schema.js';
import { openListStore, seqId as id, seqAt as at, type ListStore } from '../../helpers/list-plans.js';
import { onPostgres } from '../../helpers/db.js';
import { listThreadsView } from '../../../src/db/repos/threads.js';
import { listReceived } from '../../../src/db/repos/received.js';
import { listEvents } from '../../../src/db/repos/events.js';
import { parseSearch } from '../../../src/services/search.js';
import { newIdAt } from '../../../src/shared/ids.js';

// Migration 0030 and the events query shape (issue #13: lists at 1,000,000 stored messages). A
// filter that few rows match must not walk every row of the workspace: each list below must be
// served by an index range holding only rows it can match (SQLite's plans), and answer exactly
// what the filter means (checked against the rows themselves), page after page. The answers are
// checked on PostgreSQL too (npx tsx scripts/test-postgres.ts test/unit/db/list-indexes.test.ts).
let store: ListStore;
/** The store the lists run on; on SQLite a second connection that records each query for its plan. */
let db: Db;
const WS = 'wsk_1';
const N = 400;

const insert = (table: string, row: Record<string, unknown>) => store.insert(table, row);

interface ThreadSeed { id: string; ws: string; status: string; labels: string[]; trashed: boolean; last: string }
const threads: ThreadSeed[] = [];
interface RcvSeed { id: string; ws: string; read: boolean; quarantined: boolean }
const received: RcvSeed[] = [];
interface EvtSeed { id: string; ws: string; type: string }
const events: EvtSeed[] = [];

beforeAll(async () => {
  store = await openListStore('mailagent-listidx-');
  store.recordPlans();
  db = store.db;
  for (const w of [WS, 'wsk_2']) await insert('workspaces', { id: w, slug: w, created_at: at(0) });
  await insert('agents', { id: 'agt_1', workspace_id: WS, name: 'a', email: 'a@y.test', created_at: at(0), updated_at: at(0) });
  for (let i = 0; i < N; i++) {
    const ws = i % 10 === 9 ? 'wsk_2' : WS;
    // A few filed, labelled, trashed; activity times out of id order (a reply moves a thread up).
    const t: ThreadSeed = {
      id: id('thr', i), ws, status: i % 37 === 0 ? 'archived' : i % 53 === 0 ? 'closed' : 'open',
      labels: i % 29 === 0 ? ['bench'] : i % 31 === 0 ? ['other', 'bench'] : i % 41 === 0 ? ['other'] : [],
      trashed: i % 43 === 0, last: at((i * 7919) % N),
    };
    threads.push(t);
    await insert('threads', {
      id: t.id, workspace_id: ws, agent_id: 'agt_1', subject: 's', normalized_subject: 's', status: t.status, labels: JSON.stringify(t.labels),
      participants: '[]', message_count: 1, last_message_at: t.last, trashed_at: t.trashed ? at(i) : null, deleted_at: null, created_at: at(i), updated_at: at(i),
    });
    const r: RcvSeed = { id: id('rcv', i), ws, read: i % 47 === 0, quarantined: i % 59 === 0 };
    received.push(r);
    await insert('received_messages', {
      id: r.id, workspace_id: ws, agent_id: 'agt_1', thread_id: t.id, from_address: 'a@x.test', to: '[]', cc: '[]', recipient: 'agent@y.test',
      subject: 's', excerpt: 'e', headers: '[]', classification: '{}', quarantined: r.quarantined ? 1 : 0, test_mode: 0, source: 'smtp',
      received_at: at(i), read_at: r.read ? at(i) : null,
    });
    const e: EvtSeed = { id: newIdAt('evt', Date.parse(at(i))), ws, type: i % 67 === 0 ? 'message.bounced' : i % 71 === 0 ? 'message.complained' : i % 2 ? 'message.received' : 'message.sent' };
    events.push(e);
    await insert('events', {
      id: e.id, workspace_id: ws, agent_id: 'agt_1', thread_id: null, type: e.type, test_mode: 0, created_at: at(i),
      payload: JSON.stringify({ id: e.id, object: 'event', type: e.type, workspace_id: ws, test_mode: false, data: {}, created_at: at(i) }),
    });
  }
});
afterAll(async () => { await store.close(); });

const allPages = <T>(list: (cursor?: string) => Promise<{ rows: T[]; next_cursor?: string }>) => store.allPages(list);

const byActivity = (a: ThreadSeed, b: ThreadSeed) => (a.last === b.last ? (a.id < b.id ? 1 : -1) : a.last < b.last ? 1 : -1);

describe('migration 0030: the filtered lists read only rows they can match', () => {
  it.skipIf(onPostgres)('the partial indexes hold only the rare rows (storing an open, unlabelled thread or unread mail writes none of them)', () => {
    const count = (index: string, where: string, table: string) => (store.recorder!.sqlite.prepare(`select count(*) n from ${table} indexed by ${index} where workspace_id >= '' and ${where}`).get() as { n: number }).n;
    expect(count('threads_filed', "status <> 'open'", 'threads')).toBe(threads.filter((t) => t.status !== 'open').length);
    expect(count('threads_trash', 'trashed_at is not null', 'threads')).toBe(threads.filter((t) => t.trashed).length);
    expect(count('threads_labelled', "labels <> '[]'", 'threads')).toBe(threads.filter((t) => t.labels.length).length);
    expect(count('received_read', 'read_at is not null', 'received_messages')).toBe(received.filter((r) => r.read).length);
    expect(count('received_quarantined', 'quarantined = 1', 'received_messages')).toBe(received.filter((r) => r.quarantined).length);
  });

  const threadCases: [string, Parameters<typeof listThreadsView>[2], (t: ThreadSeed) => boolean, RegExp][] = [
    ['status archived', { status: 'archived' }, (t) => t.status === 'archived' && !t.trashed, /USING INDEX threads_filed \(workspace_id=\? AND status=\?/],
    ['status closed', { status: 'closed' }, (t) => t.status === 'closed' && !t.trashed, /USING INDEX threads_filed \(workspace_id=\? AND status=\?/],
    ['the trash', { trashed: true }, (t) => t.trashed, /USING INDEX threads_trash/],
    ['label bench', { label: 'bench' }, (t) => t.labels.includes('bench') && !t.trashed, /USING INDEX threads_labelled/],
    ['open (most threads: the activity index, as before)', { status: 'open' }, (t) => t.status === 'open' && !t.trashed, /USING INDEX threads_workspace_activity/],
  ];
  for (const [name, filter, match, index] of threadCases) {
    it(`threads, ${name}: every page from its index, newest activity first, the same rows as the filter`, async () => {
      const { rows, plans } = await allPages((cursor) => listThreadsView(db, WS, filter, { limit: 4, cursor }));
      expect(rows.map((r) => r.id)).toEqual(threads.filter((t) => t.ws === WS && match(t)).sort(byActivity).map((t) => t.id));
      expect(rows.length).toBeGreaterThan(0);
      for (const p of plans) {
        expect(p, p).toMatch(index);
        expect(p, p).not.toMatch(/TEMP B-TREE|SCAN threads/);
      }
    });
  }

  const receivedCases: [string, (r: RcvSeed) => boolean, RegExp][] = [
    ['is:read', (r) => r.read, /USING INDEX received_read/],
    ['is:quarantined', (r) => r.quarantined, /USING INDEX received_quarantined/],
    ['is:unread (most mail: the workspace index, as before)', (r) => !r.read, /USING INDEX received_workspace_id/],
  ];
  for (const [q, match, index] of receivedCases) {
    it(`received, q=${q.split(' ')[0]}: every page from its index, newest first, the same rows as the filter`, async () => {
      const { rows, plans } = await allPages((cursor) => listReceived(db, WS, { search: parseSearch(q.split(' ')[0]) }, { limit: 4, cursor }));
      expect(rows.map((r) => r.id)).toEqual(received.filter((r) => r.ws === WS && match(r)).map((r) => r.id).reverse());
      for (const p of plans) {
        expect(p, p).toMatch(index);
        expect(p, p).not.toMatch(/TEMP B-TREE|SCAN received_messages/);
      }
    });
  }

  for (const order of ['desc', 'asc'] as const) {
    it(`events of several types (${order}): one events_type range per type, never a walk of every event; the same rows as the filter`, async () => {
      for (const types of [['message.bounced', 'message.complained'], ['message.bounced', 'message.sent'], ['message.received', 'message.sent', 'message.bounced']]) {
        const { rows, plans } = await allPages((cursor) => listEvents(db, WS, { types }, { limit: 4, cursor }, order));
        const want = events.filter((e) => e.ws === WS && types.includes(e.type)).map((e) => e.id);
        expect(rows.map((e) => e.id)).toEqual(order === 'desc' ? want.reverse() : want);
        for (const p of plans) {
          // Each type's range, then the page's rows looked up by id (the IN list is walked in order: no sort).
          expect(p.match(/USING COVERING INDEX events_type \(workspace_id=\? AND type=\?/g)?.length, p).toBe(types.length);
          expect(p, p).toMatch(/^SEARCH events USING INDEX events_workspace_id \(workspace_id=\? AND id=\?\)/);
          expect(p, p).not.toMatch(/\(workspace_id=\?\)|SCAN events|TEMP B-TREE/);
        }
      }
      // With the other filters and a cursor from a time: still the same rows.
      const since = at(100);
      const { rows } = await allPages((cursor) => listEvents(db, WS, { types: ['message.bounced', 'message.sent'], agentId: 'agt_1', since }, { limit: 3, cursor }, order));
      const want = events.filter((e) => e.ws === WS && ['message.bounced', 'message.sent'].includes(e.type) && e.id >= events[100].id).map((e) => e.id);
      expect(rows.map((e) => e.id)).toEqual(order === 'desc' ? want.reverse() : want);
    });
  }
});
