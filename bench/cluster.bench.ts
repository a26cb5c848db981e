/**
 * Scale-out benchmark (not a test): the same load on
 *   (a) one daemon on SQLite (the default), and
 *   (b) two daemons on one PostgreSQL (docs/scale-out.md), the load split across both,
 * on the same machine, each daemon a real `mailagent serve` process. Load: SMTP ingest over
 * persistent sessions, then test-mode sends over HTTP. Prints msgs/s, what was stored (nothing
 * may be lost) and the load average beside each figure.
 * Run: npm run build && npx tsx bench/cluster.bench.ts [--quick]
 */
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isolatedEnv, runCli, startDaemon, type TestDaemon } from '../test/helpers/daemon.js';
import { adminQuery, databaseUrl, postgresUnavailable, startPostgres } from '../test/helpers/postgres.js';
import { SmtpPipe } from '../test/integration/inbound/smtp-client.js';

const QUICK = process.argv.includes('--quick');
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

async function measure(label: string, daemons: TestDaemon[], keys: { live: string; test: string }): Promise<void> {
  await smtpLoad(daemons, 'warm'); // JIT, classifier tables
  const before = load();
  const smtp = await smtpLoad(daemons, 'inb');
  const afterSmtp = load();
  const sends = await sendLoad(daemons, keys.test, 'out');
  const afterSends = load();
  const inbound = await stored(daemons[0], keys.live, '/v1/messages/received', 'inb');
  const outbound = await stored(daemons[daemons.length - 1], keys.test, '/v1/messages', 'out');
  console.log(`${label}`);
  console.log(`  SMTP ingest: ${smtp.rate.toFixed(1)} msg/s (${smtp.ok} accepted, ${smtp.failed} refused; ${inbound} stored)   load avg ${before} → ${afterSmtp}`);
  console.log(`  test-mode sends: ${sends.rate.toFixed(1)} msg/s (${sends.ok} created, ${sends.failed} refused; ${outbound} stored)   load avg → ${afterSends}`);
}

console.log(`cluster bench: SMTP ${SESSIONS} sessions × ${PER_SESSION}; ${SENDS} sends over HTTP, ${SEND_CONCURRENCY} at once`);
{
  const d = await startDaemon({ timeoutMs: 60_000 });
  try {
    await measure('one daemon, SQLite', [d], { live: d.liveKey, test: d.testKey });
  } finally {
    await d.stop();
  }
}
const missing = postgresUnavailable();
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
      await measure('two daemons, one PostgreSQL (same machine)', ds, { live: boot.keys.live.key, test: boot.keys.test.key });
    } finally {
      await Promise.all(ds.map((d) => d.stop()));
    }
  } finally {
    pg.stop();
    rmSync(home, { recursive: true, force: true });
  }
}
process.exit(0);
