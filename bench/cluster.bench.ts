/**
 * Scale-out benchmark (not a test): the same load on
 *   (a) one daemon on SQLite (the default), and
 *   (b) two daemons on one PostgreSQL (docs/scale-out.md), the load split across both,
 * on the same machine, each daemon a real `mailagent serve` process. Load: SMTP ingest over
 * persistent sessions, then test-mode sends over HTTP. Prints msgs/s, what was stored (nothing
 * may be lost) and the load average beside each figure.
 * Run: npm run build && npx tsx bench/cluster.bench.ts [--quick] [--only sqlite|postgres]
 *
 * Before/after in one run: `--baseline DIR` runs this bench (this checkout's load and
 * measurement code) against the build in DIR (another worktree, built with `npm run build`) and
 * then against this checkout's build, one after the other, each in a child process
 * (MAILAGENT_BUILD_ROOT, test/helpers/daemon.ts). On PostgreSQL it also prints what the re-runs
 * were: the mailagent_db_* counters of each daemon (builds that have them) and the statements
 * PostgreSQL's log names for its serialization failures and deadlocks.
 */
import { loadavg, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { BUILD_ROOT, ROOT, isolatedEnv, runCli, startDaemon, type TestDaemon } from '../test/helpers/daemon.js';
import { adminQuery, databaseUrl, postgresUnavailable, startPostgres } from '../test/helpers/postgres.js';
import { SmtpPipe } from '../test/integration/inbound/smtp-client.js';

const QUICK = process.argv.includes('--quick');
const argValue = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ONLY = argValue('--only');
const BASELINE = argValue('--baseline');
const SESSIONS = 8;
const PER_SESSION = QUICK ? 25 : 100;
const SENDS = QUICK ? 100 : 400;
const SEND_CONCURRENCY = 16;
const TO = 'agent@local.mailagent.localhost';

const smtpPort = (d: TestDaemon) => Number(/SMTP [^\s:]+:(\d+)/.exec(d.stderr())![1]);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

function message(i: number, tag: string): Buffer {
  const body = `Bench message ${i}. `.repeat(40 + (i % 200));
  return Buffer.from([
    `From: Sender ${i % 50} <s${i % 50}@bench.test>`, `To: ${TO}`, `Subject: ${tag} ${i}`,
    `Message-ID: <${tag}-${i}-${Date.now()}@bench.test>`, 'Date: Thu, 01 Jan 2026 00:00:00 +0000', 'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8', '', body, '',
  ].join('\r\n'));
}

async function smtpLoad(daemons: TestDaemon[], tag: string): Promise<{ rate: number; ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: SESSIONS }, async (_, s) => {
    const c = await SmtpPipe.open(smtpPort(daemons[s % daemons.length]));
    for (let k = 0; k < PER_SESSION; k++) {
      const reply = await c.send(`s${s}@bench.test`, [TO], message(s * PER_SESSION + k, tag));
      if (reply.startsWith('250')) ok++;
      else failed++;
    }
    await c.quit();
  }));
  return { rate: ok / ((performance.now() - t0) / 1000), ok, failed };
}

async function sendLoad(daemons: TestDaemon[], key: string, tag: string): Promise<{ rate: number; ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: SEND_CONCURRENCY }, async () => {
    for (let i = next++; i < SENDS; i = next++) {
      const d = daemons[i % daemons.length];
      const res = await fetch(`${d.url}/v1/messages`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'agent', to: 'someone@example.com', subject: `${tag} ${i}`, body_text: 'Your receipt for order 1234.' }),
      });
      await res.arrayBuffer();
      if (res.status === 201) ok++;
      else failed++;
    }
  }));
  return { rate: ok / ((performance.now() - t0) / 1000), ok, failed };
}

async function stored(d: TestDaemon, key: string, path: string, tag: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  for (;;) {
    const res = await fetch(`${d.url}${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
    const page = await res.json() as { data: { subject: string }[]; has_more: boolean; next_cursor?: string };
    n += page.data.filter((m) => m.subject.startsWith(tag)).length;
    if (!page.has_more) return n;
    cursor = page.next_cursor;
  }
}

/**
 * CPU seconds used so far by these processes and, for a PostgreSQL server, by its backends
 * (children of the postmaster, live or exited): a figure per message that the rest of a shared
 * machine's load changes far less than a rate.
 */
function cpuSeconds(pids: number[], postmaster: number | null): { daemons: number; pg: number } {
  const ticks = (pid: number, withChildren: boolean) => {
    try {
      const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      // fields 14-17 of stat (utime stime cutime cstime), counted after "pid (comm) state"
      return Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0);
    } catch {
      return 0;
    }
  };
  const daemons = pids.reduce((a, p) => a + ticks(p, false), 0);
  let t = 0;
  if (postmaster) {
    t += ticks(postmaster, true);
    for (const e of readdirSync('/proc')) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const st = readFileSync(`/proc/${e}/stat`, 'utf8');
        if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) t += ticks(Number(e), false);
      } catch { /* gone */ }
    }
  }
  return { daemons: daemons / 100, pg: t / 100 }; // USER_HZ
}

/** stored(), polled until `expected` are there (the other daemon's queue may still be processing) or 120 s passed. */
async function storedAll(d: TestDaemon, key: string, path: string, tag: string, expected: number): Promise<number> {
  const end = Date.now() + 120_000;
  for (;;) {
    const n = await stored(d, key, path, tag);
    if (n >= expected || Date.now() > end) return n;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function measure(label: string, daemons: TestDaemon[], keys: { live: string; test: string }, postmaster: number | null = null): Promise<void> {
  const warm = await smtpLoad(daemons, 'warm'); // JIT, classifier tables
  const pids = daemons.map((d) => d.child.pid!);
  // The queue of the warm-up is processed before the measured run starts.
  await storedAll(daemons[0], keys.live, '/v1/messages/received', 'warm', warm.ok);
  const before = load();
  const cpu0 = cpuSeconds(pids, postmaster);
  const t0 = performance.now();
  const smtp = await smtpLoad(daemons, 'inb');
  const afterSmtp = load();
  // Processing after the 250s (inbound queue) is part of a message's cost: counted until stored.
  const inbound = await storedAll(daemons[0], keys.live, '/v1/messages/received', 'inb', smtp.ok);
  const storedRate = inbound / ((performance.now() - t0) / 1000);
  const cpu1 = cpuSeconds(pids, postmaster);
  const sends = await sendLoad(daemons, keys.test, 'out');
  const afterSends = load();
  const cpu2 = cpuSeconds(pids, postmaster);
  const outbound = await stored(daemons[daemons.length - 1], keys.test, '/v1/messages', 'out');
  console.log(`${label}`);
  console.log(`  SMTP ingest: ${smtp.rate.toFixed(1)} msg/s (${smtp.ok} accepted, ${smtp.failed} refused; ${inbound} stored)   load avg ${before} → ${afterSmtp}`);
  console.log(`  SMTP ingest until stored (first MAIL FROM to the last message processed, read back through the API): ${storedRate.toFixed(1)} msg/s`);
  console.log(`  test-mode sends: ${sends.rate.toFixed(1)} msg/s (${sends.ok} created, ${sends.failed} refused; ${outbound} stored)   load avg → ${afterSends}`);
  const perMsg = (a: { daemons: number; pg: number }, b: { daemons: number; pg: number }, n: number) => {
    const ms = (x: number) => ((x * 1000) / Math.max(1, n)).toFixed(1);
    return postmaster ? `${ms(b.daemons + b.pg - a.daemons - a.pg)} ms (daemons ${ms(b.daemons - a.daemons)}, PostgreSQL ${ms(b.pg - a.pg)})` : `${ms(b.daemons - a.daemons)} ms`;
  };
  console.log(`  CPU per message: ingest ${perMsg(cpu0, cpu1, smtp.ok)}; send ${perMsg(cpu1, cpu2, sends.ok)}`);
}

/** The mailagent_db_* counters of a daemon, summed per kind (empty for a build without them). */
async function transactionMetrics(ds: TestDaemon[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  for (const d of ds) {
    const text = await (await fetch(`${d.url}/metrics`)).text().catch(() => '');
    for (const m of text.matchAll(/^mailagent_db_(transactions|transaction_serial_lane|transaction_failures|transaction_retries)_total\{kind="([^"]+)"(?:,reason="([^"]+)")?\} (\d+)/gm)) {
      const name = m[3] ? `${m[3]}` : { transactions: 'transactions', transaction_serial_lane: 'serial lane', transaction_failures: 'failed', transaction_retries: 'retries' }[m[1]]!;
      const row = out.get(m[2]) ?? {};
      row[name] = (row[name] ?? 0) + Number(m[4]);
      out.set(m[2], row);
    }
  }
  return out;
}

/** Serialization failures and deadlocks in PostgreSQL's log: how many per reason and failing statement. */
function conflictsInLog(file: string): { total: number; top: [string, number][] } {
  if (!existsSync(file)) return { total: 0, top: [] };
  const lines = readFileSync(file, 'utf8').split('\n');
  const counts = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    const m = /ERROR:\s+(could not serialize access due to [a-z/ ]+|deadlock detected)/.exec(lines[i]);
    if (!m) continue;
    total++;
    let detail = '';
    let statement = '';
    for (let j = i + 1; j < lines.length && j < i + 12 && !/\b(ERROR|LOG|FATAL):/.test(lines[j]); j++) {
      const d = /DETAIL:\s+(.*)/.exec(lines[j]);
      if (d) detail = d[1].replace(/Process \d+/g, 'P').replace(/transaction \d+/g, 'tx').replace(/[0-9,]+ of relation \d+/g, '').slice(0, 90);
      const st = /STATEMENT:\s+(.*)/.exec(lines[j]);
      if (st) statement = st[1].replace(/\s+/g, ' ').replace(/\$\d+(, \$\d+)*/g, '$…').slice(0, 110);
    }
    const key = `${m[1].replace('could not serialize access due to ', '')} | ${detail} | ${statement || '(at commit)'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { total, top: [...counts].sort((a, b) => b[1] - a[1]).slice(0, 10) };
}

if (BASELINE) {
  // Each build in a child process of its own (the helpers pick the build at import time).
  const builds: [string, string][] = [[`baseline (${resolve(BASELINE)})`, resolve(BASELINE)], [`this build (${ROOT})`, ROOT]];
  for (const [label, root] of builds) {
    console.log(`==== ${label}   load avg ${load()}`);
    const args = process.argv.slice(2).filter((a, i, all) => a !== '--baseline' && all[i - 1] !== '--baseline');
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], ...args], {
      stdio: 'inherit', env: { ...process.env, MAILAGENT_BUILD_ROOT: root },
    });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}

console.log(`cluster bench: SMTP ${SESSIONS} sessions × ${PER_SESSION}; ${SENDS} sends over HTTP, ${SEND_CONCURRENCY} at once; build ${BUILD_ROOT}`);
if (ONLY !== 'postgres') {
  const d = await startDaemon({ timeoutMs: 60_000 });
  try {
    await measure('one daemon, SQLite', [d], { live: d.liveKey, test: d.testKey });
  } finally {
    await d.stop();
  }
}
const missing = ONLY === 'sqlite' ? 'not asked for (--only sqlite)' : postgresUnavailable();
if (missing) {
  console.log(`two daemons, PostgreSQL: skipped (${missing})`);
} else {
  const pg = await startPostgres({ maxConnections: 100 });
  const home = mkdtempSync(join(tmpdir(), 'mailagent-cluster-bench-'));
  try {
    await adminQuery(pg.adminUrl, 'create database bench');
    const url = databaseUrl(pg.adminUrl, 'bench');
    const init = await runCli(['init', '--database', url, '--json'], { env: isolatedEnv(home), timeoutMs: 60_000 });
    if (init.code !== 0) throw new Error(init.stderr);
    const boot = init.json();
    const env = { MAILAGENT_DATABASE_URL: url };
    const ds = await Promise.all(['a', 'b'].map((n) => startDaemon({ home, dataDir: join(home, n), env, timeoutMs: 60_000 })));
    try {
      const postmaster = Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
      await measure('two daemons, one PostgreSQL (same machine)', ds, { live: boot.keys.live.key, test: boot.keys.test.key }, postmaster);
      const tx = await transactionMetrics(ds);
      if (tx.size) {
        console.log('  transactions by kind (both daemons, warm-up included): kind: transactions / serialization retries / deadlocks / serial lane / failed');
        for (const [kind, c] of [...tx].sort((a, b) => (b[1].transactions ?? 0) - (a[1].transactions ?? 0))) {
          console.log(`    ${kind}: ${c.transactions ?? 0} / ${c.serialization ?? 0} / ${c.deadlock ?? 0} / ${c['serial lane'] ?? 0} / ${c.failed ?? 0}`);
        }
      }
      const conflicts = conflictsInLog(join(pg.dir, 'server.log'));
      console.log(`  PostgreSQL log: ${conflicts.total} serialization failures / deadlocks${conflicts.top.length ? '; most frequent (reason | detail | failing statement):' : ''}`);
      for (const [k, n] of conflicts.top) console.log(`    ${n} × ${k}`);
    } finally {
      await Promise.all(ds.map((d) => d.stop()));
    }
  } finally {
    pg.stop();
    rmSync(home, { recursive: true, force: true });
  }
}
process.exit(0);
