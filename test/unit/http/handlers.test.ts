import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routes } from '../../../src/contract/routes.js';
import { allHandlers } from '../../../src/server/http/routes/index.js';
import { buildApp } from '../../../src/server/http/app.js';
import { openDatabase, migrate } from '../../../src/db/open.js';
import { createContext } from '../../../src/server/context.js';
import { loadConfig } from '../../../src/server/config.js';
import { ManualClock } from '../../../src/shared/clock.js';

// DESIGN.md "One route table": the server registers every route from it; a route without a
// handler is a startup error.
const dir = mkdtempSync(join(tmpdir(), 'mailagent-handlers-'));
const config = loadConfig({ dataDir: dir, logLevel: 'silent' }, {});
const opened = openDatabase(config.dbFile);
const ctx = createContext(config, opened.db, new ManualClock());
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('route table ↔ handlers', () => {
  it('every route id has exactly one handler and every handler has a route', () => {
    const missing = Object.keys(routes).filter((id) => !(id in allHandlers));
    const extra = Object.keys(allHandlers).filter((id) => !(id in routes));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
    expect(Object.keys(allHandlers).sort()).toEqual(Object.keys(routes).sort());
  });

  it('buildApp builds with the real table', async () => {
    await migrate(opened.db);
    const app = await buildApp(ctx, { logger: false });
    await app.ready();
    await app.close();
  });

  it('buildApp refuses to start when a route has no handler, naming it', async () => {
    const handlers = allHandlers as Record<string, unknown>;
    const saved = handlers['agents.get'];
    delete handlers['agents.get'];
    try {
      await expect(buildApp(ctx, { logger: false })).rejects.toThrow(/agents\.get has no handler/);
    } finally {
      handlers['agents.get'] = saved;
    }
  });

  it('route ids are resource.verb and paths are unique per method', () => {
    const seen = new Set<string>();
    for (const [id, r] of Object.entries(routes)) {
      expect(id).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(r.path.startsWith('/')).toBe(true);
      expect(r.path).not.toMatch(/^\/(api\/)?v1/);
      const key = `${r.method} ${r.path.replace(/:[^/]+/g, ':')}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});
