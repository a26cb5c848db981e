import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import type { Database } from '../../../src/db/schema.js';
import { migrate, migrationState, openDatabase, type OpenedDb } from '../../../src/db/open.js';
import { testDatabase, type TestDatabase } from '../../helpers/db.js';
import { agentHasLiveThreads, getThread, listThreadsView, threadsWithLabel, updateThread } from '../../../src/db/repos/threads.js';
import { countThreads } from '../../../src/db/repos/stats.js';

// Migration 0029 (issue #13): threads_workspace_id (workspace_id, id) and threads_agent_id
// (agent_id, id) are gone: every query on threads is served by the primary key or by the activity
// indexes (workspace_id|agent_id, last_message_at, id), never by a scan of the table, and answers
// as before (on SQLite and PostgreSQL; the plans are SQLite's).
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;
/** SQLite only: a second connection on the file, to ask for query plans. */
let explain: BetterSqlite3.Database | null = null;
let logged: Kysely<Database> | null = null;
const queries: CompiledQuery[] = [];
const WS = 'wsk_1';

async function plansOf(run: () => Promise<unknown>): Promise<string[]> {
  queries.length = 0;
  await run();
  if (!explain) return [];
  return queries.filter((q) => /threads/.test(q.sql)).map((q) => (explain!.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[])
    .map((r) => r.detail).join(' | '));
}

function expectIndexed(plans: string[]): void {
  if (!explain) return; // PostgreSQL: the answers are checked, its planner's choices are its own
  expect(plans.length).toBeGreaterThan(0);
  for (const p of plans) {
    // Or one of migration 0030's partial indexes (filed, trashed, labelled threads only).
    expect(p, p).toMatch(/threads USING (COVERING )?INDEX (threads_(workspace|agent)_activity|threads_(filed|trash|labelled)|sqlite_autoindex_threads_1)/);
    expect(p, p).not.toMatch(/SCAN threads(?! USING)/);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-thridx-'));
  store = await testDatabase(dir);
  opened = openDatabase(store.spec);
  await migrate(opened.db); // PostgreSQL: a copy of the migrated template
  expect((await migrationState(opened.db)).applied).toContain('0029_thread_index_prefixes');
  const db = opened.db;
  if (opened.file) {
    // SQLite: the queries run on a second connection to the same file, which notes them for their plans.
    explain = new BetterSqlite3(opened.file);
    logged = new Kysely<Database>({ dialect: new SqliteDialect({ database: explain }), log: (e) => { if (e.level === 'query') queries.push(e.query); } });
  }
  const at0 = '2026-03-01T00:00:00.000Z';
  for (const w of [WS, 'wsk_2']) await db.insertInto('workspaces').values({ id: w, slug: w, display_name: w, tier: 'free', tier_status: 'active', created_at: at0 }).execute();
  for (let a = 0; a < 3; a++) {
    await db.insertInto('agents').values({
      id: `agt_${a}`, workspace_id: WS, name: `a${a}`, display_name: null, email: `a${a}@x.test`, domain: 'x.test', status: 'active',
      daily_send_limit: null, hourly_send_limit: null, classify_inbound: 1, allowlist_domains: '[]', blocklist_domains: '[]',
      created_at: at0, updated_at: at0, archived_at: null,
    } as never).execute();
  }
  const rows = [];
  for (let i = 0; i < 300; i++) {
    const at = `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00.000Z`;
    rows.push({
      id: `thrd_${String(i).padStart(4, '0')}`, workspace_id: i % 5 === 4 ? 'wsk_2' : WS, agent_id: `agt_${i % 3}`, subject: `s${i}`, normalized_subject: `s${i}`,
      status: i % 4 === 0 ? 'closed' : 'open', labels: i % 7 === 0 ? '["billing"]' : '[]', participants: '[]', message_count: 1,
      last_message_at: at, has_live: i === 250 ? 1 : 0, trashed_at: i % 11 === 0 ? at : null, deleted_at: null, created_at: at, updated_at: at,
    });
  }
  await db.insertInto('threads').values(rows).execute();
});
afterAll(async () => {
  await logged?.destroy();
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration 0029: the threads indexes that repeated the activity indexes\' prefixes are gone', () => {
  it('threads has the primary key and the two activity indexes only (besides migration 0030\'s partial ones)', async () => {
    const names = explain
      ? (explain.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'threads' order by name").all() as { name: string }[]).map((r) => r.name)
      : (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'threads' and schemaname = current_schema() order by indexname`.execute(opened.db)).rows.map((r) => r.name);
    expect(names).toEqual([explain ? 'sqlite_autoindex_threads_1' : 'threads_pkey', 'threads_agent_activity', 'threads_workspace_activity',
      'threads_filed', 'threads_labelled', 'threads_trash'].sort());
  });

  it('every query on threads answers as before through an index', async () => {
    const db = logged ?? opened.db;
    const mine = (await db.selectFrom('threads').selectAll().execute()).filter((t) => t.workspace_id === WS);
    const recent = (f: (t: (typeof mine)[number]) => boolean) => mine.filter(f)
      .sort((a, b) => (a.last_message_at === b.last_message_at ? (a.id < b.id ? 1 : -1) : a.last_message_at < b.last_message_at ? 1 : -1))
      .slice(0, 25).map((t) => t.id);

    expectIndexed(await plansOf(async () => expect((await getThread(db, WS, 'thrd_0010'))?.subject).toBe('s10')));
    expectIndexed(await plansOf(async () => expect(await getThread(db, 'wsk_2', 'thrd_0010')).toBeUndefined()));
    expectIndexed(await plansOf(async () => expect(await agentHasLiveThreads(db, 'agt_1')).toBe(true)));
    expectIndexed(await plansOf(async () => expect(await agentHasLiveThreads(db, 'agt_0')).toBe(false)));
    expectIndexed(await plansOf(async () => expect((await listThreadsView(db, WS, {}, { limit: 25 })).rows.map((t) => t.id))
      .toEqual(recent((t) => t.trashed_at === null))));
    expectIndexed(await plansOf(async () => expect((await listThreadsView(db, WS, { agentId: 'agt_2', status: 'open' }, { limit: 25 })).rows.map((t) => t.id))
      .toEqual(recent((t) => t.agent_id === 'agt_2' && t.status === 'open' && t.trashed_at === null))));
    expectIndexed(await plansOf(async () => expect((await listThreadsView(db, WS, { trashed: true }, { limit: 25 })).rows.map((t) => t.id))
      .toEqual(recent((t) => t.trashed_at !== null))));
    expectIndexed(await plansOf(async () => expect((await threadsWithLabel(db, WS, 'billing')).map((t) => t.id).sort())
      .toEqual(mine.filter((t) => t.labels.includes('billing')).map((t) => t.id).sort())));
    expectIndexed(await plansOf(async () => expect(await countThreads(db, WS, null)).toBe(mine.length)));
    expectIndexed(await plansOf(async () => expect(await countThreads(db, WS, 'agt_1')).toBe(mine.filter((t) => t.agent_id === 'agt_1').length)));
    expectIndexed(await plansOf(() => updateThread(db, 'thrd_0003', { message_count: 2 })));
    expect((await getThread(db, WS, 'thrd_0003'))?.message_count).toBe(2);
  });
});
