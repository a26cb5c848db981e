import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../../src/server/config.js';
import { Daemon, initialiseDataDir } from '../../../src/server/daemon.js';
import { WorkerPool, WorkerFailed } from '../../../src/server/pipeline/index.js';
import { silentLogger } from '../../../src/shared/log.js';

// The daemon waits for its pipeline workers before it serves (src/server/daemon.ts): a pool that
// cannot start fails the start-up with a message that says so, and leaves nothing open behind.
let dir = '';
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function brokenEntry(body: string): URL {
  const file = join(dir, 'broken-worker.mjs');
  writeFileSync(file, body);
  return pathToFileURL(file);
}

describe('pipeline start-up', () => {
  it('a pool whose workers cannot start fails Daemon.create clearly; the data dir is free for the next start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-poolstart-'));
    const config = loadConfig({ dataDir: join(dir, 'data'), port: 0, smtpPort: 0, logLevel: 'silent' }, {});
    await initialiseDataDir(config, {});
    const url = brokenEntry("throw new Error('cannot load the classifier model');\n");
    await expect(Daemon.create(config, { quiet: true, pipelineWorkerUrl: url })).rejects.toThrow(/pipeline workers fail to start: .*cannot load the classifier model/);
    // The lock, the database and the pool were released: a good start works right after.
    const d = await Daemon.create(config, { quiet: true });
    await d.start();
    await d.stop();
  });

  it('a worker that never finishes loading: ready() rejects after its timeout instead of waiting forever', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-poolstart-'));
    const url = brokenEntry('setInterval(() => {}, 1000);\n');
    const pool = new WorkerPool({ size: 1, budgetMs: 1000, maxHeapMb: 64, log: silentLogger, workerUrl: url });
    try {
      const err = await pool.ready(300).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkerFailed);
      expect((err as Error).message).toMatch(/did not start within 300 ms/);
    } finally {
      await pool.close();
    }
  });
});
