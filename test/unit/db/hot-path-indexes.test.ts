import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import type { Database } from '../../../src/db/schema.js';
import { migrate } from '../../../src/db/open.js';
import { claimDueScheduled, requeueStalledSends } from '../../../src/db/repos/messages.js';
import { countEvents, queueDepths } from '../../../src/db/repos/stats.js';
import { threadHasSending } from '../../../src/db/repos/threads.js';
import { listEvents } from '../../../src/db/repos/events.js';
import { idFloorAt, newIdAt } from '../../../src/shared/ids.js';
import { listLogs } from '../../../src/db/repos/logs.js';

// Migration 0028 (issue #13): sent_messages_due holds scheduled sends only (partial index),
// events_created_at is gone, and logs_workspace leaves out the request log's rows. Every query that used them must still be served by an index, never
// by a scan of the table (SQLite's plans here; the same implications hold on PostgreSQL).
let dir: string;
let sqlite: BetterSqlite3.Database;
let db: Kysely<Database>;
const queries: CompiledQuery[] = [];
const WS = 'wsk_1';
const AT = '2026-03-10T12:00:00.000Z';

function sentRow(id: string, status: string, dueAt: string | null, thread: string) {
  return {
    id, workspace_id: WS, agent_id: 'agt_1', thread_id: thread, api_key_id: null, test_mode: 1, status, source: 'api',
    from_address: 'a@s.x', from_name: null, to: '["b@example.com"]', cc: '[]', bcc: '[]', reply_to: '[]', subject: 's',
    body_text: 't', body_html: null, rfc_message_id: `<${id}@s.x>`, in_reply_to: null, references: '[]', in_reply_to_message_id: null,
    forwarded_from: null, metadata: '{}', tags: '[]', classifier_score: 0, classifier_warning: null, pool: null, cost_usd: 0,
    transport_message_id: null, scheduled_at: dueAt, due_at: dueAt, sent_at: null, delivered_at: null, canceled_at: null,
    error_message: null, created_at: AT, updated_at: AT,
  };
}

async function planOf(run: () => Promise<unknown>): Promise<string[]> {
  queries.length = 0;
  await run();
  return queries.map((q) => (sqlite.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[])
    .map((r) => r.detail).join(' | '));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-sendidx-'));
  sqlite = new BetterSqlite3(join(dir, 's.db'));
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => { if (e.level === 'query') queries.push(e.query); } });
  expect(await migrate(db)).toContain('0028_hot_path_indexes');
  sqlite.pragma('foreign_keys = OFF');
  const ins = (i: number, status: string, due: string | null) => db.insertInto('sent_messages').values(sentRow(`msg_${String(i).padStart(4, '0')}`, status, due, `thrd_${i % 40}`) as never).execute();
  for (let i = 0; i < 200; i++) await ins(i, i % 2 ? 'sent' : 'sending', null); // immediate sends: no due_at
  await ins(900, 'scheduled', '2026-03-10T12:05:00.000Z');
  await ins(901, 'scheduled', '2026-03-10T11:55:00.000Z');
  await ins(902, 'sending', '2026-03-10T11:00:00.000Z'); // a scheduled send claimed an hour ago, never finished
  await db.updateTable('sent_messages').set({ updated_at: '2026-03-10T11:00:00.000Z' }).where('id', '=', 'msg_0902').execute();
});
afterAll(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration 0028: fewer index entries per send', () => {
  it('sent_messages_due holds only rows with a due_at (scheduled sends), not every send', () => {
    const def = (sqlite.prepare("select sql from sqlite_master where name = 'sent_messages_due'").get() as { sql: string }).sql;
    expect(def).toMatch(/WHERE due_at IS NOT NULL/i);
    const entries = (sqlite.prepare('select count(*) as n from sent_messages indexed by sent_messages_due where status >= \'\' and due_at is not null').get() as { n: number }).n;
    expect(entries).toBe(3);
    expect(sqlite.prepare("select name from sqlite_master where name = 'events_created_at'").get()).toBeUndefined();
  });

  it('the scheduler, the queue gauge and the thread check answer the same and use an index', async () => {
    const plans = [
      ...(await planOf(async () => expect((await claimDueScheduled(db, AT, 10)).map((r) => r.id)).toEqual(['msg_0901']))),
      ...(await planOf(async () => expect(await requeueStalledSends(db, '2026-03-10T11:59:00.000Z', AT)).toBe(1))),
      ...(await planOf(async () => expect((await queueDepths(db)).scheduledSends).toBe(2))),
      ...(await planOf(async () => expect(await threadHasSending(db, WS, 'thrd_0')).toBe(true))),
    ].filter((p) => /sent_messages/.test(p));
    expect(plans.length, plans.join("\n")).toBe(4); // claim (one UPDATE with its sub-select), requeue, gauge, thread check
    for (const p of plans) {
      expect(p, p).toMatch(/USING (COVERING )?INDEX sent_messages_(due|thread)/);
      expect(p, p).not.toMatch(/SCAN sent_messages(?! USING)/);
    }
    expect(await threadHasSending(db, WS, 'thrd_1')).toBe(false); // its messages were all sent
    expect(await threadHasSending(db, 'wsk_2', 'thrd_0')).toBe(false);
  });

  it('events since a time: a range of the id index, and no event at or after it left out', async () => {
    const base = Date.parse(AT);
    const made: { id: string; at: number }[] = [];
    // Ids come from one monotonic generator: an event created at a clock that went back carries an
    // id later than its created_at; the id bound must not drop it.
    for (const at of [base, base + 1000, base + 2000, base + 500, base + 3000, base + 3000]) {
      const id = newIdAt('evt', at);
      made.push({ id, at });
      await db.insertInto('events').values({
        id, workspace_id: WS, agent_id: 'agt_1', thread_id: null, type: at === base + 500 ? 'message.bounced' : 'message.sent', test_mode: 0,
        payload: JSON.stringify({ id, object: 'event', type: 'message.sent', workspace_id: WS, test_mode: false, data: {}, created_at: new Date(at).toISOString() }),
        created_at: new Date(at).toISOString(),
      }).execute();
    }
    for (const since of [base, base + 500, base + 999, base + 1000, base + 2500, base + 3000, base + 3001]) {
      const want = made.filter((m) => m.at >= since).map((m) => m.id).sort().reverse();
      let got: string[] = [];
      const [plan] = await planOf(async () => {
        got = (await listEvents(db, WS, { since: new Date(since).toISOString() }, { limit: 50 })).rows.map((e) => e.id);
      });
      expect(got, `since +${since - base} ms`).toEqual(want);
      expect(plan, plan).toMatch(/USING INDEX events_workspace_id \(workspace_id=\? AND id>\?\)/);
      expect(plan, plan).not.toMatch(/TEMP B-TREE/);
    }
    const [agentPlan] = await planOf(() => listEvents(db, WS, { agentId: 'agt_1', since: AT }, { limit: 50 }));
    expect(agentPlan).toMatch(/USING INDEX events_agent_id \(workspace_id=\? AND agent_id=\? AND id>\?\)/);
    const [countPlan] = await planOf(async () => expect(await countEvents(db, { workspaceId: WS, testMode: null, since: AT }, 'message.bounced')).toBe(1));
    expect(countPlan).toMatch(/USING INDEX events_type/);
  });

  it('idFloorAt sorts at or before every id of that millisecond and after every earlier one', () => {
    const ms = Date.parse(AT);
    const floor = idFloorAt('evt', ms);
    for (let i = 0; i < 50; i++) expect(newIdAt('evt', ms + i) >= floor).toBe(true);
    expect(idFloorAt('evt', ms - 1) < floor).toBe(true);
    expect(floor.length).toBe(newIdAt('evt', ms).length);
  });

  it('logs: the request log\'s rows are not in logs_workspace; every listing still uses an index and answers the same', async () => {
    const row = (i: number, category: string, action: string, ws = WS) => ({
      id: `log_${String(i).padStart(4, '0')}`, workspace_id: ws, category, action, target_resource_id: null, agent_id: i % 3 ? 'agt_1' : null,
      key_id: 'key_1', metadata: '{}', created_at: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00.000Z`,
    });
    const rows: ReturnType<typeof row>[] = [];
    for (let i = 0; i < 300; i++) rows.push(i % 10 === 0 ? row(i, 'agent', i % 20 ? 'agent.created' : 'agent.updated') : row(i, 'request', i % 7 ? 'GET /v1/me' : 'POST /v1/messages'));
    rows.push(row(900, 'agent', 'agent.created', 'wsk_2'), row(901, 'request', 'GET /v1/me', 'wsk_2'));
    await db.insertInto('logs').values(rows).execute();
    const inWorkspaceIndex = (sqlite.prepare("select count(*) as n from logs indexed by logs_workspace where workspace_id >= '' and category <> 'request'").get() as { n: number }).n;
    expect(inWorkspaceIndex).toBe(31);
    const ids = (f: (r: (typeof rows)[number]) => boolean) => rows.filter((r) => r.workspace_id === WS && f(r)).map((r) => r.id).sort().reverse().slice(0, 20);
    const cases: [Parameters<typeof listLogs>[2], (r: (typeof rows)[number]) => boolean, RegExp][] = [
      [{ excludeCategories: ['request'] }, (r) => r.category !== 'request', /USING INDEX logs_workspace/],
      [{ excludeCategories: ['request'], agentId: 'agt_1' }, (r) => r.category !== 'request' && r.agent_id === 'agt_1', /USING INDEX logs_workspace/],
      [{ excludeCategories: ['request'], action: 'agent.updated' }, (r) => r.action === 'agent.updated', /USING INDEX logs_action/],
      [{ category: 'request' }, (r) => r.category === 'request', /USING INDEX logs_category/],
      [{ category: 'request', action: 'POST /v1/messages' }, (r) => r.action === 'POST /v1/messages', /USING INDEX logs_(action|category)/],
      [{ category: 'agent' }, (r) => r.category === 'agent', /USING INDEX logs_category/],
    ];
    for (const [filter, want, index] of cases) {
      let got: string[] = [];
      const [plan] = await planOf(async () => { got = (await listLogs(db, WS, filter, { limit: 20 })).rows.map((r) => r.id); });
      expect(got, JSON.stringify(filter)).toEqual(ids(want));
      expect(plan, plan).toMatch(index);
      expect(plan, plan).not.toMatch(/TEMP B-TREE|SCAN logs(?! USING)/);
    }
  });
});
