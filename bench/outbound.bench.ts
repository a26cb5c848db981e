/**
 * Outbound benchmark (not a test): prints figures against a baseline measured in the same run.
 *   1. GET /v1/me requests/s (baseline) vs POST /v1/messages with a test key, over real HTTP
 *   2. live sends/s through a local SMTP relay (smtp-server on 127.0.0.1), single sends and batches
 * Run: npx tsx bench/outbound.bench.ts [--quick]
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/server/config.js';
import { Daemon } from '../src/server/daemon.js';
import { TestRelay } from '../test/helpers/relay.js';

const QUICK = process.argv.includes('--quick');
const SECONDS = QUICK ? 2 : 5;
const CONCURRENCY = 16;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(base: string, method: string, path: string, key: string, body?: unknown): Promise<number> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((res, rej) => {
    const r = http.request(base + path, {
      method, agent,
      headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
    }, (resp) => { resp.resume(); resp.on('end', () => res(resp.statusCode ?? 0)); });
    r.on('error', rej);
    r.end(payload);
  });
}

/** Requests/s of `fn` with CONCURRENCY in flight for SECONDS; every answer must be `expect`. */
async function load(name: string, fn: (i: number) => Promise<number>, expect: number, seconds = SECONDS, maxTotal = Infinity): Promise<number> {
  let n = 0;
  let bad = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end && n < maxTotal) {
      const i = n++;
      if ((await fn(i)) !== expect) bad++;
    }
  }));
  const rate = n / ((performance.now() - t0) / 1000);
  console.log(`  ${name.padEnd(48)} ${rate.toFixed(0).padStart(7)} req/s  (${n} requests${bad ? `, ${bad} unexpected statuses` : ''})`);
  return rate;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-bench-'));
  const relay = await TestRelay.start();
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', relay: relay.url }, {});
  const d = await Daemon.create(config, { quiet: true });
  const { http: base } = await d.start();
  const keys = d.bootstrapped!.keys;
  // The bench sends far beyond a new Free workspace's caps: make it an old Scale workspace.
  await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
  console.log(`outbound bench: node ${process.version}, ${cpus().length} CPUs, ${CONCURRENCY} in flight, ${SECONDS}s per figure`);
  try {
    const me = await load('GET /v1/me (baseline)', () => request(base, 'GET', '/v1/me', keys.test.key), 200);
    const msg = { to: 'bob@example.com', subject: 'Your receipt', body_text: 'Thanks for your order #1234.' };
    const tsend = await load('POST /v1/messages, test key', () => request(base, 'POST', '/v1/messages', keys.test.key, msg), 201);
    console.log(`  → test-mode send costs ${(me / tsend).toFixed(2)}× a GET /v1/me`);
    // Live: the burst limit allows 100 requests / 10 s per key, so single sends rotate over keys,
    // and batches (one request each) show the pipeline's throughput per message.
    const liveKeys: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`${base}/v1/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${keys.live.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `b${i}`, mode: 'live', scopes: ['send'] }) });
      liveKeys.push(((await r.json()) as { key: string }).key);
    }
    const before = relay.messages.length;
    const live = await load('POST /v1/messages, live key → SMTP relay', (i) => request(base, 'POST', '/v1/messages', liveKeys[i % liveKeys.length], msg), 201, SECONDS, 1500);
    const batchBody = Array.from({ length: 50 }, () => msg);
    const b0 = performance.now();
    const batches = 8;
    await Promise.all(Array.from({ length: batches }, (_, i) => request(base, 'POST', '/v1/messages/batch', liveKeys[i], batchBody)));
    const batchRate = (batches * 50) / ((performance.now() - b0) / 1000);
    console.log(`  ${'POST /v1/messages/batch ×50, live → relay'.padEnd(48)} ${batchRate.toFixed(0).padStart(7)} msg/s`);
    console.log(`  relay received ${relay.messages.length - before} messages`);
    console.log(`  → live send costs ${(me / live).toFixed(2)}× a GET /v1/me`);
  } finally {
    await d.stop();
    await relay.stop();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
