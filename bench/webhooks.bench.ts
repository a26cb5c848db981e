/**
 * Webhook delivery benchmark (not a test): `npx tsx bench/webhooks.bench.ts`.
 *
 * 1. Latency: an event committed (emitEvent in its transaction; the inbound path adds only its
 *    own parse/classify time before this) → the signed webhook arriving at a local HTTP sink,
 *    with the real worker running on its bus notification. p50/p99 over sequential events.
 * 2. Throughput: a backlog of events committed at once, drained by the worker → deliveries/s.
 * Baseline in the same run: plain keep-alive POSTs of the same bodies to the same sink with the
 * same concurrency (no database, no signing) — the ceiling the worker is compared with.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/server/config.js';
import { openDatabase, migrate } from '../src/db/open.js';
import { createContext } from '../src/server/context.js';
import { bootstrapWorkspace } from '../src/services/bootstrap.js';
import { createWebhook } from '../src/services/webhooks.js';
import { emitEvent } from '../src/services/events.js';
import { inTransaction } from '../src/services/context.js';
import { createWebhookDeliveryWorker } from '../src/server/workers/webhook-delivery.js';
import { systemClock } from '../src/shared/clock.js';
import { startSink } from '../test/helpers/sink.js';

const LATENCY_N = Number(process.env.N ?? 500);
const BACKLOG_N = Number(process.env.BACKLOG ?? 5000);
const CONCURRENCY = 16;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const f = (ms: number) => `${ms.toFixed(2)} ms`;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-bench-'));
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
  const opened = openDatabase(config.dbFile);
  await migrate(opened.db);
  const ctx = createContext(config, opened.db, systemClock);
  const boot = await bootstrapWorkspace(ctx, {});
  const auth = { keyId: 'bench', workspaceId: boot.workspace.id, mode: 'live' as const, scopes: ['manage' as const], agentId: null, expiresAt: null };
  const sink = await startSink();
  await createWebhook(ctx, auth, { url: sink.url, event_types: ['*'] });
  const worker = createWebhookDeliveryWorker(ctx, { concurrency: CONCURRENCY, perEndpoint: CONCURRENCY });
  worker.start();
  const emit = (tx: Parameters<Parameters<typeof inTransaction>[1]>[0], i: number) => emitEvent(ctx, tx, {
    type: 'message.received', workspaceId: boot.workspace.id, agentId: boot.agent.id, testMode: false,
    data: { from: 'someone@example.com', subject: `bench ${i}`, body_text_excerpt: 'x'.repeat(200) },
  });

  // 1. latency, one event at a time
  const lat: number[] = [];
  for (let i = 0; i < LATENCY_N; i++) {
    const arrived = sink.waitFor(sink.requests.length + 1, 30_000);
    const t0 = performance.now();
    await inTransaction(ctx, (tx) => emit(tx, i));
    const reqs = await arrived;
    lat.push(reqs[reqs.length - 1].receivedAt - t0);
  }

  // 2. throughput: a committed backlog drained by the worker
  sink.reset();
  await worker.stop();
  for (let i = 0; i < BACKLOG_N; i += 500) {
    await inTransaction(ctx, async (tx) => { for (let j = i; j < Math.min(BACKLOG_N, i + 500); j++) await emit(tx, j); });
  }
  const drainer = createWebhookDeliveryWorker(ctx, { concurrency: CONCURRENCY, perEndpoint: CONCURRENCY });
  const t1 = performance.now();
  await drainer.runDue();
  const workerSecs = (performance.now() - t1) / 1000;
  const delivered = sink.requests.length;
  await drainer.stop();

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

  console.log(`webhooks bench (node ${process.version}; SQLite synchronous=FULL; sink on 127.0.0.1; concurrency ${CONCURRENCY})`);
  console.log(`latency, event committed → webhook at sink, n=${LATENCY_N}: p50 ${f(pct(lat, 50))}, p99 ${f(pct(lat, 99))}, max ${f(Math.max(...lat))}`);
  console.log(`throughput, backlog of ${BACKLOG_N} (${delivered} delivered): ${(delivered / workerSecs).toFixed(0)} deliveries/s`);
  console.log(`baseline, plain keep-alive POSTs of the same body, no DB/signing: ${(BACKLOG_N / baseSecs).toFixed(0)} req/s`);

  await sink.close();
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => { console.error(err); process.exit(1); });
