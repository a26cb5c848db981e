/**
 * Foundation benchmark (not a test): prints figures against baselines measured in the same run.
 *   1. `mailagent --help` cold start vs `node -e 0`
 *   2. `mailagent serve` time to the ready line, on a fresh and on an existing data dir
 *   3. GET /v1/me requests/s vs a bare fastify route returning a constant (same load loop)
 * Run: npm run build && npx tsx bench/foundation.bench.ts [--quick]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mailagent');
const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 5 : 15;
const SERVE_RUNS = QUICK ? 3 : 7;
const LOAD_SECONDS = QUICK ? 3 : 8;
const CONCURRENCY = 32;

if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (n: number) => `${n.toFixed(1)} ms`;

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MAILAGENT_') && !k.startsWith('XDG_')) env[k] = v;
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
}

/** Wall time of one process run to exit. */
function timeRun(args: string[], env = process.env): Promise<number> {
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, args, { stdio: 'ignore', env, cwd: ROOT });
    c.on('error', rej);
    c.on('exit', (code) => (code === 0 ? res(Number(process.hrtime.bigint() - t0) / 1e6) : rej(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

interface Served {
  url: string;
  readyMs: number;
  stop(): Promise<void>;
}

/** Spawn a server process and wait for a line on stderr/stdout matching `ready`. */
function startProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Served> {
  return new Promise((res, rej) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: ROOT });
    let buf = '';
    const exited = new Promise<void>((r) => c.on('exit', () => r()));
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = ready.exec(buf);
      if (m) {
        const readyMs = Number(process.hrtime.bigint() - t0) / 1e6;
        c.stdout!.off('data', onData);
        c.stderr!.off('data', onData);
        c.stdout!.resume();
        c.stderr!.resume();
        res({ url: m[1], readyMs, stop: async () => { c.kill('SIGTERM'); await exited; } });
      }
    };
    c.stdout!.on('data', onData);
    c.stderr!.on('data', onData);
    c.on('exit', (code) => rej(new Error(`${args.join(' ')} exited ${code} before ready:\n${buf}`)));
  });
}

const READY = /ready: API (http:\/\/\S+)/;
const serveArgs = (dataDir: string) => [BIN, 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dataDir];

/** Closed-loop load: CONCURRENCY workers on keep-alive sockets, each sending the next request when one answers. */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const u = new URL(url);
  const one = () =>
    new Promise<number>((res, rej) => {
      const t0 = process.hrtime.bigint();
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers, agent }, (r) => {
        r.resume();
        r.on('end', () => (r.statusCode === 200 ? res(Number(process.hrtime.bigint() - t0) / 1e6) : rej(new Error(`HTTP ${r.statusCode}`))));
      });
      req.on('error', rej);
      req.end();
    });
  // Warm-up (JIT, SQLite page cache, sockets).
  const warmEnd = Date.now() + 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (Date.now() < warmEnd) await one().catch(() => {}); }));
  const lat: number[] = [];
  let errors = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        try {
          lat.push(await one());
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  return { rps: lat.length / elapsed, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

const BARE_FASTIFY = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/const', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write('bare ready: ' + 'http://127.0.0.1:' + app.server.address().port + '/const\\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

async function main(): Promise<void> {
  console.log(`mailagent foundation benchmark — node ${process.version}, ${cpus().length} CPU(s), load average ${loadavg()[0].toFixed(2)}${QUICK ? ' (quick)' : ''}\n`);
  const home = mkdtempSync(join(tmpdir(), 'mailagent-bench-'));
  const env = cleanEnv(home);
  try {
    // 1. Cold start, interleaved so background load hits both alike.
    const help: number[] = [];
    const bare: number[] = [];
    await timeRun([BIN, '--help'], env); // fill the OS file cache once
    for (let i = 0; i < RUNS; i++) {
      bare.push(await timeRun(['-e', '0'], env));
      help.push(await timeRun([BIN, '--help'], env));
    }
    console.log(`1. cold start (median of ${RUNS})`);
    console.log(`   node -e 0             ${ms(median(bare))}`);
    console.log(`   mailagent --help      ${ms(median(help))}   (+${ms(median(help) - median(bare))} over bare node)\n`);

    // 2. serve: time to the ready line.
    const fresh: number[] = [];
    const existing: number[] = [];
    for (let i = 0; i < SERVE_RUNS; i++) {
      const dir = join(home, `serve-${i}`);
      const a = await startProcess(serveArgs(dir), env, READY);
      fresh.push(a.readyMs);
      await a.stop();
      const b = await startProcess(serveArgs(dir), env, READY);
      existing.push(b.readyMs);
      await b.stop();
    }
    console.log(`2. serve: spawn → ready line (median of ${SERVE_RUNS})`);
    console.log(`   fresh data dir (migrate + bootstrap)   ${ms(median(fresh))}`);
    console.log(`   existing data dir                      ${ms(median(existing))}\n`);

    // 3. Throughput: the real daemon's GET /v1/me vs a bare fastify constant route, same loop.
    const dataDir = join(home, 'load');
    const daemon = await startProcess(serveArgs(dataDir), env, READY);
    const profile = JSON.parse(readFileSync(join(env.XDG_CONFIG_HOME!, 'mailagent', 'config.json'), 'utf8')).profiles.default;
    const bareSrv = await startProcess(['--input-type=module', '-e', BARE_FASTIFY], env, /bare ready: (http:\/\/\S+)/);
    try {
      const b = await load(bareSrv.url, {}, LOAD_SECONDS);
      const m = await load(`${daemon.url}/v1/me`, { authorization: `Bearer ${profile.test_key}` }, LOAD_SECONDS);
      console.log(`3. HTTP throughput (${CONCURRENCY} keep-alive connections, ${LOAD_SECONDS} s each, closed loop)`);
      console.log(`   bare fastify constant route   ${b.rps.toFixed(0).padStart(7)} req/s   p50 ${ms(b.p50)}  p99 ${ms(b.p99)}  errors ${b.errors}`);
      console.log(`   GET /v1/me (auth + SQLite)    ${m.rps.toFixed(0).padStart(7)} req/s   p50 ${ms(m.p50)}  p99 ${ms(m.p99)}  errors ${m.errors}`);
      console.log(`   ratio                         ${((m.rps / b.rps) * 100).toFixed(0)}% of bare fastify`);
    } finally {
      await bareSrv.stop();
      await daemon.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
