import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, migrate, isInitialised, SQLITE_CACHE_KIB } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';

// DESIGN.md "Data": pragmas in one place; synchronous=FULL must stick (better-sqlite3 defaults
// WAL databases to NORMAL); migrations listed in code, run at start, idempotent.
const dirs: string[] = [];
const tempFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'mailagent-db-'));
  dirs.push(d);
  return join(d, 'nested', 'mailagent.db');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('sets WAL, synchronous=FULL, foreign keys and a busy timeout, and they stick', async () => {
    const file = tempFile();
    const o = openDatabase(file);
    try {
      expect(o.pragmas).toEqual({ journal_mode: 'wal', synchronous: 2, foreign_keys: 1, busy_timeout: 5000 });
      // Read back through the same connection Kysely uses, after a transaction.
      await migrate(o.db);
      const { sql } = await import('kysely');
      const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(o.db);
      expect(sync.rows[0].synchronous).toBe(2);
      const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(o.db);
      expect(fk.rows[0].foreign_keys).toBe(1);
      // The page cache cap (docs/security.md), not better-sqlite3's 16 MB default.
      const cache = await sql<{ cache_size: number }>`pragma cache_size`.execute(o.db);
      expect(cache.rows[0].cache_size).toBe(-SQLITE_CACHE_KIB);
    } finally {
      await o.close();
    }
    // WAL is persistent in the file itself.
    const raw = new BetterSqlite3(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('enforces foreign keys', async () => {
    const o = openDatabase(tempFile());
    try {
      await migrate(o.db);
      await expect(o.db.insertInto('agents').values({
        id: 'agt_x', workspace_id: 'wsk_missing', name: 'x', display_name: null, email: 'x@y.z', domain: 'y.z', status: 'active',
        daily_send_limit: null, hourly_send_limit: null, classify_inbound: 1, allowlist_domains: '[]', blocklist_domains: '[]',
        created_at: 'a', updated_at: 'a', archived_at: null,
      }).execute()).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await o.close();
    }
  });

  it('creates the parent directory', async () => {
    const o = openDatabase(tempFile());
    await o.close();
  });
});

describe('migrate', () => {
  it('applies every listed migration once; a reopen applies none and keeps the data', async () => {
    const file = tempFile();
    const first = openDatabase(file);
    const applied = await migrate(first.db);
    expect(applied).toEqual(Object.keys(migrations).sort());
    expect(await isInitialised(first.db)).toBe(false);
    await first.db.insertInto('workspaces').values({ id: 'wsk_1', slug: 'local', display_name: 'l', tier: 'free', tier_status: 'active', created_at: 'x' }).execute();
    expect(await migrate(first.db)).toEqual([]);
    await first.close();

    const second = openDatabase(file);
    try {
      expect(await migrate(second.db)).toEqual([]);
      expect(await isInitialised(second.db)).toBe(true);
      const tables = await second.db.introspection.getTables();
      const names = tables.map((t) => t.name);
      for (const n of ['workspaces', 'agents', 'api_keys', 'threads', 'message_refs', 'events', 'webhook_endpoints', 'webhook_deliveries']) {
        expect(names).toContain(n);
      }
    } finally {
      await second.close();
    }
  });

  it('migration names sort in the order they are listed', () => {
    const names = Object.keys(migrations);
    expect(names).toEqual([...names].sort());
  });
});
