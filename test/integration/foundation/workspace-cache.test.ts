import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { requireWorkspace } from '../../../src/services/agents.js';
import { inTransaction, withinTransaction } from '../../../src/services/context.js';
import { openDatabase } from '../../../src/db/open.js';

// services/agents.ts caches workspace rows while db/open.ts tableMark() holds still: a tier set
// by any path (another process, a direct write, a transaction) must show on the very next request.
// Another connection's commit is looked for once per event-loop turn (db/open.ts
// OtherConnections): a request over the network always starts a new one; these in-process
// requests (inject) chain promises only, so the test lets a turn pass as a client's would.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const tier = async () => {
  const r = await t.req('GET', '/v1/me');
  expect(r.status).toBe(200);
  return r.body.workspace.tier as string;
};

describe('workspace cache', () => {
  it('a tier set by another connection (as `mailagent admin tier` from another process) shows on the next request', async () => {
    expect(await tier()).toBe('free');
    expect(await tier()).toBe('free'); // cached now
    if (t.config.database.kind === 'sqlite') {
      const other = new Database(t.config.database.file);
      other.pragma('busy_timeout = 5000');
      other.prepare("update workspaces set tier = 'pro'").run();
      other.close();
      await new Promise((r) => setImmediate(r));
    } else {
      // PostgreSQL (nothing is cached there): another daemon's pool writes it.
      const other = openDatabase(t.config.database);
      await other.db.updateTable('workspaces').set({ tier: 'pro' }).execute();
      await other.close();
    }
    expect(await tier()).toBe('pro');
  });

  it('a write on the daemon\'s own connection, by any code path, shows on the next request', async () => {
    expect(await tier()).toBe('pro');
    await t.ctx.db.updateTable('workspaces').set({ tier: 'scale' }).execute();
    expect(await tier()).toBe('scale');
  });

  // A service reads inside a transaction through a context bound to it (services/context.ts).
  it('a row read inside a transaction that rolls back is not kept', async () => {
    const id = t.boot.workspace.id;
    expect((await requireWorkspace(t.ctx, id)).tier).toBe('scale');
    await expect(inTransaction(t.ctx, async (tx) => {
      await tx.db.updateTable('workspaces').set({ tier: 'free' }).execute();
      expect((await requireWorkspace(withinTransaction(t.ctx, tx), id)).tier).toBe('free'); // its own uncommitted row
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect((await requireWorkspace(t.ctx, id)).tier).toBe('scale');
    expect(await tier()).toBe('scale');
  });

  it('callers get their own copy: changing a returned row changes no cached one', async () => {
    const id = t.boot.workspace.id;
    const a = await requireWorkspace(t.ctx, id);
    a.tier = 'mutated';
    expect((await requireWorkspace(t.ctx, id)).tier).toBe('scale');
  });
});
