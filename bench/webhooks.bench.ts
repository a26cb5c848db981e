/**
 * Webhook delivery benchmark (not a test): `npx tsx bench/webhooks.bench.ts [--quick]`.
 *
 * A real daemon (SQLite synchronous=FULL, its own delivery worker) with one endpoint subscribed
 * to message.received (and .unauthenticated: local SMTP mail passes neither SPF nor DKIM) on a
 * local HTTP sink.
 * 1. Latency: one real SMTP message at a time (persistent session); per message, the time from
 *    the SMTP 250 (the message is accepted and on disk) to the signed webhook arriving at the
 *    sink, and from the end of DATA to the arrival (the whole path). p50/p99.
 * 2. Throughput: a backlog of message.received events, built by the inbound pipeline while the
 *    endpoint is paused, then drained by the worker once it is resumed → deliveries/s.
 * Baseline in the same run: plain keep-alive POSTs of the same bodies to the same sink with the
 * same concurrency (no database, no signing) — the ceiling the worker is compared with.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/server/config.js';
import { Daemon } from '../src/server/daemon.js';
import { createWebhook, updateWebhook } from '../src/services/webhooks.js';
import { ingestInbound } from '../src/services/inbound.js';
import { startSink } from '../test/helpers/sink.js';
import { SmtpPipe } from '../test/integration/inbound/smtp-client.js';

const QUICK = process.argv.includes('--quick');
const LATENCY_N = Number(process.env.N ?? (QUICK ? 100 : 400));
const BACKLOG_N = Number(process.env.BACKLOG ?? (QUICK ? 1000 : 3000));
const CONCURRENCY = 16;
const TO = 'agent@local.mailagent.localhost';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const f = (ms: number) => `${ms.toFixed(2)} ms`;
const raw = (i: number) => Buffer.from([
  `From: Sender ${i % 50} <s${i % 50}@bench.test>`, `To: ${TO}`, `Subject: webhook bench ${i}`,
  `Message-ID: <wh-${i}-${Date.now()}@bench.test>`, 'Date: Thu, 01 Jan 2026 00:00:00 +0000', 'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8', '', `Hello, this is message ${i} about tomorrow's meeting.`, '',
].join('\r\n'));

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-bench-'));
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', allowPrivateWebhooks: true }, {});
  const d = await Daemon.create(config, { quiet: true });
  const { smtp } = await d.start();
  const ctx = d.ctx;
  const boot = d.bootstrapped!;
  const auth = { keyId: boot.keys.live.id, workspaceId: boot.workspace.id, mode: 'live' as const, scopes: ['manage' as const, 'read' as const], agentId: null, expiresAt: null };
  const sink = await startSink();
  const hook = await createWebhook(ctx, auth, { url: sink.url, event_types: ['message.received', 'message.received.unauthenticated'] });
  console.log(`webhooks bench: node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}; SQLite synchronous=FULL; sink on 127.0.0.1; worker concurrency 16`);

  // 1. latency: one SMTP message at a time.
  const pipe = await SmtpPipe.open(Number(smtp!.split(':').pop()));
  const fromAccept: number[] = [];
  const fromData: number[] = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const arrived = sink.waitFor(sink.requests.length + 1, 30_000);
    const reply = await pipe.send(`s${i % 50}@bench.test`, [TO], raw(i));
    const acceptedAt = performance.now();
    if (!reply.startsWith('250')) throw new Error(`SMTP refused: ${reply}`);
    const reqs = await arrived;
    const at = reqs[reqs.length - 1].receivedAt;
    fromAccept.push(at - acceptedAt);
    fromData.push(at - pipe.dataSentAt);
  }
  await pipe.quit();

  // 2. throughput: a backlog kept while the endpoint is paused, drained once it is resumed.
  await updateWebhook(ctx, auth, hook.id, { active: false });
  sink.reset();
  for (let i = 0; i < BACKLOG_N; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, BACKLOG_N - i) }, (_, j) =>
      ingestInbound(ctx, { raw: raw(LATENCY_N + i + j), mailFrom: 's@bench.test', rcptTo: [TO], source: 'smtp', auth: { spf: true, dkim: true } })));
  }
  const t1 = performance.now();
  const all = sink.waitFor(BACKLOG_N, 120_000);
  await updateWebhook(ctx, auth, hook.id, { active: true });
  await all;
  const workerSecs = (performance.now() - t1) / 1000;
  const delivered = sink.requests.length;

  // baseline: the same bodies POSTed straight to the sink
  const body = sink.requests[0]?.text ?? '{}';
  sink.reset();
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = () => new Promise<void>((resolve, reject) => {
    const r = http.request(sink.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => { res.resume(); res.on('end', resolve); });
    r.on('error', reject);
    r.end(body);
  });
  const t2 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (next++ < BACKLOG_N) await post(); }));
  const baseSecs = (performance.now() - t2) / 1000;
  agent.destroy();

  console.log(`latency, SMTP 250 → webhook at sink, n=${LATENCY_N}: p50 ${f(pct(fromAccept, 50))}, p99 ${f(pct(fromAccept, 99))}  (negative: the webhook arrived before the 250 reached the client)`);
  console.log(`latency, end of DATA → webhook at sink (whole inbound path), n=${LATENCY_N}: p50 ${f(pct(fromData, 50))}, p99 ${f(pct(fromData, 99))}, max ${f(Math.max(...fromData))}`);
  console.log(`throughput, backlog of ${BACKLOG_N} message.received (${delivered} delivered): ${(delivered / workerSecs).toFixed(0)} deliveries/s`);
  console.log(`baseline, plain keep-alive POSTs of the same body, no DB/signing: ${(BACKLOG_N / baseSecs).toFixed(0)} req/s`);

  await d.stop();
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
