/**
 * CPU time per inbound SMTP message, per thread, of `mailagent serve` builds under Postfix
 * smtp-source (8 sessions, 2 KB), builds alternated (A B A B …) so both see the same share of a
 * shared machine. On a loaded 2-core box the message rate swings 2-4× between runs; CPU per
 * message swings far less, so A/B comparisons of ingest changes read better here.
 *
 * Per thread: utime+stime from /proc/PID/task/TID/stat (clock ticks) from just before smtp-source
 * starts to the moment every message is stored (the queue acknowledges first), divided by N.
 * The main thread (the daemon's own pid) apart, the others summed and the busiest listed.
 *
 * `--untrusted`: the daemon trusts no network (MAILAGENT_TRUSTED_NETWORKS=none), so every message
 * goes through SPF/DKIM/DMARC (the sender's domain, load.test, is a reserved name the daemon's
 * resolver answers locally: no network).
 *
 *   npx tsx bench/tools/cpu-per-message.ts [--rounds 3] [-n 3000] [--warm 1000] [--sessions 8] [-d] [--untrusted] [--prof DIR] <build root>[,MAILAGENT_X=V…] [<build root> …]
 * e.g. npx tsx bench/tools/cpu-per-message.ts --rounds 3 ../base . (each root built: dist/; ../base e.g. a `git worktree add --detach ../base main` built there)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { perThread, threadTicks as threads } from './thread-cpu.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = argv.indexOf(name); if (i === -1) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const ROUNDS = Number(opt('--rounds', '3'));
const N = Number(opt('-n', '3000'));
// Messages sent first and not counted: V8 compiles the hot code on its helper threads during the
// first ~2,000 messages (≈ 1 ms of CPU per message there at first, ≈ 0.3 ms once warm).
const WARM = Number(opt('--warm', '1000'));
const reuse = argv.includes('-d');
const untrusted = argv.includes('--untrusted');
// smtp-source's sessions at once (8 as the pipeline bench; fewer: mail arriving a few at a time).
const SESSIONS = opt('--sessions', '8');
// `--prof DIR`: each daemon writes CPU profiles of its threads there (node --cpu-prof; warm-up included).
const profDir = opt('--prof', '');
// A build root may carry settings for its daemon: `DIR,MAILAGENT_X=V[,…]` (the same build under two
// settings is then two "builds" alternated like any others).
const roots = argv.filter((a) => a !== '-d' && a !== '--untrusted').map((r) => { const [dir, ...kv] = r.split(','); return [resolve(dir), ...kv].join(','); });
const rootDir = (root: string) => root.split(',')[0];
const rootEnv = (root: string): Record<string, string> => Object.fromEntries(root.split(',').slice(1).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const label = (root: string) => [basename(rootDir(root)), ...root.split(',').slice(1)].join(' ');
if (!roots.length) throw new Error('usage: cpu-per-message.ts [--rounds R] [-n N] [-d] <build root> …');
const AGENT = 'agent@local.mailagent.localhost';
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function one(root: string): Promise<Record<string, number> & { rate: number; young: string }> {
  const home = mkdtempSync(join(tmpdir(), 'mailagent-cpm-'));
  const dir = join(home, 'data');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'xdg') };
  for (const k of Object.keys(env)) if (k.startsWith('MAILAGENT_')) delete env[k];
  if (untrusted) env.MAILAGENT_TRUSTED_NETWORKS = 'none';
  Object.assign(env, rootEnv(root));
  const child = spawn(process.execPath, [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '250'] : []), join(rootDir(root), 'bin', 'mailagent'), 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dir, '--log-level', 'silent'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const [api, port] = await new Promise<[string, number]>((res, rej) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /ready: API (\S+) · SMTP (\S+)/.exec(err);
      if (m) res([m[1], Number(m[2].split(':').pop())]);
    });
    child.on('exit', (c) => rej(new Error(`serve exited ${c}: ${err}`)));
  });
  try {
    const db = new Database(join(dir, 'mailagent.db'));
    db.pragma('busy_timeout = 5000');
    db.prepare("update workspaces set tier = 'scale', created_at = '2020-01-01T00:00:00.000Z'").run();
    const count = db.prepare('select count(*) n from received_messages');
    const send = async (n: number, stored: number) => {
      const t = performance.now();
      const src = spawn('/usr/sbin/smtp-source', ['-s', SESSIONS, '-l', '2048', '-m', String(n), '-f', 'bench@load.test', '-t', AGENT, '-M', 'load.test',
        ...(reuse ? ['-d'] : []), `127.0.0.1:${port}`], { stdio: 'ignore' });
      await new Promise((r) => src.on('exit', r));
      while ((count.get() as { n: number }).n < stored && performance.now() - t < 600_000) await sleep(20);
    };
    if (WARM) await send(WARM, WARM);
    await sleep(1000); // start-up and warm-up work (module loading, checkpoints) out of the window
    const pid = child.pid!;
    const before = threads(pid);
    const t0 = performance.now();
    await send(N, N + WARM);
    const secs = (performance.now() - t0) / 1000;
    const after = threads(pid);
    db.close();
    // main (tid = pid) and every other thread, the busiest listed as t1, t2… (thread-cpu.ts; the two
    // pool workers are usually the top two, the queue writer next).
    const per = perThread(before, after, pid, N);
    // Each thread's new space at the end (mailagent_thread_heap_bytes, builds that have it), MB.
    const metrics = await fetch(`${api}/metrics`).then((r) => r.text()).catch(() => '');
    const young = [...metrics.matchAll(/^mailagent_thread_heap_bytes\{thread="([^"]+)",kind="young"\} (\S+)$/gm)].map((m) => `${m[1]} ${(Number(m[2]) / 1048576).toFixed(0)}`).join(', ');
    return Object.assign(per, { rate: N / secs, young });
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
}

console.log(`# CPU per message, ${N} messages after ${WARM} not counted, ${SESSIONS} sessions, ${reuse ? 'reused connections (-d)' : 'new connection per message'}${untrusted ? ', no trusted network (SPF/DKIM/DMARC on)' : ''}, ${ROUNDS} rounds; load ${load()}`);
const all: Record<string, (Record<string, number> & { rate: number; young: string })[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...roots].reverse() : roots;
  for (const root of order) {
    const res = await one(root);
    (all[root] ??= []).push(res);
    const cols = Object.entries(res).filter((kv): kv is [string, number] => kv[0] !== 'rate' && kv[0] !== 'young');
    const total = res.main + res.others;
    console.log(`round ${r + 1} ${label(root)}: ${res.rate.toFixed(0)} msg/s, CPU ms/message: total ${total.toFixed(2)}, ${cols.filter(([, v]) => v >= 0.01).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}${res.young ? `; new space at the end (MB): ${res.young}` : ''} (load ${load()})`);
  }
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log('\n| build | msg/s (median) | main ms/msg | all threads ms/msg | other threads (median ms/msg) |\n|---|---|---|---|---|');
for (const root of roots) {
  const rs = all[root];
  const names = [...new Set(rs.flatMap((x) => Object.keys(x)))].filter((k) => k !== 'rate' && k !== 'young');
  const med = Object.fromEntries(names.map((k) => [k, median(rs.map((x) => (x[k] as number | undefined) ?? 0))]));
  const total = median(rs.map((x) => x.main + x.others));
  const detail = Object.entries(med).filter(([k, v]) => k !== 'main' && v >= 0.01).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
  console.log(`| ${label(root)} | ${median(rs.map((x) => x.rate)).toFixed(0)} | ${med.main.toFixed(2)} | ${total.toFixed(2)} | ${detail} |`);
}
console.log(`load at end ${load()}`);
