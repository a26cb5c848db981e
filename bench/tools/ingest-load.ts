/**
 * An in-process daemon under Postfix smtp-source (8 sessions, 2 KB), for profiling the ingest path
 * with the other tools: `npx tsx bench/tools/sql-time.ts bench/tools/ingest-load.ts [N] [-d]`, or
 * `node --cpu-prof --import tsx bench/tools/ingest-load.ts 3000 -d`. Prints the rate, the load
 * average, memory (process.memoryUsage, after a full GC with `node --expose-gc --import tsx …`)
 * and what was stored once every message is processed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/server/config.js';
import { Daemon } from '../../src/server/daemon.js';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3000);
const reuse = process.argv.includes('-d');
const dir = mkdtempSync(join(tmpdir(), 'mailagent-ingest-'));
const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {}), { quiet: true });
const addr = await d.start();
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
/** RSS of the process (all threads) and the main isolate's heap, MB; after a full GC when run with --expose-gc. */
const mem = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => (n / 1048576).toFixed(0);
  return `rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} / total ${mb(m.heapTotal)} MB, external ${mb(m.external)} MB (array buffers ${mb(m.arrayBuffers)} MB)`;
};
console.log(`at start: ${mem()}`);
const t0 = performance.now();
const r = await new Promise<number | null>((resolve) => {
  // Asynchronous: the daemon runs in this process and must keep serving.
  const c = spawn('/usr/sbin/smtp-source', ['-s', '8', '-l', '2048', '-m', String(N), '-f', 'bench@load.test', '-t', 'agent@local.mailagent.localhost',
    '-M', 'load.test', ...(reuse ? ['-d'] : []), addr.smtp!.replace(/^\[?([^\]]+)\]?:(\d+)$/, '$1:$2')], { stdio: 'ignore' });
  c.on('exit', resolve);
});
const secs = (performance.now() - t0) / 1000;
// Let processing finish (the inbound queue acknowledges first), then measure.
while (Number((await d.ctx.db.selectFrom('inbound_queue').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) > 0) await new Promise((res) => setTimeout(res, 50));
console.log(`after ${N} messages, all processed: ${mem()}`);
const count = async (t: 'received_messages' | 'events') => Number((await d.ctx.db.selectFrom(t).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const stored = await count('received_messages');
const events = await count('events');
const pool = d.pipeline.stats();
await d.stop();
console.log(`stored ${stored}, events ${events}; pool jobs ${pool.jobs} (${(pool.jobs / N).toFixed(2)} per message)`);
console.log(`smtp-source exit ${r}: ${N} messages in ${secs.toFixed(2)} s = ${(N / secs).toFixed(0)} msg/s (${reuse ? 'reused' : 'new'} connections); load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
rmSync(dir, { recursive: true, force: true });
