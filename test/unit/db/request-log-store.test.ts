import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import type { Database, Db } from '../../../src/db/schema.js';
import { migrate, openDatabase, type OpenedDb } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { testDatabase, type TestDatabase } from '../../helpers/db.js';
import { allRequestLogEntries, expireRequestLog, insertRequestLogBatches, listRequestLog } from '../../../src/db/repos/request-log.js';
import { pushRequest, requestLogBatchesOf, requestLogRows, type RequestLogValues } from '../../../src/db/request-log-rows.js';
import type { LogRow } from '../../../src/db/repos/logs.js';
import { isoAt } from '../../../src/shared/clock.js';

// Migration 0033 (issue #13): the request log is stored one row per workspace per written batch
// (table request_log), no longer one `logs` row per request. Every answer of the request log is the
// one a row per entry gives: lists newest first by id under every filter and page size, with
// batches whose id ranges interleave (two daemons of a cluster), retention per entry, the rows of
// `logs` moved by the migration unchanged. SQLite and PostgreSQL (`npx tsx scripts/test-postgres.ts
// test/unit/db/request-log-store.test.ts`); the plans are SQLite's.
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;
let db: Db;
let explain: BetterSqlite3.Database | null = null;
let logged: Kysely<Database> | null = null;
const queries: CompiledQuery[] = [];
const before033 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0033'));
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

/** The old store's row for request i of a workspace (as the request log wrote it before 0033). */
function oldRow(i: number, ws: string) {
  const odd = i % 50 === 7; // an entry of an older build: metadata of another shape
  return {
    id: `log_${String(i).padStart(6, '0')}`, workspace_id: ws, category: 'request', action: i % 3 ? 'GET /v1/me' : 'POST /v1/messages',
    target_resource_id: null, agent_id: i % 4 ? null : 'agt_1', key_id: 'key_1',
    metadata: JSON.stringify(odd ? { method: 'GET', path: '/v1/me', status: 200 } : {
      method: i % 3 ? 'GET' : 'POST', path: i % 3 ? '/v1/me' : '/v1/messages', status: 200, request_id: `req_${i}`, key_id: 'key_1', mode: 'test',
      client_address: '127.0.0.1', user_agent: null, duration_ms: i % 9,
    }),
    created_at: isoAt(T0 + i * 60_000),
  };
}
const asRead = (r: ReturnType<typeof oldRow>) => ({ ...r, metadata: JSON.parse(r.metadata) as Record<string, unknown> });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-reqlog-'));
  store = await testDatabase(dir, { unmigrated: true });
  opened = openDatabase(store.spec);
  db = opened.db;
  if (opened.file) {
    explain = new BetterSqlite3(opened.file);
    logged = new Kysely<Database>({ dialect: new SqliteDialect({ database: explain }), log: (e) => { if (e.level === 'query') queries.push(e.query); } });
  }
});
afterAll(async () => {
  await logged?.destroy();
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function plansOf(run: (d: Db) => Promise<unknown>): Promise<string[]> {
  queries.length = 0;
  await run(logged ?? db);
  if (!explain) return [];
  return queries.filter((q) => /request_log/.test(q.sql)).map((q) => (explain!.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[])
    .map((r) => r.detail).join(' | '));
}

/** Every page of a list, by cursor. */
async function walk(d: Db, ws: string, f: { action?: string | null; agentId?: string | null }, limit: number): Promise<LogRow[]> {
  const out: LogRow[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await listRequestLog(d, ws, f, { limit, cursor });
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    out.push(...page.rows);
    if (!page.has_more) {
      expect(page.next_cursor).toBeUndefined();
      return out;
    }
    expect(page.rows.length).toBe(limit);
    cursor = page.next_cursor;
  }
  throw new Error('no last page');
}

describe('migration 0033: the request log, a row per written batch', () => {
  it('moves the request rows of `logs` unchanged (any metadata) and leaves the audit rows', async () => {
    await migrate(db, before033);
    const rows = [];
    for (let i = 0; i < 450; i++) rows.push(oldRow(i, i % 5 === 4 ? 'wsk_2' : 'wsk_1'));
    const audit = { ...oldRow(999, 'wsk_1'), id: 'log_audit', category: 'agent', action: 'agent.created', metadata: '{}' };
    for (let i = 0; i < rows.length; i += 100) await db.insertInto('logs').values(rows.slice(i, i + 100)).execute();
    await db.insertInto('logs').values(audit).execute();
    await migrate(db);
    expect((await db.selectFrom('logs').select('id').execute()).map((r) => r.id)).toEqual(['log_audit']);
    for (const ws of ['wsk_1', 'wsk_2']) {
      const want = rows.filter((r) => r.workspace_id === ws).map(asRead).sort((a, b) => (a.id < b.id ? 1 : -1));
      expect(JSON.stringify(await walk(db, ws, {}, 40))).toBe(JSON.stringify(want));
      expect(JSON.stringify(await walk(db, ws, { action: 'POST /v1/messages', agentId: 'agt_1' }, 3)))
        .toBe(JSON.stringify(want.filter((r) => r.action === 'POST /v1/messages' && r.agent_id === 'agt_1')));
    }
    // 360 and 90 entries, up to 200 to a stored row per workspace
    expect((await db.selectFrom('request_log').select(['workspace_id', 'entry_count']).orderBy('workspace_id').orderBy('last_id').execute()).map((r) => `${r.workspace_id}:${r.entry_count}`))
      .toEqual(['wsk_1:200', 'wsk_1:160', 'wsk_2:90']);
    const indexes = explain
      ? (explain.prepare("select name from sqlite_master where type = 'index' and tbl_name in ('request_log', 'logs') order by name").all() as { name: string }[]).map((r) => r.name)
      : (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename in ('request_log', 'logs') and schemaname = current_schema() order by indexname`.execute(db)).rows.map((r) => r.name);
    expect(indexes).toEqual(['logs_action', 'logs_category', explain ? 'sqlite_autoindex_logs_1' : 'logs_pkey', 'logs_workspace', 'request_log_age', 'request_log_key'].sort());
    await db.deleteFrom('request_log').execute();
  });

  it('lists newest first by id under every filter and page size, batches of two daemons interleaving', async () => {
    // Two daemons' request logs: ids interleave in time, each daemon writes its own batches.
    const made: RequestLogValues[] = [];
    const flat: unknown[][] = [[], []];
    let seq = 0;
    for (let round = 0; round < 40; round++) {
      for (const daemon of [0, 1]) {
        const n = 1 + ((round * 7 + daemon * 3) % 13);
        for (let k = 0; k < n; k++) {
          const i = seq++;
          const v: RequestLogValues = {
            id: `log_${String(i * 2 + daemon).padStart(6, '0')}`, at: T0 + i * 1000 + 0.5, workspaceId: i % 6 === 5 ? 'wsk_2' : 'wsk_1',
            agentId: i % 5 === 0 ? 'agt_1' : i % 5 === 1 ? 'agt_2' : null, keyId: `key_${i % 2}`, mode: 'test', method: i % 17 === 3 ? 'POST' : 'GET',
            url: i % 17 === 3 ? '/v1/messages?x=1' : `/v1/agents/agt_${i % 3}`, route: i % 17 === 3 ? null : '/v1/agents/:id', status: 200,
            requestId: `req_${i}`, clientAddress: '127.0.0.1', userAgent: i % 2 ? 'ua' : null, durationMs: i / 3,
          };
          made.push(v);
          pushRequest(flat[daemon], v);
        }
        // A batch written every other round of each daemon: ranges overlap the other daemon's.
        if (round % 2 === daemon) {
          await insertRequestLogBatches(db, requestLogBatchesOf([flat[daemon]]));
          flat[daemon] = [];
        }
      }
    }
    for (const f of flat) if (f.length) await insertRequestLogBatches(db, requestLogBatchesOf([f]));
    const all: unknown[] = [];
    for (const v of made) pushRequest(all, v);
    const reference = requestLogRows(all).sort((a, b) => (a.id < b.id ? 1 : -1));
    const filters: { action?: string | null; agentId?: string | null }[] = [
      {}, { action: 'POST /v1/messages' }, { action: 'GET /v1/agents/:id' }, { agentId: 'agt_1' }, { agentId: 'agt_2', action: 'POST /v1/messages' },
      { action: 'GET /v1/me' }, { agentId: 'agt_9' }, { action: 'GET' }, { action: '/v1/messages' },
    ];
    for (const ws of ['wsk_1', 'wsk_2', 'wsk_none']) {
      for (const f of filters) {
        const want = reference.filter((r) => r.workspace_id === ws && (!f.action || r.action === f.action) && (!f.agentId || r.agent_id === f.agentId));
        for (const limit of [1, 7, 25, 100]) {
          expect(JSON.stringify(await walk(db, ws, f, limit)), `${ws} ${JSON.stringify(f)} limit ${limit}`).toBe(JSON.stringify(want));
        }
      }
    }
    expect(await allRequestLogEntries(db, 'wsk_1')).toEqual(reference.filter((r) => r.workspace_id === 'wsk_1').reverse());
    const plans = await plansOf((d) => listRequestLog(d, 'wsk_1', { action: 'POST /v1/messages' }, { limit: 5 }));
    for (const p of plans) expect(p, p).toMatch(/^SEARCH request_log USING INDEX request_log_key \(workspace_id=\?\)$/);
  });

  it('retention removes each entry older than the cut-off, also from a row that keeps newer ones', async () => {
    await db.deleteFrom('request_log').execute();
    const values: unknown[] = [];
    const made: RequestLogValues[] = [];
    for (let i = 0; i < 300; i++) {
      // Times not in id order within a batch (a clock stepped back): the cut-off is per entry.
      const v: RequestLogValues = {
        id: `log_${String(i).padStart(6, '0')}`, at: T0 + ((i * 37) % 300) * 60_000, workspaceId: i % 2 ? 'wsk_1' : 'wsk_2', agentId: null,
        keyId: 'key_1', mode: 'live', method: 'GET', url: '/v1/me', route: '/v1/me', status: 200, requestId: `req_${i}`,
        clientAddress: null, userAgent: null, durationMs: 1,
      };
      made.push(v);
      pushRequest(values, v);
      if (i % 40 === 39) {
        await insertRequestLogBatches(db, requestLogBatchesOf([values]));
        values.length = 0;
      }
    }
    await insertRequestLogBatches(db, requestLogBatchesOf([values]));
    const cut = isoAt(T0 + 150 * 60_000);
    let removed = 0;
    for (;;) {
      const r = await expireRequestLog(db, cut, 3);
      removed += r.removed;
      if (r.rows < 3) break;
    }
    const older = made.filter((v) => isoAt(v.at) < cut).length;
    expect(older).toBe(150);
    expect(removed).toBe(older);
    for (const ws of ['wsk_1', 'wsk_2']) {
      const want = made.filter((v) => v.workspaceId === ws && isoAt(v.at) >= cut).map((v) => v.id);
      expect((await allRequestLogEntries(db, ws)).map((e) => e.id)).toEqual(want);
      expect((await walk(db, ws, {}, 33)).map((e) => e.id)).toEqual([...want].reverse());
    }
    expect((await db.selectFrom('request_log').select('min_created_at').where('min_created_at', '<', cut).execute()).length).toBe(0);
    expect((await expireRequestLog(db, cut, 3))).toEqual({ removed: 0, rows: 0 });
    const [plan] = await plansOf((d) => expireRequestLog(d, cut, 3));
    if (explain) expect(plan).toMatch(/USING INDEX request_log_age/);
  });
});
