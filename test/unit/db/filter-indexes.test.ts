import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/schema.js';
import { openListStore, seqId as id, seqAt as at, type ListStore } from '../../helpers/list-plans.js';
import { migrate } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { onPostgres } from '../../helpers/db.js';
import { listThreadsView } from '../../../src/db/repos/threads.js';
import { insertReceived, listReceived, type ReceivedRow } from '../../../src/db/repos/received.js';
import { insertSentMessage, listSentMessages, type SentMessageRow } from '../../../src/db/repos/messages.js';
import { parseSearch } from '../../../src/services/search.js';

// Migration 0031 (issue #13: lists at 1,000,000 stored messages). `has:attachment` and `intent:`
// must be served by an index holding only what they can match (SQLite's plans), and answer exactly
// what they mean, page after page: for mail stored before the migration (its backfill of
// has_attachments) and after it (insertReceived / insertSentMessage set it). The answers are checked
// on PostgreSQL too (npx tsx scripts/test-postgres.ts test/unit/db/filter-indexes.test.ts).
let store: ListStore;
let db: Db;
const WS = 'wsk_1';
const N = 300;
const INTENTS = ['question', 'newsletter', 'notification'];
/** The intent of message i: a few rare ones, the rest common. */
const intentOf = (i: number) => (i % 41 === 0 ? 'verification_code' : i % 43 === 0 ? 'bounce' : INTENTS[i % 3]);

const neutralOf = (table: string) => store.neutralOf(table);
const insert = (table: string, row: Record<string, unknown>) => store.insert(table, row);

interface Seed { id: string; ws: string; thread: string; attached: boolean; intent: string | null }
const received: Seed[] = [];
const sent: Seed[] = [];
const attachment = (n: string) => ({ id: n, filename: 'a.pdf', content_type: 'application/pdf', content_id: null, disposition: 'attachment', size: 3, sha256: 'x', content: Buffer.from('pdf') });

beforeAll(async () => {
  store = await openListStore('mailagent-filteridx-', { unmigrated: true });
  const { opened } = store;
  // Half the mail is stored before migration 0031 (its backfill sets has_attachments), half after.
  await migrate(opened.db, Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0031')));
  db = opened.db;
  for (const w of [WS, 'wsk_2']) await insert('workspaces', { id: w, slug: w, created_at: at(0) });
  await insert('agents', { id: 'agt_1', workspace_id: WS, name: 'a', email: 'a@y.test', created_at: at(0), updated_at: at(0) });
  await insert('agents', { id: 'agt_2', workspace_id: 'wsk_2', name: 'b', email: 'b@y.test', created_at: at(0), updated_at: at(0) });
  for (let i = 0; i < N; i++) {
    const ws = i % 10 === 9 ? 'wsk_2' : WS;
    const agent = ws === WS ? 'agt_1' : 'agt_2';
    const thread = id('thr', i);
    await insert('threads', {
      id: thread, workspace_id: ws, agent_id: agent, subject: 's', normalized_subject: 's', status: 'open', labels: '[]',
      participants: '[]', message_count: 2, last_message_at: at((i * 7919) % N), trashed_at: null, deleted_at: null, created_at: at(i), updated_at: at(i),
    });
    const r: Seed = { id: id('rcv', i), ws, thread, attached: i % 17 === 0 || i % 23 === 0, intent: i % 31 === 0 ? null : intentOf(i) };
    const s: Seed = { id: id('msg', i), ws, thread, attached: i % 19 === 0, intent: null };
    received.push(r);
    sent.push(s);
    if (i === N / 2) await migrate(opened.db);
    if (i < N / 2) {
      await insert('received_messages', {
        id: r.id, workspace_id: ws, agent_id: agent, thread_id: thread, from_address: 'a@x.test', to: '[]', cc: '[]', recipient: 'agent@y.test',
        subject: 's', excerpt: 'e', headers: '[]', classification: r.intent ? JSON.stringify({ intent: r.intent }) : null, test_mode: 0, source: 'smtp', received_at: at(i),
      });
      if (r.attached) for (const p of [0, 1]) await insert('received_attachments', { id: `${r.id}_a${p}`, received_message_id: r.id, workspace_id: ws, position: p, content_type: 'application/pdf', size: 3, sha256: 'x', content: Buffer.from('pdf') });
      await insert('sent_messages', { id: s.id, workspace_id: ws, agent_id: agent, thread_id: thread, status: 'sent', to: '[]', cc: '[]', bcc: '[]', reply_to: '[]', references: '[]', metadata: '{}', tags: '[]', created_at: at(i), updated_at: at(i) });
      if (s.attached) await insert('sent_attachments', { id: `${s.id}_a`, message_id: s.id, position: 0, filename: 'a.pdf', content_type: 'application/pdf', size: 3, content: Buffer.from('pdf') });
    } else {
      // After the migration: through the repositories the daemon stores mail with.
      const row = {
        ...(await neutralOf('received_messages')), id: r.id, workspace_id: ws, agent_id: agent, thread_id: thread, rfc_message_id: null, in_reply_to: null,
        references: [], from_address: 'a@x.test', from_name: null, to: [], cc: [], recipient: 'agent@y.test', plus_address: null, subject: 's',
        text: null, html: null, extracted_text: null, excerpt: 'e', headers: [], spf_pass: null, dkim_pass: null, dmarc: null,
        classification: r.intent ? { intent: r.intent } : null, quarantined: false, test_mode: false, over_limit: null, source: 'smtp',
        answers_message_id: null, event_id: null, event_type: null, remote_address: null, received_at: at(i), extraction_truncated: false, read_at: null,
      } as unknown as ReceivedRow;
      delete (row as { has_attachments?: number }).has_attachments;
      await insertReceived(db, row, Buffer.from('raw'), r.attached ? [attachment(`${r.id}_a0`), attachment(`${r.id}_a1`)] : []);
      const srow = {
        ...(await neutralOf('sent_messages')), id: s.id, workspace_id: ws, agent_id: agent, thread_id: thread, status: 'sent', to: [], cc: [], bcc: [], reply_to: [],
        references: [], metadata: {}, tags: [], classifier_warning: null, test_mode: false, created_at: at(i), updated_at: at(i),
      } as unknown as SentMessageRow;
      delete (srow as { has_attachments?: number }).has_attachments;
      await insertSentMessage(db, srow, s.attached ? [{ id: `${s.id}_a`, message_id: s.id, position: 0, filename: 'a.pdf', content_type: 'application/pdf', size: 3, content: Buffer.from('pdf') }] : []);
    }
  }
  store.recordPlans();
  db = store.db;
});
afterAll(async () => { await store.close(); });

const allPages = <T>(list: (cursor?: string) => Promise<{ rows: T[]; next_cursor?: string }>) => store.allPages(list);

const newestFirst = (seeds: Seed[]) => seeds.filter((s) => s.ws === WS).map((s) => s.id).reverse();

describe('migration 0031: has:attachment and intent: read only the messages they can match', () => {
  it.skipIf(onPostgres)('the attachment indexes hold exactly the messages with attachments, stored before the migration or after', () => {
    const count = (index: string, table: string) => (store.recorder!.sqlite.prepare(`select count(*) n from ${table} indexed by ${index} where workspace_id >= '' and has_attachments = 1`).get() as { n: number }).n;
    expect(count('received_with_attachments', 'received_messages')).toBe(received.filter((r) => r.attached).length);
    expect(count('sent_with_attachments', 'sent_messages')).toBe(sent.filter((s) => s.attached).length);
  });

  const receivedCases: [string, (r: Seed) => boolean, RegExp | null][] = [
    ['has:attachment', (r) => r.attached, /USING INDEX received_with_attachments \(workspace_id=\? AND has_attachments=\?/],
    ['-has:attachment', (r) => !r.attached, null],
    ['intent:verification_code', (r) => r.intent === 'verification_code', /USING INDEX received_intent \(workspace_id=\? AND <expr>=\?/],
    ['intent:bounce', (r) => r.intent === 'bounce', /USING INDEX received_intent \(workspace_id=\? AND <expr>=\?/],
    ['intent:newsletter', (r) => r.intent === 'newsletter', /USING INDEX received_intent \(workspace_id=\? AND <expr>=\?/],
    ['intent:bounce intent:verification_code', (r) => r.intent === 'bounce' || r.intent === 'verification_code', null],
    ['has:attachment intent:question', (r) => r.attached && r.intent === 'question', null],
  ];
  for (const [q, match, index] of receivedCases) {
    it(`received, q=${q}: every page${index ? ' from its index' : ''}, newest first, exactly the messages the filter means`, async () => {
      const { rows, plans } = await allPages((cursor) => listReceived(db, WS, { search: parseSearch(q) }, { limit: 4, cursor }));
      const want = newestFirst(received.filter(match));
      expect(want.length).toBeGreaterThan(1);
      expect(rows.map((r) => r.id)).toEqual(want);
      if (index) for (const p of plans) {
        expect(p, p).toMatch(index);
        expect(p, p).not.toMatch(/TEMP B-TREE|SCAN received_messages/);
      }
    });
  }

  it('received, has:attachment of one agent: only its messages', async () => {
    const { rows } = await allPages((cursor) => listReceived(db, 'wsk_2', { agentId: 'agt_2', search: parseSearch('has:attachment') }, { limit: 3, cursor }));
    expect(rows.map((r) => r.id)).toEqual(received.filter((r) => r.ws === 'wsk_2' && r.attached).map((r) => r.id).reverse());
  });

  for (const [q, match, index] of [
    ['has:attachment', (s: Seed) => s.attached, /USING INDEX sent_with_attachments \(workspace_id=\? AND has_attachments=\?/],
    ['-has:attachment', (s: Seed) => !s.attached, null],
  ] as const) {
    it(`sent, q=${q}: every page, newest first, exactly the messages the filter means`, async () => {
      const { rows, plans } = await allPages((cursor) => listSentMessages(db, WS, { search: parseSearch(q) }, { limit: 4, cursor }));
      expect(rows.map((r) => r.id)).toEqual(newestFirst(sent.filter(match)));
      if (index) for (const p of plans) {
        expect(p, p).toMatch(index);
        expect(p, p).not.toMatch(/TEMP B-TREE|SCAN sent_messages/);
      }
    });
  }

  for (const q of ['has:attachment', 'intent:verification_code']) {
    it(`threads, q=${q}: exactly the threads holding a message that matches, each message kind from its index`, async () => {
      const { rows, plans } = await allPages((cursor) => listThreadsView(db, WS, { trashed: false, search: parseSearch(q) }, { limit: 4, cursor }));
      const hit = new Set([...received.filter((r) => (q === 'has:attachment' ? r.attached : r.intent === 'verification_code')), ...sent.filter((s) => q === 'has:attachment' && s.attached)]
        .filter((m) => m.ws === WS).map((m) => m.thread));
      expect(rows.map((r) => r.id).sort()).toEqual([...hit].sort());
      for (const p of plans) {
        expect(p, p).toMatch(q === 'has:attachment' ? /received_with_attachments/ : /received_intent/);
        if (q === 'has:attachment') expect(p, p).toMatch(/sent_with_attachments/);
        expect(p, p).not.toMatch(/SCAN received_messages|SCAN sent_messages/);
      }
    });
  }
});
