import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openListStore, pagesOfList, seqId as id, seqAt as at, type ListStore } from '../../helpers/list-plans.js';
import { onPostgres } from '../../helpers/db.js';
import { paginate, type PageResult } from '../../../src/db/paginate.js';
import { indexSearchBatch } from '../../../src/db/search-index.js';
import { listThreadsView } from '../../../src/db/repos/threads.js';
import { listReceived } from '../../../src/db/repos/received.js';
import { listSentMessages } from '../../../src/db/repos/messages.js';
import { receivedConditions, sentConditions, TEXT_WALK } from '../../../src/db/repos/search.js';
import { parseSearch } from '../../../src/services/search.js';

// Issue #13, round 2 sessions 13 and 14 (lists at 1,000,000 stored messages), two query shapes whose
// answers must not change:
// - a text search of the received and sent lists on SQLite reads the index's matches newest first
//   in chunks (repos/search.ts searchPage; the keys are in list order, migration 0036) instead of
//   reading every matching message's key first: each page, has_more and cursor must be those of the
//   query it replaces (the reference below, the list's conditions with `id IN (matching ids)`, paged
//   by paginate()), whatever the chunks (one per page, a few matches at a time, all matches at once);
//   the mail is stored out of id order and indexed in small batches, so keys are placed between
//   keys already there (search-keys.test.ts checks the keys themselves);
// - the thread list's cursor is a row value `(last_message_at, id) < (…)`, a range of the activity
//   indexes, instead of an OR that SQLite walked from the newest thread: every page as before,
//   ties of last_message_at included.
// The answers are checked on PostgreSQL too (npx tsx scripts/test-postgres.ts test/unit/db/list-seek.test.ts),
// where the text search keeps its one query.
let store: ListStore;
const WS = 'wsk_1';
const N = 360;
const insert = (table: string, row: Record<string, unknown>) => store.insert(table, row);

/** Words of message i's subject: `common` in most, `zebra` in 1 in 12, `rare` in 3, `elsewhere` in sent mail only. */
function wordsOf(kind: 'rcv' | 'msg', i: number): string {
  const w = [`order ${i}`];
  if (i % 10 !== 3) w.push('common');
  if (i % 12 === 5) w.push('zebra');
  if (i === 17 || i === 200 || i === 333) w.push('rare');
  if (kind === 'msg' && i % 4 === 0) w.push('elsewhere');
  return w.join(' ');
}
interface Seed { id: string; ws: string; agent: string; subject: string; attached: boolean }
const received: Seed[] = [];
const sent: Seed[] = [];
interface ThreadSeed { id: string; ws: string; agent: string; status: string; labels: string[]; trashed: boolean; last: string }
const threads: ThreadSeed[] = [];

beforeAll(async () => {
  store = await openListStore('mailagent-listseek-');
  for (const w of [WS, 'wsk_2']) await insert('workspaces', { id: w, slug: w, created_at: at(0) });
  for (const [a, w] of [['agt_1', WS], ['agt_3', WS], ['agt_2', 'wsk_2']]) {
    await insert('agents', { id: a, workspace_id: w, name: a, email: `${a}@y.test`, created_at: at(0), updated_at: at(0) });
  }
  // Stored in a shuffled order (7 is prime to N) and indexed 16 at a time every 10 messages: most
  // keys go between keys already made.
  for (let j = 0; j < N; j++) {
    const i = (j * 7) % N;
    if (j % 10 === 9) await indexSearchBatch(store.opened.db, 16);
    const ws = i % 9 === 8 ? 'wsk_2' : WS;
    const agent = ws === 'wsk_2' ? 'agt_2' : i % 3 === 2 ? 'agt_3' : 'agt_1';
    // Activity times with many ties (a reply moves a thread up; several in one millisecond).
    const t: ThreadSeed = {
      id: id('thr', i), ws, agent, status: i % 13 === 0 ? 'archived' : 'open', labels: i % 11 === 0 ? ['bench'] : [],
      trashed: i % 17 === 0, last: at((i * 7) % 40),
    };
    threads.push(t);
    await insert('threads', {
      id: t.id, workspace_id: ws, agent_id: agent, subject: 's', normalized_subject: 's', status: t.status, labels: JSON.stringify(t.labels),
      participants: '[]', message_count: 2, last_message_at: t.last, trashed_at: t.trashed ? at(i) : null, deleted_at: null, created_at: at(i), updated_at: at(i),
    });
    const r: Seed = { id: id('rcv', i), ws, agent, subject: wordsOf('rcv', i), attached: i % 7 === 0 };
    received.push(r);
    await insert('received_messages', {
      id: r.id, workspace_id: ws, agent_id: agent, thread_id: t.id, from_address: 'a@x.test', to: '[]', cc: '[]', recipient: 'agent@y.test',
      subject: r.subject, excerpt: 'e', headers: '[]', classification: '{}', test_mode: 0, source: 'smtp', received_at: at(i),
      has_attachments: r.attached ? 1 : 0, read_at: i % 5 === 0 ? at(i) : null,
    });
    const s: Seed = { id: id('msg', i), ws, agent, subject: wordsOf('msg', i), attached: i % 6 === 0 };
    sent.push(s);
    await insert('sent_messages', {
      id: s.id, workspace_id: ws, agent_id: agent, thread_id: t.id, status: 'sent', to: '["c@z.test"]', cc: '[]', bcc: '[]', reply_to: '[]',
      references: '[]', metadata: '{}', tags: '[]', subject: s.subject, body_text: 'hello', from_address: `${agent}@y.test`,
      has_attachments: s.attached ? 1 : 0, created_at: at(i), updated_at: at(i),
    });
  }
  await indexSearchBatch(store.opened.db, null);
  for (const list of [received, sent, threads] as { id: string }[][]) list.sort((a, b) => (a.id < b.id ? -1 : 1));
  store.recordPlans();
});
afterAll(async () => { await store.close(); });

const DEFAULT_WALK = { ...TEXT_WALK };
afterEach(() => { Object.assign(TEXT_WALK, DEFAULT_WALK); });

const allPages = <T>(list: (cursor?: string) => Promise<PageResult<T>>) => store.allPages(list);
/** The lists run on the recorder's connection (SQLite) once the rows are in. */
const dbOf = () => store.db;

/** The query searchPage replaces: the list's conditions, the text match as `id IN (…)`, paged by paginate(). */
function reference(kind: 'received' | 'sent', ws: string, q: string, agentId: string | null, limit: number) {
  return (cursor?: string) => {
    const s = parseSearch(q);
    const db = dbOf();
    if (kind === 'received') {
      let b = db.selectFrom('received_messages').select('id').where('workspace_id', '=', ws);
      if (agentId) b = b.where('agent_id', '=', agentId);
      for (const c of receivedConditions(db, s)) b = b.where(c);
      return paginate<{ id: string }>(b, 'id', { limit, cursor }, 'received messages');
    }
    let b = db.selectFrom('sent_messages').select('id').where('workspace_id', '=', ws);
    if (agentId) b = b.where('agent_id', '=', agentId);
    for (const c of sentConditions(db, s)) b = b.where(c);
    return paginate<{ id: string }>(b, 'id', { limit, cursor }, 'sent messages');
  };
}
const listOf = (kind: 'received' | 'sent', ws: string, q: string, agentId: string | null, limit: number) => async (cursor?: string): Promise<PageResult<{ id: string }>> => (kind === 'received'
  ? listReceived(dbOf(), ws, { agentId, search: parseSearch(q) }, { limit, cursor })
  : listSentMessages(dbOf(), ws, { agentId, search: parseSearch(q) }, { limit, cursor }));

const hasWord = (m: Seed, w: string) => m.subject.split(' ').includes(w);

describe('text search of the received and sent lists: searchPage answers as the query it replaces', () => {
  // The daemon's chunks (the page's limit + 1, then 4 times more), chunks of 3 throughout, chunks of
  // 1, 2, 4, …, and one chunk holding every match.
  const walks: [string, Partial<typeof TEXT_WALK>][] = [
    ['the daemon\'s chunks', {}],
    ['chunks of 3, never growing', { firstChunk: 3, growth: 1, maxChunk: 3 }],
    ['chunks doubling from 1', { firstChunk: 1, growth: 2, maxChunk: 4096 }],
    ['one chunk holds every match', { firstChunk: 100_000 }],
  ];
  const queries = ['zebra', 'common', 'rare', 'elsewhere', 'zebra common', 'common -zebra', 'subject:zebra', 'zebra has:attachment', 'common is:read', 'nothingmatches', 'zeb'];
  for (const [walk, setting] of walks) {
    for (const kind of ['received', 'sent'] as const) {
      it(`${kind}, ${walk}: every page, has_more and cursor as the reference, across searches, agents and page sizes`, async () => {
        Object.assign(TEXT_WALK, setting);
        let compared = 0;
        for (const q of queries) {
          for (const [ws, agent] of [[WS, null], [WS, 'agt_3'], ['wsk_2', null]] as const) {
            for (const limit of [3, 7, 50]) {
              const want = await pagesOfList(reference(kind, ws, q, agent, limit));
              expect(await pagesOfList(listOf(kind, ws, q, agent, limit)), `${kind} q=${q} ws=${ws} agent=${agent} limit=${limit}`).toEqual(want);
              compared += want.length;
            }
          }
        }
        expect(compared).toBeGreaterThan(100);
      });
    }
  }

  it('the answers are the messages the words are in, newest first (the reference is right too)', async () => {
    Object.assign(TEXT_WALK, { firstChunk: 2, growth: 2 });
    for (const [kind, seeds] of [['received', received], ['sent', sent]] as const) {
      for (const w of ['zebra', 'rare', 'elsewhere']) {
        const { rows } = await allPages(listOf(kind, WS, w, null, 5));
        expect(rows.map((r) => r.id), `${kind} ${w}`).toEqual(seeds.filter((m) => m.ws === WS && hasWord(m, w)).map((m) => m.id).reverse());
      }
    }
    const { rows } = await allPages(listOf('sent', WS, 'zebra', 'agt_3', 2));
    expect(rows.map((r) => r.id)).toEqual(sent.filter((m) => m.ws === WS && m.agent === 'agt_3' && hasWord(m, 'zebra')).map((m) => m.id).reverse());
    expect(rows.length).toBeGreaterThan(3);
  });

  it.skipIf(onPostgres)('the matches are read from the index newest first within the kind\'s rowids, each key by its rowid (no sort, no scan)', async () => {
    Object.assign(TEXT_WALK, { firstChunk: 2, growth: 2 });
    for (const kind of ['sent', 'received'] as const) {
      const { plans } = await allPages(listOf(kind, WS, 'zebra', null, 3));
      expect(plans.length).toBeGreaterThan(3);
      for (const [n, p] of plans.entries()) {
        const queries = p.split(' || ');
        // The doclist newest first within the kind's rowids (FTS5's plan: M = MATCH, > and < = the
        // rowid bounds; the order is the doclist's, no sort), each key by its rowid.
        const hits = queries.filter((q) => q.startsWith('SCAN message_search'));
        expect(hits.length, p).toBeGreaterThan(0);
        for (const q of hits) expect(q, p).toMatch(/^SCAN message_search VIRTUAL TABLE INDEX \d+:M\d*(><|<>) \| SEARCH k USING INTEGER PRIMARY KEY \(rowid=\?\)$/);
        // A later page: the cursor's key found from the cursor down the message_id index.
        if (n > 0) expect(queries[0], p).toMatch(/^SEARCH message_search_keys USING COVERING INDEX sqlite_autoindex_message_search_keys_1 \(message_id>\? AND message_id<\?\)$/);
        expect(p, p).not.toMatch(/SCAN (k|message_search_keys|sent_messages|received_messages)\b/);
      }
    }
  });
});

describe('the thread list\'s cursor: a range of the activity index', () => {
  const byActivity = (a: ThreadSeed, b: ThreadSeed) => (a.last === b.last ? (a.id < b.id ? 1 : -1) : a.last < b.last ? 1 : -1);
  const cases: [string, Parameters<typeof listThreadsView>[2], (t: ThreadSeed) => boolean][] = [
    ['all', { trashed: false }, (t) => !t.trashed],
    ['one agent', { agentId: 'agt_3', trashed: false }, (t) => t.agent === 'agt_3' && !t.trashed],
    ['archived', { status: 'archived', trashed: false }, (t) => t.status === 'archived' && !t.trashed],
    ['open', { status: 'open', trashed: false }, (t) => t.status === 'open' && !t.trashed],
    ['label bench', { label: 'bench', trashed: false }, (t) => t.labels.includes('bench') && !t.trashed],
    ['the trash', { trashed: true }, (t) => t.trashed],
    ['q=zebra', { trashed: false, search: parseSearch('zebra') }, (t) => !t.trashed && [...received, ...sent].some((m) => m.subject.includes('zebra') && id('thr', Number(m.id.slice(4))) === t.id)],
  ];
  for (const [name, filter, match] of cases) {
    it(`${name}: every page in activity order, ties by id, each thread once`, async () => {
      for (const limit of [2, 5, 9]) {
        const { rows, plans } = await allPages((cursor) => listThreadsView(dbOf(), WS, filter, { limit, cursor }));
        const want = threads.filter((t) => t.ws === WS && match(t)).sort(byActivity).map((t) => t.id);
        expect(want.length).toBeGreaterThan(limit);
        expect(rows.map((r) => r.id), `${name} limit=${limit}`).toEqual(want);
        // Past the first page, the cursor bounds the activity index read (unless a search names the threads).
        if (!filter.search) {
          for (const p of plans.slice(1)) expect(p, p).toMatch(/\(last_message_at,id\)<\(\?,\?\)/);
        } else {
          // A text search: each kind's matching messages looked up by id, not every message of the workspace walked.
          for (const p of plans) {
            for (const t of ['received', 'sent']) expect(p, p).toMatch(new RegExp(`SEARCH ${t}_messages USING INDEX sqlite_autoindex_${t}_messages_1 \\(id=\\?\\)`));
            expect(p, p).not.toMatch(/(received|sent)_messages USING (COVERING )?INDEX \w+ \(workspace_id=/);
          }
        }
      }
    });
  }
});
