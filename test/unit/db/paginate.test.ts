import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import type { Database } from '../../../src/db/schema.js';
import { migrate } from '../../../src/db/open.js';
import { encodeCursor, decodeCursor, paginate } from '../../../src/db/paginate.js';
import { listAgents } from '../../../src/db/repos/agents.js';
import { listApiKeys } from '../../../src/db/repos/api-keys.js';
import { ApiError } from '../../../src/contract/errors.js';

// DESIGN.md "Data": keyset pagination on time-ordered ids, opaque cursors, O(page) via an index, never OFFSET.
let dir: string;
let sqlite: BetterSqlite3.Database;
let db: Kysely<Database>;
const queries: CompiledQuery[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-page-'));
  sqlite = new BetterSqlite3(join(dir, 'p.db'));
  db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: sqlite }),
    log: (e) => {
      if (e.level === 'query') queries.push(e.query);
    },
  });
  await migrate(db);
  await db.insertInto('workspaces').values({ id: 'wsk_1', slug: 's', display_name: 's', tier: 'free', tier_status: 'active', created_at: 'x' }).execute();
  for (let i = 0; i < 12; i++) {
    const id = `agt_${String(i).padStart(4, '0')}`;
    await db.insertInto('agents').values({
      id, workspace_id: 'wsk_1', name: `a${i}`, display_name: null, email: `a${i}@s.x`, domain: 's.x', status: i % 3 === 0 ? 'archived' : 'active',
      daily_send_limit: null, hourly_send_limit: null, classify_inbound: 1, allowlist_domains: '[]', blocklist_domains: '[]',
      created_at: 'x', updated_at: 'x', archived_at: null,
    }).execute();
  }
});
afterAll(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('cursor', () => {
  function refusal(list: string, cursor: string): ApiError {
    let err: unknown;
    try {
      decodeCursor(list, cursor);
    } catch (e) {
      err = e;
    }
    expect(err, cursor).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).code).toBe('invalid_param_value');
    expect((err as ApiError).param).toBe('cursor');
    return err as ApiError;
  }

  it('round-trips and is opaque (not the raw key)', () => {
    const c = encodeCursor('agents', 'agt_0001');
    expect(c).not.toContain('agt_0001');
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('agents', c)).toBe('agt_0001');
  });

  it('refuses anything not minted by encodeCursor with 400 invalid_param_value, param cursor', () => {
    const good = encodeCursor('agents', 'agt_0001');
    const text = Buffer.from(good, 'base64url').toString();
    const edited = Buffer.from(text.replace('agt_0001', 'agt_0009')).toString('base64url');
    for (const bad of ['', 'agt_0001', 'YWJj', good + 'A', good.replace(/.$/, '='), '%%%', good.slice(0, -4), edited]) {
      expect(refusal('agents', bad).message).toMatch(/not valid \(altered or cut short\).*leave `cursor` out/);
    }
  });

  it('a cursor of another list (or of the other order) is refused, naming both lists', () => {
    const sent = encodeCursor('sent messages', 'msg_01');
    expect(refusal('agents', sent).message).toBe('This cursor continues the list of sent messages, not this list of agents: pass a cursor only to the list whose page returned it, or leave `cursor` out to start from the first page.');
    expect(refusal('events', encodeCursor('events (oldest first)', 'evt_1')).message).toContain('list of events (oldest first), not this list of events');
  });

  it('still reads a cursor made before lists were named (c1), on any list: a restart or upgrade between pages goes on', () => {
    const old = Buffer.from('c1:agt_0005').toString('base64url');
    expect(decodeCursor('agents', old)).toBe('agt_0005');
    expect(decodeCursor('threads', Buffer.from('c1:2026-01-01T00:00:00.000Z|thr_1').toString('base64url'))).toBe('2026-01-01T00:00:00.000Z|thr_1');
    refusal('agents', Buffer.from('c1:agt 5').toString('base64url'));
  });
});

describe('paginate', () => {
  it('walks newest first without gaps or repeats, and never uses OFFSET', async () => {
    queries.length = 0;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listAgents(db, 'wsk_1', { statuses: null }, { limit: 5, cursor });
      seen.push(...page.rows.map((r) => r.id));
      if (!page.has_more) {
        expect(page.next_cursor).toBeUndefined();
        break;
      }
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `agt_${String(11 - i).padStart(4, '0')}`));
    expect(queries.length).toBe(3);
    for (const q of queries) {
      expect(q.sql.toLowerCase()).not.toContain('offset');
      expect(q.sql.toLowerCase()).toMatch(/order by "id" desc limit \?/);
    }
  });

  it('ascending order pages forward', async () => {
    const first = await paginate<{ id: string }>(db.selectFrom('agents').select('id'), 'id', { limit: 4 }, 'agents', 'asc');
    expect(first.rows.map((r) => r.id)).toEqual(['agt_0000', 'agt_0001', 'agt_0002', 'agt_0003']);
    const second = await paginate<{ id: string }>(db.selectFrom('agents').select('id'), 'id', { limit: 4, cursor: first.next_cursor }, 'agents', 'asc');
    expect(second.rows[0].id).toBe('agt_0004');
    // A cursor of one direction means nothing in the other.
    await expect(paginate(db.selectFrom('agents').select('id'), 'id', { limit: 4, cursor: first.next_cursor }, 'agents', 'desc')).rejects.toMatchObject({ code: 'invalid_param_value', param: 'cursor' });
  });

  it('a page exactly filling the rest has has_more false and no cursor', async () => {
    const p = await listAgents(db, 'wsk_1', { statuses: null }, { limit: 12 });
    expect(p.rows.length).toBe(12);
    expect(p.has_more).toBe(false);
    expect(p.next_cursor).toBeUndefined();
  });

  it('filters apply with the cursor', async () => {
    const p1 = await listAgents(db, 'wsk_1', { statuses: ['archived'] }, { limit: 2 });
    expect(p1.rows.map((r) => r.id)).toEqual(['agt_0009', 'agt_0006']);
    const p2 = await listAgents(db, 'wsk_1', { statuses: ['archived'] }, { limit: 2, cursor: p1.next_cursor });
    expect(p2.rows.map((r) => r.id)).toEqual(['agt_0003', 'agt_0000']);
    expect(p2.has_more).toBe(false);
  });

  it('the list queries are served by an index, with no sort step', async () => {
    const plans: string[] = [];
    for (const run of [
      () => listAgents(db, 'wsk_1', { statuses: ['active', 'paused'] }, { limit: 5, cursor: encodeCursor('agents', 'agt_0009') }),
      () => listApiKeys(db, 'wsk_1', null, { limit: 5, cursor: encodeCursor('API keys', 'key_9') }),
      () => listApiKeys(db, 'wsk_1', 'agt_0001', { limit: 5 }),
    ]) {
      queries.length = 0;
      await run();
      const q = queries[0];
      const rows = sqlite.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[];
      const plan = rows.map((r) => r.detail).join(' | ');
      plans.push(plan);
      expect(plan, plan).toMatch(/USING (COVERING )?INDEX|USING PRIMARY KEY|USING INTEGER PRIMARY KEY/);
      expect(plan, plan).not.toMatch(/TEMP B-TREE/);
      expect(plan, plan).not.toMatch(/^SCAN \w+$/);
    }
  });
});
