import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../../helpers/daemon.js';
import { onPostgres } from '../../helpers/postgres.js';

// The daemon runs without AsyncLocalStorage or async hooks: once one is entered, node runs hooks
// for every promise and async resource of the process: a test send's main-thread CPU was 7–18 %
// lower without them (bench/README.md → API hot path, session 8). Transactions
// are passed explicitly instead (db/open.ts → Holding). A probe loaded into the daemon
// (--require) counts every AsyncLocalStorage entered and every async hook enabled.
const PROBE = `
const hooks = require('node:async_hooks');
const { isMainThread } = require('node:worker_threads');
let entered = 0, enabled = 0;
for (const m of ['run', 'enterWith']) {
  const orig = hooks.AsyncLocalStorage.prototype[m];
  hooks.AsyncLocalStorage.prototype[m] = function (...a) { entered++; return orig.apply(this, a); };
}
const create = hooks.createHook;
hooks.createHook = function (cb) {
  const h = create.call(this, cb);
  const enable = h.enable;
  h.enable = function () { enabled++; return enable.apply(this, arguments); };
  return h;
};
require('node:module').syncBuiltinESMExports();
if (isMainThread) process.on('exit', () => require('node:fs').appendFileSync(process.env.ASYNC_PROBE_OUT, JSON.stringify({ pid: process.pid, argv: process.argv.slice(1, 3), entered, enabled }) + '\\n'));
`;

const dir = mkdtempSync(join(tmpdir(), 'mailagent-async-probe-'));
const probe = join(dir, 'probe.cjs');
writeFileSync(probe, PROBE);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Serve a GET /v1/me, a test send and a list under the probe; what it counted. */
async function probed(check: '0' | '1'): Promise<{ entered: number; enabled: number }> {
  const out = join(dir, `out-${check}.json`);
  const d = await startDaemon({ env: { NODE_OPTIONS: `--require ${probe}`, ASYNC_PROBE_OUT: out, MAILAGENT_CHECK_TX: check } });
  try {
    await d.api('GET', '/v1/me');
    await d.api('POST', '/v1/messages', { to: 'someone@example.com', subject: 'Probe', body_text: 'Hello' });
    await d.api('GET', '/v1/messages');
  } finally {
    await d.stop();
  }
  // One line per process that loaded the probe: the daemon's main thread.
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(1);
  const { entered, enabled } = JSON.parse(lines[0]) as { entered: number; enabled: number };
  return { entered, enabled };
}

// On PostgreSQL the transaction counts per kind (db/open.ts withTransactionKind) still ride an
// AsyncLocalStorage: the claim is about the SQLite daemon.
describe.skipIf(onPostgres)('the daemon carries no async context', () => {
  it('serves requests without entering an AsyncLocalStorage or enabling an async hook', async () => {
    expect(await probed('0')).toEqual({ entered: 0, enabled: 0 });
  });

  it('the probe sees them when the test suite\'s transaction check is on', async () => {
    // (node's AsyncLocalStorage enables its hook through an internal createHook: `enabled` counts
    // only hooks created through the public API.)
    expect((await probed('1')).entered).toBeGreaterThan(0);
  });
});
