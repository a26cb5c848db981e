/**
 * An in-process daemon under Postfix smtp-source (8 sessions, 2 KB), for profiling the ingest path
 * with the other tools: `npx tsx bench/tools/sql-time.ts bench/tools/ingest-load.ts [N] [-d]`, or
 * `node --cpu-prof --import tsx bench/tools/ingest-load.ts 3000 -d`. Prints the rate, the load
 * average, memory (process.memoryUsage, after a full GC with `node --expose-gc --import tsx …`)
 * and what was stored once every message is processed.
 *
 * `--pause`: processing is held back (the pool's parse waits) until smtp-source has finished, so the
 * acknowledgement path is measured alone, then the drain. `--root DIR`: the daemon's source is
 * DIR/src (another worktree, e.g. main's, for a same-run comparison). `--warm N`: N messages first,
 * not counted. `--prof FILE`: a CPU profile of the acknowledgement phase. `--delay MS`: the daemon's smtpProcessingDelayMs. `--prof-drain FILE`: a CPU profile of the drain (processing alone with --pause). Main-thread CPU (this process's main thread, /proc/self/task/PID/stat) is printed
 * per acknowledged message for the acknowledgement phase and per message for the drain.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = argv.indexOf(name); if (i === -1) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const root = resolve(opt('--root', join(import.meta.dirname, '..', '..')));
const WARM = Number(opt('--warm', '0'));
const N = Number(argv.find((a) => /^\d+$/.test(a)) ?? 3000);
const reuse = argv.includes('-d');
const paused = argv.includes('--pause');
const profFile = opt('--prof', '');
// `--delay MS`: smtpProcessingDelayMs of the daemon (default: the config's).
const DELAY = opt('--delay', '');
const { loadConfig } = await import(pathToFileURL(join(root, 'src/server/config.ts')).href) as typeof import('../../src/server/config.js');
const { Daemon } = await import(pathToFileURL(join(root, 'src/server/daemon.ts')).href) as typeof import('../../src/server/daemon.js');
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
/** CPU of this process's main thread, ms. */
const mainCpu = () => {
  const s = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};

const dir = mkdtempSync(join(tmpdir(), 'mailagent-ingest-'));
const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', ...(DELAY ? { smtpProcessingDelayMs: Number(DELAY) } : {}) }, {}), { quiet: true });
const addr = await d.start();
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
/** RSS of the process (all threads) and the main isolate's heap, MB; after a full GC when run with --expose-gc. */
const mem = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => (n / 1048576).toFixed(0);
  return `rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} / total ${mb(m.heapTotal)} MB, external ${mb(m.external)} MB (array buffers ${mb(m.arrayBuffers)} MB)`;
};
const count = async (t: 'received_messages' | 'events' | 'inbound_queue') => Number((await d.ctx.db.selectFrom(t).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const source = (n: number) => new Promise<number | null>((res) => {
  // Asynchronous: the daemon runs in this process and must keep serving.
  const c = spawn('/usr/sbin/smtp-source', ['-s', '8', '-l', '2048', '-m', String(n), '-f', 'bench@load.test', '-t', 'agent@local.mailagent.localhost',
    '-M', 'load.test', ...(reuse ? ['-d'] : []), addr.smtp!.replace(/^\[?([^\]]+)\]?:(\d+)$/, '$1:$2')], { stdio: 'ignore' });
  c.on('exit', res);
});
const drained = async () => { while (await count('inbound_queue') > 0) await new Promise((res) => setTimeout(res, 20)); };
if (WARM) { await source(WARM); await drained(); await new Promise((res) => setTimeout(res, 500)); }
console.log(`at start: ${mem()}`);
let release!: () => void; const gate = new Promise<void>((r) => { release = r; });
if (paused) { const w = d.ctx.work!; const orig = w.parse.bind(w); (w as { parse: typeof orig }).parse = async (raw, along) => { await gate; return orig(raw, along); }; }

// `--prof FILE`: a CPU profile of the main thread over the acknowledgement phase only (top-frames.mjs reads it).
const { Session } = await import('node:inspector/promises');
const session = profFile ? new Session() : null;
if (session) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 250 }); await session.post('Profiler.start'); }
const c0 = mainCpu();
const t0 = performance.now();
// A read during the burst (1.5 s in): how long inboundSettled makes it wait (at most 2 s).
let readWait = '';
const probe = setTimeout(() => { const t = performance.now(); void d.ctx.inboundSettled?.().then(() => { readWait = `a read 1.5 s into the burst waited ${(performance.now() - t).toFixed(0)} ms`; }); }, 1500);
const r = await source(N);
clearTimeout(probe);
const secs = (performance.now() - t0) / 1000;
const c1 = mainCpu();
if (session) { const { profile } = await session.post('Profiler.stop'); (await import('node:fs')).writeFileSync(profFile, JSON.stringify(profile)); session.disconnect(); }
// `--prof-drain FILE`: a CPU profile of the main thread over the drain (processing only, with --pause).
const drainProf = opt('--prof-drain', '');
const dsession = drainProf ? new Session() : null;
if (dsession) { dsession.connect(); await dsession.post('Profiler.enable'); await dsession.post('Profiler.setSamplingInterval', { interval: 250 }); await dsession.post('Profiler.start'); }
const t1 = performance.now(); release();
// Let processing finish (the inbound queue acknowledges first), then measure.
await drained();
if (dsession) { const { profile } = await dsession.post('Profiler.stop'); (await import('node:fs')).writeFileSync(drainProf, JSON.stringify(profile)); dsession.disconnect(); }
const drain = (performance.now() - t1) / 1000;
const c2 = mainCpu();
console.log(`acked ${N} in ${secs.toFixed(2)} s = ${(N / secs).toFixed(0)} msg/s; main thread ${((c1 - c0) / N).toFixed(3)} ms per acknowledged message`);
console.log(`processed all ${drain.toFixed(2)} s after the last ack (end to end ${(N / (secs + drain)).toFixed(0)} msg/s); main thread in that time ${((c2 - c1) / N).toFixed(3)} ms/msg; total ${((c2 - c0) / N).toFixed(3)} ms/msg`);
console.log(`after ${N} messages, all processed: ${mem()}`);
const stored = await count('received_messages');
const events = await count('events');
const pool = d.pipeline.stats();
// From the 250 (received_at, the acknowledgement's time) to the commit that stored it (its event's created_at).
const waits = (await d.ctx.db.selectFrom('received_messages as m').innerJoin('events as e', 'e.id', 'm.event_id').select(['m.received_at', 'e.created_at']).execute())
  .map((x) => Date.parse(String(x.created_at)) - Date.parse(String(x.received_at))).sort((a, b) => a - b);
console.log(`${readWait}; from 250 to stored: median ${waits[waits.length >> 1]} ms, longest ${waits[waits.length - 1]} ms`);
await d.stop();
console.log(`stored ${stored}, events ${events}; pool jobs ${pool.jobs} (${(pool.jobs / (N + WARM)).toFixed(2)} per message)`);
console.log(`smtp-source exit ${r}: ${N} messages in ${secs.toFixed(2)} s = ${(N / secs).toFixed(0)} msg/s (${reuse ? 'reused' : 'new'} connections${paused ? ', processing held back' : ''}); root ${root}; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
rmSync(dir, { recursive: true, force: true });
