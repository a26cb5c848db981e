/**
 * Where the tail of end of DATA → 250 goes: an in-process daemon under 8 persistent SMTP sessions
 * paced at a fixed rate (as pipeline.bench.ts's p99 part), with the parts of an acknowledgement
 * timed inside the daemon:
 *   - the queue writer's insert → its commit answered (QueueWriter.insert's promise: the hand-over
 *     to the writer thread, its wait for the write lock, the INSERT and the commit with fsync, the
 *     answer's way back to the main thread);
 *   - the main thread's event-loop delay (perf_hooks monitorEventLoopDelay), and its longest turns;
 *   - the store transactions of processing (groupedTransaction's units per commit) are not timed
 *     here: they hold the write lock the writer waits for, so they show in the insert's time.
 *
 *   npx tsx bench/tools/ack-latency.ts [--rate 300] [--secs 15] [--root DIR] [--warm 1000]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SmtpPipe } from '../../test/integration/inbound/smtp-client.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = argv.indexOf(name); if (i === -1) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const root = resolve(opt('--root', join(import.meta.dirname, '..', '..')));
const RATE = Number(opt('--rate', '300'));
const SECS = Number(opt('--secs', '15'));
const WARM = Number(opt('--warm', '1000'));
// `--delay MS`: smtpProcessingDelayMs of the daemon (default: the config's).
const DELAY = opt('--delay', '');
const AGENT = 'agent@local.mailagent.localhost';
const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
const { loadConfig } = await mod('src/server/config.ts') as typeof import('../../src/server/config.js');
const { Daemon } = await mod('src/server/daemon.ts') as typeof import('../../src/server/daemon.js');
const { QueueWriter } = await mod('src/db/queue-writer.ts') as typeof import('../../src/db/queue-writer.js');

const inserts: number[] = [];
let timing = false;
const orig = QueueWriter.prototype.insert;
QueueWriter.prototype.insert = function (this: InstanceType<typeof QueueWriter>, row) {
  const t = performance.now();
  const p = orig.call(this, row);
  if (timing) void p.then(() => inserts.push(performance.now() - t), () => undefined);
  return p;
};

const dir = mkdtempSync(join(tmpdir(), 'mailagent-acklat-'));
const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', ...(DELAY ? { smtpProcessingDelayMs: Number(DELAY) } : {}) }, {}), { quiet: true });
const addr = await d.start();
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
const port = Number(addr.smtp!.split(':').pop());
if (WARM) {
  await new Promise((res) => spawn('/usr/sbin/smtp-source', ['-s', '8', '-l', '2048', '-m', String(WARM), '-f', 'bench@load.test', '-t', AGENT, '-M', 'load.test', '-d', `127.0.0.1:${port}`], { stdio: 'ignore' }).on('exit', res));
  await d.ctx.inboundSettled?.();
  await new Promise((res) => setTimeout(res, 1000));
}
function message(i: number): Buffer {
  const body = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(26)).slice(0, 2000);
  return Buffer.from([`From: Sender ${i % 50} <s${i % 50}@load.test>`, `To: ${AGENT}`, `Subject: paced ${i}`,
    `Message-ID: <paced-${i}-${Date.now()}@load.test>`, 'Date: Thu, 01 Jan 2026 00:00:00 +0000', '', body, ''].join('\r\n'));
}
const h = monitorEventLoopDelay({ resolution: 1 });
// The longest turns: a 1 ms timer's lateness.
const late: number[] = [];
let last = performance.now();
const tick = setInterval(() => { const now = performance.now(); late.push(now - last - 1); last = now; }, 1);
timing = true;
h.enable();
const lat: number[] = [];
const t0 = performance.now();
const per = RATE / 8;
await Promise.all(Array.from({ length: 8 }, async (_, s) => {
  const c = await SmtpPipe.open(port);
  for (let k = 0; ; k++) {
    const due = t0 + (k / per) * 1000 + (s / RATE) * 1000;
    if (due > t0 + SECS * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const reply = await c.send(`s${s}@load.test`, [AGENT], message(s * 100000 + k));
    if (reply.startsWith('250')) lat.push(performance.now() - c.dataSentAt);
  }
  await c.quit();
}));
h.disable();
clearInterval(tick);
timing = false;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN; };
const f = (x: number) => x.toFixed(1);
console.log(`root ${root}: offered ${RATE} msg/s, ${lat.length} acknowledged in ${((performance.now() - t0) / 1000).toFixed(1)} s (client and daemon in one process)`);
console.log(`end of DATA → 250: p50 ${f(pct(lat, 0.5))} p90 ${f(pct(lat, 0.9))} p99 ${f(pct(lat, 0.99))} max ${f(Math.max(...lat))} ms`);
console.log(`writer insert → commit answered: p50 ${f(pct(inserts, 0.5))} p90 ${f(pct(inserts, 0.9))} p99 ${f(pct(inserts, 0.99))} max ${f(Math.max(...inserts))} ms (${inserts.length})`);
console.log(`event-loop delay: p50 ${f(h.percentile(50) / 1e6)} p99 ${f(h.percentile(99) / 1e6)} max ${f(h.max / 1e6)} ms; 1 ms timer late by > 10 ms: ${late.filter((x) => x > 10).length} times, > 20 ms: ${late.filter((x) => x > 20).length}`);
await d.ctx.inboundSettled?.();
await d.stop();
console.log(`load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
rmSync(dir, { recursive: true, force: true });
