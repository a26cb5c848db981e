/**
 * The inbound pipeline and the API hot path (issue #13), each figure beside a baseline measured in
 * the same run, for this tree ("after") and, with --base DIR, another build of the project
 * ("before": e.g. a `git worktree` of main with `npx tsc -p tsconfig.build.json` run in it).
 *
 *   smtp   Postfix smtp-source → daemon vs smtp-source → smtp-sink and → the issue's bare anchor
 *          (smtp-server + mailparser + one SQLite insert per message, synchronous=FULL: tools/bare-smtp.mjs):
 *          8 sessions, 2 KB messages, a new connection per message and reused connections (-d); each
 *          build also with processing held back (acknowledgements only: tools/ack-daemon.mjs); then
 *          counts what was stored; CPU per message per thread of each server's process. Each build's
 *          daemon is measured cold (just started) and warm (the same daemon after 2,000 more).
 *   p99    end of DATA → 250 at half the peak rate (8 persistent sessions, paced).
 *   http   wrk, 16 keep-alive connections: GET /v1/me and test-mode POST /v1/messages vs a bare
 *          fastify route returning a constant, in its own process; with each run's CPU time per
 *          request (main thread, all threads); each request twice per daemon (its first 10 s, then warm).
 *   stall  longest main-thread stall (event-loop delay monitor in the daemon) per kind of message.
 *   rss    daemon RSS after N inbound messages (smtp-source -d, default 100,000; RSS_MESSAGES=), and
 *          RSS_IDLE_SECS (30) later, with each thread's V8 heap from /metrics, the peak and mean RSS
 *          while mail flowed (sampled each second) and the daemon's CPU time per message (all
 *          threads); RSS_BASE=1 measures the --base build too, RSS_LAUNCHER=1 adds a row per build
 *          with the systemd unit's node settings; RSS_ROW_ENV='K=V K2=V2' adds a row per build with
 *          those environment variables (a lever measured beside the same build without it);
 *          RSS_ROUNDS=N repeats the whole set N times, alternating (A B A B …); RSS_BUILDS='label=DIR[,K=V…];…'
 *          measures those builds instead (each with those environment variables): a lever per row.
 *   list   the lists clients page through (received, threads, sent, events; plain, second page and
 *          filtered: LIST_ENDPOINTS), p50 at 1,000 stored messages (500 over SMTP, 500 test-mode
 *          sends), then at 1,000,000 (those rows copied in SQL: bulkCopy, an equivalent bulk path);
 *          with --base, both builds on the same data (LIST_REQUESTS=200 per list, LIST_KEEP=1,
 *          LIST_COPIES=999: a quick trial with fewer;
 *          LIST_SEEDED=DIR: the 1,000,000 rows of a kept run only, on the oldest build's schema;
 *          LIST_SEED_ONLY=1: seed and copy on the oldest build, measure nothing, keep the dir;
 *          LIST_BUILD=before|after with LIST_SEEDED: that build only).
 *
 * Run: npm run build && npx tsx bench/pipeline.bench.ts [--base DIR] [--only smtp,p99,http,stall,rss,list] [--rounds N (http)]
 *   [--env MAILAGENT_X=V …] (settings for every daemon started; the daemons inherit no other
 *   MAILAGENT_ variable of the caller's environment) [--p99-rate N] (p99: offer N msg/s instead of
 *   half the peak, so builds or settings with different peaks are compared at one rate)
 * Needs Postfix's smtp-source/smtp-sink (Debian package postfix; the service need not run) and wrk.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SmtpPipe } from '../test/integration/inbound/smtp-client.js';
import { perThread, threadTicks } from './tools/thread-cpu.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string) => { const i = process.argv.indexOf(name); return i === -1 ? undefined : process.argv[i + 1]; };
const BASE = arg('--base');
/** `--env K=V` (repeatable): environment of every daemon this bench starts (see serve). */
const DAEMON_ENV: Record<string, string> = Object.fromEntries(process.argv.flatMap((a, i) => (process.argv[i - 1] === '--env' && a.includes('=') ? [[a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]] : [])));
const P99_RATE = arg('--p99-rate') ? Number(arg('--p99-rate')) : null;
const ONLY = (arg('--only') ?? 'smtp,p99,http,stall,rss,list').split(',');
const SMTP_SOURCE = '/usr/sbin/smtp-source';
const SMTP_SINK = '/usr/sbin/smtp-sink';
const AGENT = 'agent@local.mailagent.localhost';
/** `--also DIR` (repeatable): more builds beside after and before, named by their folder (e.g. commits of a bisection). */
const ALSO = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--also' ? [resolve(a)] : []));
const builds: { name: string; root: string }[] = [{ name: 'after', root: ROOT }, ...(BASE ? [{ name: 'before', root: resolve(BASE) }] : []),
  ...ALSO.map((root) => ({ name: basename(root), root }))];

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const say = (s: string) => console.log(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Running {
  url: string;
  smtpPort: number;
  pid: number;
  dataDir: string;
  liveKey: string;
  testKey: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `mailagent serve` of a build, in its own process, on a fresh (or given) data dir. */
async function serve(root: string, dataDir?: string, extraEnv: Record<string, string> = {}): Promise<Running> {
  const env = { ...DAEMON_ENV, ...extraEnv };
  const home = mkdtempSync(join(tmpdir(), 'mailagent-pbench-'));
  const dir = dataDir ?? join(home, 'data');
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'xdg'), ...env };
  for (const k of Object.keys(e)) if (k.startsWith('MAILAGENT_') && !(k in env)) delete e[k];
  const child = spawn(process.execPath, [join(root, 'bin', 'mailagent'), 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dir, '--log-level', 'silent'], { env: e, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const line = await new Promise<string>((res, rej) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /ready: API (\S+) · SMTP (\S+)/.exec(err);
      if (m) res(m[0]);
    });
    child.on('exit', (c) => rej(new Error(`serve exited ${c}: ${err}`)));
  });
  const m = /ready: API (\S+) · SMTP (\S+)/.exec(line)!;
  const profile = join(home, 'config', 'mailagent', 'config.json');
  const p = existsSync(profile) ? JSON.parse(readFileSync(profile, 'utf8')).profiles.default : {};
  return {
    url: m[1], smtpPort: Number(m[2].split(':').pop()), pid: child.pid!, dataDir: dir, liveKey: p.live_key, testKey: p.test_key, child,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (!dataDir) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Raise the workspace's caps (the bench sends far beyond a new Free workspace's). */
function scaleWorkspace(dataDir: string) {
  const db = new Database(join(dataDir, 'mailagent.db'));
  db.pragma('busy_timeout = 5000');
  db.prepare("update workspaces set tier = 'scale', created_at = '2020-01-01T00:00:00.000Z'").run();
  db.close();
}

function smtpSource(port: number, messages: number, reuse: boolean, t0 = performance.now()): { secs: number; code: number | null } {
  const r = spawnSync(SMTP_SOURCE, ['-s', '8', '-l', '2048', '-m', String(messages), '-f', 'bench@load.test', '-t', AGENT, '-M', 'load.test',
    ...(reuse ? ['-d'] : []), `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
  return { secs: (performance.now() - t0) / 1000, code: r.status };
}

function counts(dataDir: string): { stored: number; events: number; queued: number } {
  const db = new Database(join(dataDir, 'mailagent.db'), { readonly: true });
  const stored = (db.prepare('select count(*) n from received_messages').get() as { n: number }).n;
  const events = (db.prepare("select count(*) n from events where type in ('message.received', 'reply.received', 'message.received.unauthenticated')").get() as { n: number }).n;
  // Builds with the inbound queue (migration 0017) acknowledge before processing: count what waits.
  const hasQueue = db.prepare("select 1 from sqlite_master where name = 'inbound_queue'").get() !== undefined;
  const queued = hasQueue ? (db.prepare('select count(*) n from inbound_queue').get() as { n: number }).n : 0;
  db.close();
  return { stored, events, queued };
}

/**
 * From each message's 250 (received_at, the acknowledgement's time) to the commit that stored it
 * (its message.received event's created_at), ms: the median and the longest.
 */
function ackToStored(dataDir: string, since = ''): { median: number; longest: number } {
  const db = new Database(join(dataDir, 'mailagent.db'), { readonly: true });
  const w = (db.prepare(`select (julianday(e.created_at) - julianday(m.received_at)) * 86400000.0 ms from events e
    join received_messages m on m.event_id = e.id where m.received_at >= ? order by ms`).all(since) as { ms: number }[]).map((r) => r.ms);
  db.close();
  return { median: w[w.length >> 1] ?? NaN, longest: w[w.length - 1] ?? NaN };
}

/**
 * After smtp-source returned (every message acknowledged): wait until `n` messages are stored, so
 * a build that acknowledges before processing is timed to the end of its processing too.
 */
async function untilStored(dataDir: string, n: number, t0: number, timeoutMs = 600_000): Promise<{ secs: number; c: ReturnType<typeof counts> }> {
  for (;;) {
    const c = counts(dataDir);
    if (c.stored >= n || performance.now() - t0 > timeoutMs) return { secs: (performance.now() - t0) / 1000, c };
    await sleep(50);
  }
}

// ---------------------------------------------------------------- smtp
const peak: Record<string, number> = {};
/** "main 0.41, others 0.22 (t1 0.15, t2 0.03)": CPU ms per message per thread (thread-cpu.ts). */
const cpuCell = (per: Record<string, number>) => `main ${per.main.toFixed(2)}, others ${per.others.toFixed(2)} (${Object.entries(per).filter(([k, v]) => /^t\d/.test(k) && v >= 0.01).slice(0, 4).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}) = ${(per.main + per.others).toFixed(2)} ms`;
/** Messages smtp-source sends first to a bare or acknowledgement-only server, not counted (JIT warm-up). */
const SMTP_WARM = 1_000;
/**
 * Messages a warm daemon has processed before its measured run (the cold run's 3,000 and these):
 * V8 is still compiling the pipeline's code on its helper threads through the first ~4,000
 * messages (CPU per message falls by ~half, bench/README.md session 10).
 */
const SMTP_WARM_DAEMON = 2_000;

/** The issue's bare anchor (bench/tools/bare-smtp.mjs) in its own process. */
async function bareServer(): Promise<{ port: number; pid: number; rows(): number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-bare-'));
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'tools', 'bare-smtp.mjs'), dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r)));
  return {
    port, pid: child.pid!,
    rows: () => { const db = new Database(join(dir, 'bare.db'), { readonly: true }); const n = (db.prepare('select count(*) n from messages').get() as { n: number }).n; db.close(); return n; },
    async stop() { child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r)); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** A build's daemon with processing held back (bench/tools/ack-daemon.mjs): the acknowledgement path alone. */
async function ackOnlyDaemon(root: string): Promise<{ port: number; pid: number; drain(): Promise<void>; dataDir: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-ack-'));
  const home = join(dir, 'home');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'xdg'), ...DAEMON_ENV };
  for (const k of Object.keys(env)) if (k.startsWith('MAILAGENT_') && !(k in DAEMON_ENV)) delete env[k];
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'tools', 'ack-daemon.mjs'), join(root, 'dist'), join(dir, 'data')], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((r) => lines.once('line', r));
  const ready = JSON.parse(await next()) as { smtp: number };
  return {
    port: ready.smtp, pid: child.pid!, dataDir: join(dir, 'data'),
    async drain() { const d = next(); child.stdin!.write('release\n'); await d; },
    async stop() { child.stdin!.write('stop\n'); await new Promise((r) => child.once('exit', r)); rmSync(dir, { recursive: true, force: true }); },
  };
}

async function benchSmtp() {
  say(`\n## SMTP ingest: smtp-source, 8 sessions, 2 KB messages (load ${load()})${Object.keys(DAEMON_ENV).length ? `; daemons with ${Object.entries(DAEMON_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`);
  say(`Bare anchor: smtp-server + mailparser + one SQLite insert per message (synchronous=FULL, WAL), its own process (bench/tools/bare-smtp.mjs). Acknowledgements only: the build's daemon with processing held back until the run ends (bench/tools/ack-daemon.mjs). Bare and acknowledgement-only servers get ${SMTP_WARM} messages first, not counted. CPU: ms per message per thread of the server's process (main thread; others summed, the busiest as t1, t2…), over the acknowledgements (bare, acknowledgements only) or until every message is stored (mailagent).`);
  const sinkPort = await freePort();
  const sink = spawn(SMTP_SINK, ['-u', 'nobody', `127.0.0.1:${sinkPort}`, '256'], { stdio: 'ignore' });
  await sleep(300);
  const N_SINK = 20_000;
  const N = 3_000;
  const rows: string[] = [];
  for (const reuse of [false, true]) {
    const mode = reuse ? 'reused (-d)' : 'new connection per message';
    const s = smtpSource(sinkPort, N_SINK, reuse);
    const sinkRate = N_SINK / s.secs;
    rows.push(`| ${mode} | smtp-sink | ${sinkRate.toFixed(0)} msg/s | 1.00× | — | — | — | load ${load()} |`);
    const bare = await bareServer();
    let bareRate = NaN;
    try {
      smtpSource(bare.port, SMTP_WARM, reuse);
      const before = threadTicks(bare.pid);
      const r = smtpSource(bare.port, N, reuse);
      const per = perThread(before, threadTicks(bare.pid), bare.pid, N);
      bareRate = N / r.secs;
      rows.push(`| ${mode} | bare smtp-server + mailparser + SQLite insert | ${bareRate.toFixed(0)} msg/s | ${(bareRate / sinkRate).toFixed(3)}× | 1.00× | — | ${cpuCell(per)} | load ${load()}; stored ${bare.rows() - SMTP_WARM}/${N} |`);
    } finally {
      await bare.stop();
    }
    for (const b of builds) {
      const a = await ackOnlyDaemon(b.root);
      try {
        smtpSource(a.port, SMTP_WARM, reuse);
        const before = threadTicks(a.pid);
        const r = smtpSource(a.port, N, reuse);
        const per = perThread(before, threadTicks(a.pid), a.pid, N);
        const rate = N / r.secs;
        await a.drain();
        const c = counts(a.dataDir);
        rows.push(`| ${mode} | mailagent ${b.name}, acknowledgements only | ${rate.toFixed(0)} msg/s | ${(rate / sinkRate).toFixed(3)}× | ${(rate / bareRate).toFixed(2)}× | — | ${cpuCell(per)} | load ${load()}; after the release stored ${c.stored}/${N + SMTP_WARM}, events ${c.events} |`);
      } finally {
        await a.stop();
      }
    }
    for (const b of builds) {
      const d = await serve(b.root);
      try {
        scaleWorkspace(d.dataDir);
        const before = threadTicks(d.pid);
        const t0 = performance.now();
        const r = smtpSource(d.smtpPort, N, reuse, t0);
        const queuedAtEnd = counts(d.dataDir).queued;
        const all = await untilStored(d.dataDir, N, t0);
        const per = perThread(before, threadTicks(d.pid), d.pid, N);
        const c = all.c;
        const wait = ackToStored(d.dataDir);
        const rate = N / r.secs;
        const storedRate = N / all.secs;
        if (reuse) peak[b.name] = rate;
        rows.push(`| ${mode} | mailagent ${b.name}, cold (just started) | ${rate.toFixed(0)} msg/s | ${(rate / sinkRate).toFixed(3)}× | ${(rate / bareRate).toFixed(2)}× | ${storedRate.toFixed(0)} msg/s (${(storedRate / sinkRate).toFixed(3)}×) | ${cpuCell(per)} | load ${load()}; stored ${c.stored}/${N}, events ${c.events}; ${queuedAtEnd} still queued when smtp-source ended; 250 → stored: median ${wait.median.toFixed(0)} ms, longest ${wait.longest.toFixed(0)} ms |`);
        // The same daemon warm: SMTP_WARM_DAEMON more first, then N measured the same way.
        const w0 = performance.now();
        smtpSource(d.smtpPort, SMTP_WARM_DAEMON, reuse, w0);
        await untilStored(d.dataDir, N + SMTP_WARM_DAEMON, w0);
        await sleep(500);
        const since = new Date().toISOString();
        const before2 = threadTicks(d.pid);
        const t1 = performance.now();
        const r2 = smtpSource(d.smtpPort, N, reuse, t1);
        const all2 = await untilStored(d.dataDir, 2 * N + SMTP_WARM_DAEMON, t1);
        const per2 = perThread(before2, threadTicks(d.pid), d.pid, N);
        const wait2 = ackToStored(d.dataDir, since);
        const rate2 = N / r2.secs;
        const storedRate2 = N / all2.secs;
        rows.push(`| ${mode} | mailagent ${b.name}, warm (after ${N + SMTP_WARM_DAEMON}) | ${rate2.toFixed(0)} msg/s | ${(rate2 / sinkRate).toFixed(3)}× | ${(rate2 / bareRate).toFixed(2)}× | ${storedRate2.toFixed(0)} msg/s (${(storedRate2 / sinkRate).toFixed(3)}×) | ${cpuCell(per2)} | load ${load()}; stored ${all2.c.stored - N - SMTP_WARM_DAEMON}/${N}, events ${all2.c.events - N - SMTP_WARM_DAEMON}; 250 → stored: median ${wait2.median.toFixed(0)} ms, longest ${wait2.longest.toFixed(0)} ms |`);
      } finally {
        await d.stop();
      }
    }
  }
  sink.kill();
  say('| connections | server | acknowledged (250s) | × sink (same run) | × bare (same run) | all stored and evented | CPU per message, per thread | notes |\n|---|---|---|---|---|---|---|---|\n' + rows.join('\n'));
}

// ---------------------------------------------------------------- p99
function message(i: number): Buffer {
  const body = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(26)).slice(0, 2000);
  return Buffer.from([
    `From: Sender ${i % 50} <s${i % 50}@load.test>`, `To: ${AGENT}`, `Subject: paced ${i}`,
    `Message-ID: <paced-${i}-${Date.now()}@load.test>`, 'Date: Thu, 01 Jan 2026 00:00:00 +0000', '', body, '',
  ].join('\r\n'));
}

async function benchP99() {
  say(`\n## end of DATA → 250 at ${P99_RATE ? `${P99_RATE} msg/s offered` : 'half the peak rate'} (8 persistent sessions, paced; load ${load()})${Object.keys(DAEMON_ENV).length ? `; daemons with ${Object.entries(DAEMON_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`);
  say('| server | peak (reused, from smtp) | offered | achieved | p50 | p99 | max | 250 → stored: median / longest |\n|---|---|---|---|---|---|---|---|');
  for (const b of builds) {
    const d = await serve(b.root);
    try {
      scaleWorkspace(d.dataDir);
      let top = peak[b.name];
      // A fixed rate needs no peak (and the daemon then holds only the paced mail: the 250 → stored column is theirs).
      if (!top && !P99_RATE) {
        const r = smtpSource(d.smtpPort, 2000, true);
        top = 2000 / r.secs;
      }
      const rate = P99_RATE ?? top / 2;
      const secs = 15;
      const per = (rate / 8);
      const lat: number[] = [];
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 8 }, async (_, s) => {
        const c = await SmtpPipe.open(d.smtpPort);
        for (let k = 0; ; k++) {
          const due = t0 + (k / per) * 1000 + (s / rate) * 1000;
          if (due > t0 + secs * 1000) break;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          const reply = await c.send(`s${s}@load.test`, [AGENT], message(s * 100000 + k));
          if (reply.startsWith('250')) lat.push(performance.now() - c.dataSentAt);
        }
        await c.quit();
      }));
      const took = (performance.now() - t0) / 1000;
      lat.sort((a, b2) => a - b2);
      const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))];
      // How long the paced mail took to become visible (its processing may trail its 250).
      const stored = counts(d.dataDir).stored;
      await untilStored(d.dataDir, stored + counts(d.dataDir).queued, performance.now(), 60_000);
      const wait = ackToStored(d.dataDir);
      say(`| mailagent ${b.name} | ${top ? `${top.toFixed(0)} msg/s` : '—'} | ${rate.toFixed(0)} msg/s | ${(lat.length / took).toFixed(0)} msg/s | ${pct(0.5).toFixed(1)} ms | ${pct(0.99).toFixed(1)} ms | ${lat[lat.length - 1].toFixed(1)} ms | ${wait.median.toFixed(0)} / ${wait.longest.toFixed(0)} ms |`);
    } finally {
      await d.stop();
    }
  }
  say(`(load after: ${load()})`);
}

// ---------------------------------------------------------------- http
function wrk(url: string, key: string | null, script?: string): { rps: number; requests: number; non2xx: number; p99: string } {
  const args = ['-t2', '-c16', '-d10s', '--latency'];
  if (key) args.push('-H', `Authorization: Bearer ${key}`);
  if (script) args.push('-s', script);
  const r = spawnSync('wrk', [...args, url], { encoding: 'utf8', timeout: 60_000 });
  const out = r.stdout;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    p99: /^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? "?",
  };
}

/**
 * wrk against a process, with its CPU time per request: the main thread's and all its threads'
 * (µs; /proc ticks, so a 10 s run resolves ~0.3 µs at 30,000 req/s). On two cores the rate follows
 * what a request costs all threads (the queue writer's request-log row, V8's helpers), not only
 * the main thread: bench/README.md, round 2 sessions 9–11.
 */
function wrkCpu(pid: number, url: string, key: string | null, script?: string): ReturnType<typeof wrk> & { cpu: string } {
  const before = threadTicks(pid);
  const r = wrk(url, key, script);
  const per = perThread(before, threadTicks(pid), pid, r.requests);
  return { ...r, cpu: `CPU ${(per.main * 1000).toFixed(1)} µs main, ${((per.main + per.others) * 1000).toFixed(1)} µs all threads` };
}

async function bareFastify(): Promise<{ url: string; child: ChildProcess }> {
  const code = `import Fastify from 'fastify'; const app = Fastify(); app.get('/', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' }); console.log(app.server.address().port);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r));
  return { url: `http://127.0.0.1:${port}/`, child };
}

/**
 * `--rounds N` (default 1): N rounds, each measuring the bare route and then every build (the
 * order of the builds alternates between rounds), so both see the same share of a noisy shared
 * machine; the summary gives each figure's median over the rounds and its ratio to the median
 * bare rate.
 */
const HTTP_ROUNDS = Number(arg('--rounds') ?? 1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function benchHttp() {
  say(`\n## HTTP: wrk -t2 -c16 -d10s, ${HTTP_ROUNDS} round(s) (load ${load()})`);
  const bare = await bareFastify();
  const rows: string[] = [];
  const bareRates: number[] = [];
  const rates = new Map<string, number[]>();
  const note = (k: string, v: number) => rates.set(k, [...(rates.get(k) ?? []), v]);
  try {
    for (let round = 1; round <= HTTP_ROUNDS; round++) {
      const b0 = wrkCpu(bare.child.pid!, bare.url, null);
      bareRates.push(b0.rps);
      rows.push(`| ${round} | bare fastify route (own process) | ${b0.rps.toFixed(0)} req/s | 1.00× | p99 ${b0.p99} | ${b0.cpu}; load ${load()} |`);
      for (const b of round % 2 ? builds : [...builds].reverse()) {
        const d = await serve(b.root);
        try {
          scaleWorkspace(d.dataDir);
          const lua = join(tmpdir(), `pbench-send-${process.pid}.lua`);
          writeFileSync(lua, `wrk.method = "POST"\nwrk.body = '{"to":"bob@example.com","subject":"Your receipt","body_text":"Thanks for your order #1234."}'\nwrk.headers["Content-Type"] = "application/json"\n`);
          // Twice each: the first run is the daemon's first 10 s of that request (V8 still
          // compiling its code: the rows every earlier session reported), the second a warm one.
          for (const warm of [false, true]) {
            const tag = warm ? ' (warm: after 10 s of it)' : '';
            const me = wrkCpu(d.pid, `${d.url}/v1/me`, d.testKey);
            note(`GET /v1/me${tag}, ${b.name}`, me.rps);
            rows.push(`| ${round} | GET /v1/me${tag}, mailagent ${b.name} | ${me.rps.toFixed(0)} req/s | ${(me.rps / b0.rps).toFixed(3)}× | p99 ${me.p99}${me.non2xx ? `, ${me.non2xx} non-2xx` : ''} | ${me.cpu}; load ${load()} |`);
            const send = wrkCpu(d.pid, `${d.url}/v1/messages`, d.testKey, lua);
            note(`POST /v1/messages (test key)${tag}, ${b.name}`, send.rps);
            rows.push(`| ${round} | POST /v1/messages (test key)${tag}, mailagent ${b.name} | ${send.rps.toFixed(0)} req/s | ${(send.rps / b0.rps).toFixed(3)}× | p99 ${send.p99}${send.non2xx ? `, ${send.non2xx} non-2xx` : ''} | ${send.cpu}; load ${load()} |`);
          }
        } finally {
          await d.stop();
        }
      }
    }
    const b1 = wrkCpu(bare.child.pid!, bare.url, null);
    bareRates.push(b1.rps);
    rows.push(`| end | bare fastify route again | ${b1.rps.toFixed(0)} req/s | — | p99 ${b1.p99} | ${b1.cpu}; load ${load()} |`);
  } finally {
    bare.child.kill();
  }
  say('| round | request | rate | × bare (same round) | latency | notes |\n|---|---|---|---|---|---|\n' + rows.join('\n'));
  const mb = median(bareRates);
  say(`\nMedians over ${HTTP_ROUNDS} round(s): bare fastify ${mb.toFixed(0)} req/s (${bareRates.length} runs)`);
  say('| request | median rate | × median bare |\n|---|---|---|');
  for (const [k, v] of rates) say(`| ${k} | ${median(v).toFixed(0)} req/s | ${(median(v) / mb).toFixed(3)}× |`);
}

// ---------------------------------------------------------------- stall
function eml(subject: string, body: string, type = 'text/plain'): Buffer {
  return Buffer.from(`From: Bench <bench@load.test>\r\nTo: ${AGENT}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: ${type}\r\n\r\n${body}\r\n`);
}
const nestedDivs = (n: number) => '<div>'.repeat(n).match(/.{1,990}/g)!.join('\r\n');
function attachmentMessage(mb: number): Buffer {
  const data = Buffer.alloc(mb * 1024 * 1024, 7).toString('base64').match(/.{1,76}/g)!.join('\r\n');
  return Buffer.from([
    'From: Bench <bench@load.test>', `To: ${AGENT}`, 'Subject: attachment', 'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', 'Content-Type: text/plain', '', 'See attached.', '--b1',
    'Content-Type: application/octet-stream', 'Content-Transfer-Encoding: base64', 'Content-Disposition: attachment; filename="a.bin"', '',
    data, '--b1--', '',
  ].join('\r\n'));
}

/** "wall ms (CPU ms)": the event-loop delay, and the main thread's own CPU in its longest turn (stall-daemon.mjs). */
const stallCell = (wallMs: number, cpuMs: number) => `${wallMs.toFixed(1)} ms${cpuMs >= 0 ? ` (CPU ${cpuMs.toFixed(1)})` : ''}`;

async function benchStall() {
  say(`\n## Longest main-thread stall per message (event-loop delay monitor in the daemon; in brackets the main thread's CPU time in its longest turn, to a scheduler tick, which a busy machine does not inflate; load ${load()})`);
  const cases: { name: string; raw: () => Buffer; baseToo: boolean; download?: boolean; simulate?: () => object }[] = [
    { name: '2 KB text (max of 20)', raw: () => message(1), baseToo: true },
    { name: '10,000 quoted lines then text', raw: () => eml('quoted', '> quoted line\r\n'.repeat(10_000) + 'new text'), baseToo: true },
    { name: '<div> × 100,000 (0.5 MB)', raw: () => eml('divs', nestedDivs(100_000), 'text/html'), baseToo: true },
    // The base (main since the worker pool) cuts it short at the pool's budget: seconds, not the issue's 50 s.
    { name: '<div> × 400,000 (2 MB)', raw: () => eml('divs', nestedDivs(400_000), 'text/html'), baseToo: true },
    { name: '10 MB attachment', raw: () => attachmentMessage(10), baseToo: true, download: true },
    // 29 MB base64-encoded with line breaks: 41.6 MB, just under the default SMTP cap (40 MiB).
    { name: '29 MB attachment (41.6 MB message, at the SMTP cap)', raw: () => attachmentMessage(29), baseToo: true, download: true },
    // The simulator's body_html is at most 1,000,000 characters: built into MIME on the daemon.
    {
      name: 'POST /v1/test/inbound, body_html <div> × 199,999 (1 MB)', raw: () => Buffer.alloc(0), baseToo: true,
      simulate: () => ({ agent: 'agent', from: 'bench@load.test', subject: 'divs', body_html: '<div>'.repeat(199_999) }),
    },
  ];
  const results: Record<string, Record<string, string>> = {};
  for (const b of builds) {
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-stall-'));
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'tools', 'stall-daemon.mjs'), join(b.root, 'dist'), dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const next = () => new Promise<string>((r) => lines.once('line', r));
    const ready = JSON.parse(await next()) as { smtp: string; http: string; liveKey: string; testKey?: string };
    const base = ready.http.startsWith('http') ? ready.http : `http://${ready.http}`;
    const port = Number(ready.smtp.split(':').pop());
    try {
      for (const c of cases) {
        if (b.name === 'before' && !c.baseToo) {
          (results[c.name] ??= {})[b.name] = 'not run (≈50 s: the issue\'s figure)';
          continue;
        }
        const reps = c.name.startsWith('2 KB') ? 20 : 1;
        let worst = 0;
        let worstCpu = -1;
        let lastId: string | null = null;
        for (let i = 0; i < reps; i++) {
          let reply: string;
          let took: number;
          const t0 = performance.now();
          if (c.simulate) {
            const body = JSON.stringify(c.simulate());
            child.stdin!.write('reset\n');
            const r = await fetch(`${base}/v1/test/inbound`, { method: 'POST', body, headers: { authorization: `Bearer ${ready.testKey}`, 'content-type': 'application/json' } });
            const text = await r.text();
            reply = r.status === 201 ? `250 ${JSON.parse(text).message_id}` : `${r.status} ${text.slice(0, 200)}`;
            took = performance.now() - t0;
          } else {
            const conn = await SmtpPipe.open(port);
            child.stdin!.write('reset\n');
            reply = await conn.send('bench@load.test', [AGENT], c.raw());
            took = performance.now() - t0;
            await conn.quit();
          }
          await sleep(50);
          // Answered once the message is processed (stall-daemon.mjs): stalls after the 250 count too.
          child.stdin!.write('report\n');
          const { maxMs, maxCpuMs } = JSON.parse(await next()) as { maxMs: number; maxCpuMs?: number | null };
          const stored = performance.now() - t0;
          worst = Math.max(worst, maxMs);
          worstCpu = Math.max(worstCpu, maxCpuMs ?? -1);
          if (!reply.startsWith('250')) say(`  ${b.name} ${c.name}: ${reply}`);
          lastId = /rcv_[0-9a-z]+/.exec(reply)?.[0] ?? null;
          if (reps === 1) (results[c.name] ??= {})[b.name + ':took'] = `${took.toFixed(0)} ms to 250, ≤ ${stored.toFixed(0)} ms to stored`;
        }
        (results[c.name] ??= {})[b.name] = stallCell(worst, worstCpu);
        if (c.download && lastId) {
          // The downloads of what was just stored: GET raw, then the attachment.
          child.stdin!.write('reset\n');
          const auth = { headers: { authorization: `Bearer ${ready.liveKey}` } };
          const t0 = performance.now();
          const raw = await (await fetch(`${base}/v1/messages/${lastId}/raw`, auth)).arrayBuffer();
          const msg = await (await fetch(`${base}/v1/messages/received/${lastId}`, auth)).json() as { attachments: { id: string }[] };
          const att = await (await fetch(`${base}/v1/messages/${lastId}/attachments/${msg.attachments[0].id}`, auth)).arrayBuffer();
          const took = performance.now() - t0;
          child.stdin!.write('report\n');
          const { maxMs, maxCpuMs } = JSON.parse(await next()) as { maxMs: number; maxCpuMs?: number | null };
          const row = (results[`${c.name}: GET raw + GET attachment`] ??= {});
          row[b.name] = stallCell(maxMs, maxCpuMs ?? -1);
          row[b.name + ':took'] = `${(raw.byteLength / 1e6).toFixed(1)} + ${(att.byteLength / 1e6).toFixed(1)} MB in ${took.toFixed(0)} ms`;
        }
      }
    } finally {
      child.stdin!.write('stop\n');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }
  }
  say('| message | ' + builds.map((b) => b.name).join(' | ') + ' |\n|---|' + builds.map(() => '---|').join(''));
  for (const [name, r] of Object.entries(results)) {
    say(`| ${name} | ${builds.map((b) => `${r[b.name]}${r[b.name + ':took'] ? ` (${r[b.name + ':took']})` : ''}`).join(' | ')} |`);
  }
  say(`(load after: ${load()})`);
}

// ---------------------------------------------------------------- rss
/** The daemon's mailagent_thread_heap_bytes (builds that have it): "thread total/young MB, ...". */
async function threadHeaps(url: string): Promise<string> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text()).catch(() => '');
  const mb = (thread: string, kind: string) => {
    const m = new RegExp(`^mailagent_thread_heap_bytes\\{thread="${thread}",kind="${kind}"\\} (\\S+)$`, 'm').exec(text);
    return m ? (Number(m[1]) / 1048576).toFixed(0) : null;
  };
  const threads = [...new Set([...text.matchAll(/^mailagent_thread_heap_bytes\{thread="([^"]+)"/gm)].map((m) => m[1]))];
  return threads.length ? threads.map((t) => `${t} ${mb(t, 'total')}/${mb(t, 'young')}`).join(', ') : 'n/a';
}

/**
 * The node settings of contrib/systemd/mailagent.service and the Dockerfile (RSS_LAUNCHER=1 adds a
 * row with them): V8 reads them when it starts, so a plain `mailagent serve` has not got them.
 */
const LAUNCHER_ENV = { NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2' };

/** smtp-source -d as in smtpSource, without blocking this process (the RSS sampler keeps running). */
function smtpSourceAsync(port: number, messages: number): Promise<number | null> {
  const child = spawn(SMTP_SOURCE, ['-s', '8', '-l', '2048', '-m', String(messages), '-f', 'bench@load.test', '-t', AGENT, '-M', 'load.test', '-d',
    `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'ignore'], timeout: 600_000 });
  return new Promise((res) => child.on('exit', (code) => res(code)));
}

async function benchRss() {
  const n = Number(process.env.RSS_MESSAGES ?? 100_000);
  const idleSecs = Number(process.env.RSS_IDLE_SECS ?? 30);
  say(`\n## Daemon RSS after ${n} inbound messages (smtp-source -d, 8 sessions, 2 KB; load ${load()})`);
  say('Heaps per thread: V8 heap total / of it new space, MB, from mailagent_thread_heap_bytes.');
  // Each build plain (`mailagent serve` as the README's quickstart runs it), then with the unit's
  // and the Dockerfile's node settings (RSS_LAUNCHER=1), alternating the builds.
  const rowEnv: Record<string, string> = Object.fromEntries((process.env.RSS_ROW_ENV ?? '').split(/\s+/).filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  // RSS_BUILDS='label=DIR[,K=V…];…': these builds instead (e.g. one per lever, each beside the one without it).
  const listed = (process.env.RSS_BUILDS ?? '').split(';').filter((x) => x.includes('=')).map((x) => {
    const [head, ...kv] = x.trim().split(',');
    const label = head.slice(0, head.indexOf('='));
    return { name: 'listed', root: resolve(head.slice(head.indexOf('=') + 1)), label, env: Object.fromEntries(kv.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) };
  });
  const set = listed.length ? listed : [
    ...builds.map((b) => ({ ...b, label: b.name, env: {} as Record<string, string> })),
    ...(Object.keys(rowEnv).length ? builds.map((b) => ({ ...b, label: `${b.name} + ${process.env.RSS_ROW_ENV!.trim()}`, env: rowEnv })) : []),
    ...(process.env.RSS_LAUNCHER === '1' ? builds.map((b) => ({ ...b, label: `${b.name} + launcher settings`, env: LAUNCHER_ENV })) : []),
  ];
  const runs = Array.from({ length: Number(process.env.RSS_ROUNDS ?? 1) }, () => set).flat();
  for (const b of runs) {
    if (b.name === 'before' && process.env.RSS_BASE !== '1') continue;
    const d = await serve(b.root, undefined, b.env);
    try {
      scaleWorkspace(d.dataDir);
      const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${d.pid}/status`, 'utf8'))![1]) / 1024;
      const start = rss();
      // CPU time of the whole daemon (every thread) per message: the rate alone is noise on a shared machine.
      const cpuMs = () => { const f = readFileSync(`/proc/${d.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
      const cpu0 = cpuMs();
      // RSS once a second while mail flows: a heap's size at one instant depends on where it is in
      // its GC cycle, so the peak and the mean say more than the end sample alone.
      const samples: number[] = [];
      const sampler = setInterval(() => samples.push(rss()), 1000);
      const t0 = performance.now();
      // In rounds of at most 5,000, each processed before the next: acknowledgements run ahead of
      // processing, and past smtpMaxQueuedMessages (10,000) MAIL FROM answers 451, at which
      // smtp-source gives up. The rate is over the whole run, rounds included.
      let sent = 0;
      let done = { secs: 0 };
      const curve: string[] = [];
      while (sent < n) {
        const round = Math.min(5_000, n - sent);
        await smtpSourceAsync(d.smtpPort, round);
        sent += round;
        done = await untilStored(d.dataDir, sent, t0, (performance.now() - t0) + 600_000);
        if (sent % 20_000 === 0 || sent === n) curve.push(`${sent / 1000}k ${rss().toFixed(0)}`);
      }
      const cpuPerMsg = (cpuMs() - cpu0) / n;
      clearInterval(sampler);
      const peak = Math.max(...samples);
      const mean = samples.reduce((x, y) => x + y, 0) / Math.max(1, samples.length);
      await sleep(2000);
      const c = counts(d.dataDir);
      const after = rss();
      // Anonymous (heaps, malloc arenas, stacks) vs file-backed (node's code, mapped libraries).
      const rollup = readFileSync(`/proc/${d.pid}/smaps_rollup`, 'utf8');
      const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
      const split = `${kb('Anonymous').toFixed(0)} anonymous + ${(kb('Rss') - kb('Anonymous')).toFixed(0)} file-backed`;
      const heaps = await threadHeaps(d.url);
      await sleep(idleSecs * 1000);
      say(`| mailagent ${b.label} | RSS ${start.toFixed(0)} MB at start → ${after.toFixed(0)} MB after ${n} messages (${split}) → ${rss().toFixed(0)} MB ${idleSecs} s later | ${(n / done.secs).toFixed(0)} msg/s acknowledged and processed, ${cpuPerMsg.toFixed(2)} ms CPU per message | stored ${c.stored}, events ${c.events} | RSS on the way (MB): ${curve.join(', ')}; while mail flowed: peak ${peak.toFixed(0)}, mean ${mean.toFixed(0)} | heaps: ${heaps}; ${idleSecs} s later: ${await threadHeaps(d.url)} | load ${load()} |`);
    } finally {
      await d.stop();
    }
  }
}

// ---------------------------------------------------------------- list
/**
 * The lists clients page through, each as a path (LIST_ENDPOINTS). `{agent}` is the agent's id.
 * Filters chosen so that some match most rows (the plain lists, `is:unread`, two common event
 * types), one matches 1 % at either size (a word in 1 % of the sent subjects: also its second page of 2,
 * and on received mail, where it is in none, and the threads holding it; `nowhere` is in no message), and some match the
 * same few rows at either size (a label, a status, the trash, `is:read`, rare event types: see
 * bulkCopy): a list that walks an index in page order and filters as it goes reads every row for
 * those. `&page=n`: the nth page through the cursors (threads page 50: a cursor deep in the list).
 */
const LIST_ENDPOINTS = [
  '/v1/messages/received?limit=20',
  '/v1/messages/received?limit=20&page=2',
  '/v1/messages/received?limit=20&agent_id={agent}',
  '/v1/messages/received?limit=20&q=is:unread',
  '/v1/messages/received?limit=20&q=is:read',
  '/v1/messages/received?limit=20&q=has:attachment',
  '/v1/messages/received?limit=20&q=intent:verification_code',
  '/v1/threads?limit=20',
  '/v1/threads?limit=20&page=2',
  '/v1/threads?limit=20&page=50',
  '/v1/threads?limit=20&label=bench',
  '/v1/threads?limit=20&status=archived',
  '/v1/threads?limit=20&trashed=true',
  '/v1/threads?limit=20&q=has:attachment',
  '/v1/threads?limit=20&q=intent:verification_code',
  '/v1/messages?limit=20',
  '/v1/messages?limit=20&page=2',
  '/v1/messages?limit=20&q=zebra',
  '/v1/messages?limit=2&q=zebra&page=2',
  '/v1/messages?limit=20&q=nowhere',
  '/v1/messages/received?limit=20&q=zebra',
  '/v1/threads?limit=20&q=zebra',
  '/v1/events?limit=20',
  '/v1/events?limit=20&page=2',
  '/v1/events?limit=20&event_type=message.received',
  '/v1/events?limit=20&event_type=message.sent,message.received',
  '/v1/events?limit=20&event_type=thread.updated',
  '/v1/events?limit=20&event_type=thread.updated,agent.created',
];
/** Event types the bulk copy does not copy (a rare filter): see bulkCopy. */
const RARE_EVENTS = ['thread.updated', 'agent.created'];
const LIST_N = Number(process.env.LIST_REQUESTS ?? 200);
const LIST_SECS = Number(process.env.LIST_SECS ?? 20);

/** `&page=n`: the nth page, through each page's next_cursor from the first (what a client paging does). */
async function listUrl(url: string, key: string, path: string, agent: string): Promise<string> {
  const p = path.replace('{agent}', agent);
  const m = /&page=(\d+)$/.exec(p);
  if (!m) return url + p;
  const first = p.slice(0, m.index);
  let target = url + first;
  for (let n = 1; n < Number(m[1]); n++) {
    const body = await fetch(target, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json()) as { next_cursor?: string };
    target = `${url}${first}&cursor=${body.next_cursor}`;
  }
  return target;
}

/** p50 of LIST_N sequential GETs of each list (after 20 unmeasured ones; fewer past LIST_SECS), ms; and the rows of one answer and how many were timed. */
async function listP50s(url: string, key: string, agent: string): Promise<Map<string, { p50: number; rows: number; status: number; n: number }>> {
  const out = new Map<string, { p50: number; rows: number; status: number; n: number }>();
  for (const path of LIST_ENDPOINTS) {
    const target = await listUrl(url, key, path, agent);
    const lat: number[] = [];
    let rows = 0;
    let status = 0;
    // LIST_N requests, or as many as fit in LIST_SECS (20) once 10 are measured: a list that reads
    // every row takes seconds per request at 1,000,000.
    const until = performance.now() + LIST_SECS * 1000;
    for (let i = 0; i < LIST_N + 20 && (i < 30 || performance.now() < until); i++) {
      const t0 = performance.now();
      const r = await fetch(target, { headers: { authorization: `Bearer ${key}` } });
      const body = await r.json() as { data?: unknown[] };
      if (i >= 20) lat.push(performance.now() - t0);
      rows = body.data?.length ?? -1;
      status = r.status;
    }
    lat.sort((a, b) => a - b);
    out.set(path, { p50: lat[Math.floor(lat.length / 2)], rows, status, n: lat.length });
  }
  return out;
}

/**
 * The 1,000 stored messages the lists start from, through the real paths: 500 received over SMTP
 * (smtp-source), 500 test-mode sends (POST /v1/messages; 1 in 100 has "zebra" in its subject);
 * then 1 % of the threads labelled, 1 % archived, 1 % trashed, 1 % of the received mail read.
 */
async function seedLists(d: Running): Promise<void> {
  scaleWorkspace(d.dataDir);
  const h = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const sent = performance.now();
  smtpSource(d.smtpPort, 495, true, sent);
  // 5 more with an attachment, each a verification code (`has:attachment`, `intent:verification_code`).
  const pipe = await SmtpPipe.open(d.smtpPort);
  for (let i = 0; i < 5; i++) await pipe.send('security@load.test', [AGENT], Buffer.from(codeMail(i)));
  await pipe.quit();
  await untilStored(d.dataDir, 500, sent);
  for (let i = 0; i < 500; i++) {
    const r = await fetch(`${d.url}/v1/messages`, {
      method: 'POST', headers: h(d.testKey),
      body: JSON.stringify({ to: [`customer${i}@example.com`], subject: `${i % 100 === 0 ? 'zebra ' : ''}order ${i}`, text: `Hello, your order ${i} has shipped.` }),
    });
    if (r.status !== 201 && r.status !== 200) throw new Error(`send ${i}: ${r.status} ${await r.text()}`);
  }
  await fetch(`${d.url}/v1/labels`, { method: 'POST', headers: h(d.liveKey), body: JSON.stringify({ name: 'bench' }) });
  const threads = await fetch(`${d.url}/v1/threads?limit=100`, { headers: h(d.liveKey) }).then((r) => r.json()) as { data: { id: string }[] };
  for (const [i, t] of threads.data.slice(0, 30).entries()) {
    if (i < 10) await fetch(`${d.url}/v1/threads/${t.id}`, { method: 'PATCH', headers: h(d.liveKey), body: JSON.stringify({ labels: ['bench'] }) });
    else if (i < 20) await fetch(`${d.url}/v1/threads/${t.id}`, { method: 'PATCH', headers: h(d.liveKey), body: JSON.stringify({ status: 'archived' }) });
    else await fetch(`${d.url}/v1/threads/${t.id}/trash`, { method: 'POST', headers: h(d.liveKey) });
  }
  const received = await fetch(`${d.url}/v1/messages/received?limit=5`, { headers: h(d.liveKey) }).then((r) => r.json()) as { data: { id: string }[] };
  for (const m of received.data) await fetch(`${d.url}/v1/messages/received/${m.id}/read`, { method: 'POST', headers: h(d.liveKey), body: '{}' });
}

/** A verification code with a PDF attached (the classifier calls it `verification_code`). */
function codeMail(i: number): string {
  return ['From: Acme Security <no-reply@load.test>', `To: ${AGENT}`, `Subject: Your verification code ${i}`, `Message-ID: <code${i}@load.test>`,
    'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', 'Content-Type: text/plain', '',
    `Your verification code is 48291${i}. It expires in 10 minutes. If you did not request this code, ignore this email.`,
    '--b1', 'Content-Type: application/pdf; name="code.pdf"', 'Content-Disposition: attachment; filename="code.pdf"',
    'Content-Transfer-Encoding: base64', '', 'JVBERi0xLjQKJSBmYWtlCg==', '--b1--', ''].join('\r\n');
}

/** The agent the SMTP mail went to (the agent_id filter's value). */
function listAgent(dataDir: string): string {
  const db = new Database(join(dataDir, 'mailagent.db'), { readonly: true });
  const r = db.prepare("select agent_id from received_messages where id >= 'rcv_01' limit 1").get() as { agent_id: string };
  db.close();
  return r.agent_id;
}

/**
 * The bulk path to 1,000× the rows: each stored row of the lists' tables copied 999 times in SQL,
 * whole, with the copy number in its ids (`rcv_0` + 4 digits + the rest of the original's id: they sort before
 * every original, i.e. older) and in its timestamps' year (copy k in year 1000 + k): the copies
 * keep the originals' order and are older than them. Ids that join (thread_id) are rewritten
 * alike. The triggers queue each copied message for the search index, which is then written in
 * batches by the daemon's own indexer SQL (db/search-index-sql.ts indexPendingBatch). Committed in
 * chunks with a rollback journal, not WAL (an 8 GB WAL the first time).
 */
async function bulkCopy(dataDir: string): Promise<{ secs: number; counts: Record<string, number> }> {
  const { indexPendingBatch } = await import('../src/db/search-index-sql.js');
  const t0 = performance.now();
  const db = new Database(join(dataDir, 'mailagent.db'));
  db.pragma('journal_mode = delete');
  db.pragma('synchronous = off');
  db.pragma('cache_size = -262144');
  const tables = ['received_messages', 'sent_messages', 'threads', 'events'] as const;
  // Each table's id prefix (through its "_": rcv_, msg_, thrd_, evt_): copies are prefix + '0' + k.
  const prefixOf = Object.fromEntries(tables.map((t) => [t, (db.prepare(`select substr(id, 1, instr(id, '_')) p from ${t} limit 1`).get() as { p: string }).p]));
  // The copies are plain: unlabelled, open, not trashed, unread; the rare event types are not
  // copied. So those filters match as many rows at 1,000,000 as at 1,000 (a few threads labelled
  // among a million), where a list that filters while it walks the page order reads every row.
  const plain: Record<string, string> = {
    'threads.labels': `'[]'`, 'threads.status': `'open'`, 'threads.trashed_at': 'null', 'received_messages.read_at': 'null',
    // Attachments are not copied (received_attachments is not among the tables); the intent the
    // 5 mails with one have is not either, so `intent:verification_code` matches those 5 at 1,000,000 too.
    'received_messages.classification': `case when json_extract("classification", '$.intent') = 'verification_code' then json_set("classification", '$.intent', 'unclassified') else "classification" end`,
    // Nor their flag (migration 0031's column, now present when the seed is made): else
    // `has:attachment` matches 5,000 rows at 1,000,000 (round 2 session 12's run did).
    'received_messages.has_attachments': '0', 'sent_messages.has_attachments': '0',
  };
  const sqlOf = (table: string) => {
    const cols = (db.prepare(`pragma table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    const expr = cols.map((c) => plain[`${table}.${c}`] ?? (c === 'id' || c === 'thread_id' ? `substr("${c}", 1, instr("${c}", '_')) || '0' || printf('%04d', @k) || substr("${c}", instr("${c}", '_') + 1)`
      : c.endsWith('_at') ? `printf('%04d', 1000 + @k) || substr("${c}", 5)` : `"${c}"`));
    const prefix = prefixOf[table];
    return db.prepare(`insert into ${table} (${cols.map((c) => `"${c}"`).join(', ')}) select ${expr.join(', ')} from ${table} where id >= '${prefix}01'${table === 'events' ? ` and type not in (${RARE_EVENTS.map((t) => `'${t}'`).join(', ')})` : ''}`);
  };
  // Only the originals are copied (ids from prefix + '01'; every copy sorts before them): a copy
  // copied again would double the table at every step.
  const originals = Object.fromEntries(tables.map((t) => [t, (db.prepare(`select count(*) n from ${t} where id >= '${prefixOf[t]}01'`).get() as { n: number }).n]));
  for (const t of tables) if (!originals[t]) throw new Error(`bulk copy: no ${t} rows with ids from ${prefixOf[t]}01`);
  const stmts = tables.map(sqlOf);
  const copies = Number(process.env.LIST_COPIES ?? 999);
  for (let k = 1; k <= copies; k += 50) {
    db.transaction(() => { for (let j = k; j <= Math.min(copies, k + 49); j++) for (const s of stmts) s.run({ k: j }); })();
  }
  const direct = { get: (s: string, p: readonly unknown[]) => db.prepare(s).get(...p), all: (s: string, p: readonly unknown[]) => db.prepare(s).all(...p), run: (s: string, p: readonly unknown[]) => db.prepare(s).run(...p).changes };
  while (db.transaction(() => indexPendingBatch(direct, 50_000))() > 0);
  db.pragma('journal_mode = wal');
  const counts = Object.fromEntries(tables.map((t) => [t, (db.prepare(`select count(*) n from ${t}`).get() as { n: number }).n]));
  const rare = `type in (${RARE_EVENTS.map((t) => `'${t}'`).join(', ')})`;
  for (const t of tables) {
    const copied = originals[t] - (t === 'events' ? (db.prepare(`select count(*) n from events where id >= '${prefixOf[t]}01' and ${rare}`).get() as { n: number }).n : 0);
    const made = (db.prepare(`select count(*) n from ${t} where id < '${prefixOf[t]}01'`).get() as { n: number }).n;
    if (made !== copied * copies) throw new Error(`bulk copy: ${t} has ${made} copies, not ${copied} × ${copies}`);
  }
  db.close();
  return { secs: (performance.now() - t0) / 1000, counts };
}

function printListTable(results: Map<string, Map<string, { p50: number; rows: number; status: number; n: number }>>) {
  const cols = builds.flatMap((b) => [`${b.name} 1k`, `${b.name} 1M`]);
  say(`\n| list | ${cols.join(' | ')} | ${builds.map((b) => `${b.name} 1M/1k`).join(' | ')} |\n|---|${cols.map(() => '---|').join('')}${builds.map(() => '---|').join('')}`);
  for (const path of LIST_ENDPOINTS) {
    const cell = (k: string) => { const r = results.get(k)?.get(path); return r ? `${r.p50.toFixed(2)} ms (${r.status === 200 ? `${r.rows} rows` : `HTTP ${r.status}`}${r.n < LIST_N ? `, ${r.n} timed` : ''})` : '—'; };
    const ratio = (b: string) => { const s = results.get(`${b} 1k`)?.get(path); const l = results.get(`${b} 1M`)?.get(path); return s && l ? `${(l.p50 / s.p50).toFixed(2)}×` : '—'; };
    say(`| \`${path.replace('/v1', '')}\` | ${cols.map(cell).join(' | ')} | ${builds.map((b) => ratio(b.name)).join(' | ')} |`);
  }
}

async function benchList() {
  say(`\n## Lists at 1,000 vs 1,000,000 stored messages: p50 of ${LIST_N} sequential GETs each, fewer past ${LIST_SECS} s (load ${load()})`);
  // The seed is made by the oldest build given (the newer one migrates a copy forward; an older
  // build refuses a database a newer one migrated).
  const seeder = builds[builds.length - 1];
  const home = mkdtempSync(join(tmpdir(), 'mailagent-list-'));
  const dataDir = join(home, 'data');
  const results = new Map<string, Map<string, { p50: number; rows: number; status: number; n: number }>>();
  const measure = async (b: { name: string; root: string }, dir: string, size: string, keys: { live: string; test: string }, agent: string) => {
    const t0 = performance.now();
    const d = await serve(b.root, dir);
    const startSecs = (performance.now() - t0) / 1000;
    try {
      results.set(`${b.name} ${size}`, await listP50s(d.url, keys.live, agent));
      say(`- ${b.name} at ${size}: started in ${startSecs.toFixed(1)} s (migrations included); load ${load()}`);
    } finally {
      await d.stop();
    }
  };
  try {
    if (process.env.LIST_SEEDED) {
      // A data dir seeded by an earlier run (LIST_KEEP=1), on the oldest build's schema: the
      // 1,000,000 rows only, each build in turn, with a key made for this run.
      const seeded = join(process.env.LIST_SEEDED, 'data');
      const keyMaker = builds.find((b) => b.name === process.env.LIST_BUILD) ?? seeder;
      const made = spawnSync(process.execPath, [join(keyMaker.root, 'bin', 'mailagent'), 'admin', 'keys', 'create', '--mode', 'live', '--scopes', 'read', '--data-dir', seeded], { encoding: 'utf8' });
      const live = /mk_live_[0-9a-f]+/.exec(made.stdout + made.stderr)?.[0];
      if (!live) throw new Error(`admin keys create: ${made.stdout}${made.stderr}`);
      // LIST_BUILD=before|after: that build only (a seeded dir the newer build migrated cannot be opened by the older one).
      for (const b of [...builds].reverse().filter((x) => !process.env.LIST_BUILD || x.name === process.env.LIST_BUILD)) await measure(b, seeded, '1M', { live, test: '' }, listAgent(seeded));
      printListTable(results);
      return;
    }
    const d = await serve(seeder.root, dataDir);
    const keys = { live: d.liveKey, test: d.testKey };
    await seedLists(d);
    await d.stop();
    const agent = listAgent(dataDir);
    if (process.env.LIST_SEED_ONLY === '1') {
      // Only the 1,000,000 rows, on the oldest build's schema, for LIST_SEEDED runs (kept).
      const seed = await bulkCopy(dataDir);
      say(`- bulk copy: ${seed.secs.toFixed(0)} s; rows: ${Object.entries(seed.counts).map(([t, n]) => `${t} ${n.toLocaleString('en')}`).join(', ')}; seeded: ${home}`);
      process.env.LIST_KEEP = '1';
      return;
    }
    // 1,000: each build on its own copy (the seeder's copy is kept on its schema for the bulk copy).
    for (const b of builds) {
      const dir = join(home, `small-${b.name}`);
      spawnSync('cp', ['-a', dataDir, dir]);
      await measure(b, dir, '1k', keys, agent);
    }
    const seed = await bulkCopy(dataDir);
    say(`- bulk copy: ${seed.secs.toFixed(0)} s; rows: ${Object.entries(seed.counts).map(([t, n]) => `${t} ${n.toLocaleString('en')}`).join(', ')}`);
    // 1,000,000: the oldest build first (a newer one then migrates the same file forward).
    for (const b of [...builds].reverse()) await measure(b, dataDir, '1M', keys, agent);
    printListTable(results);
  } finally {
    if (process.env.LIST_KEEP !== '1') rmSync(home, { recursive: true, force: true });
    else say(`(kept: ${home})`);
  }
}

say(`pipeline bench: node ${process.version}, builds: ${builds.map((b) => `${b.name}=${b.root}`).join(', ')}; load ${load()} at start`);
if (ONLY.includes('smtp')) await benchSmtp();
if (ONLY.includes('p99')) await benchP99();
if (ONLY.includes('http')) await benchHttp();
if (ONLY.includes('stall')) await benchStall();
if (ONLY.includes('rss')) await benchRss();
if (ONLY.includes('list')) await benchList();
say(`\nload at end: ${load()}`);
