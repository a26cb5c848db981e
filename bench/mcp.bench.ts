/**
 * MCP benchmark (not a test): what a tool call costs over the API call it makes, same run.
 *   1. POST /mcp tools/call (Streamable HTTP, stateless: a server + transport per request, the API
 *      call in-process) vs the REST route it calls, same concurrency (8: the per-key MCP cap)
 *   2. `mailagent mcp` over stdio, one call at a time (p50/p99) vs the same client call (src/client,
 *      fetch) from this process
 * Run: npm run build && npx tsx bench/mcp.bench.ts [--quick]
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../src/server/config.js';
import { Daemon } from '../src/server/daemon.js';
import { createClient } from '../src/client/index.js';

const QUICK = process.argv.includes('--quick');
const SECONDS = QUICK ? 2 : 5;
const CONCURRENCY = 8;
const SEQUENTIAL = QUICK ? 200 : 1000;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(url: string, method: string, key: string, body?: string): Promise<number> {
  const payload = body === undefined ? undefined : Buffer.from(body);
  return new Promise((res, rej) => {
    const r = http.request(url, {
      method, agent,
      headers: {
        authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream',
        ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
      },
    }, (resp) => { resp.resume(); resp.on('end', () => res(resp.statusCode ?? 0)); });
    r.on('error', rej);
    r.end(payload);
  });
}

async function load(name: string, fn: () => Promise<number>): Promise<number> {
  let n = 0;
  let bad = 0;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      n++;
      if ((await fn()) !== 200) bad++;
    }
  }));
  const rate = n / ((performance.now() - t0) / 1000);
  console.log(`  ${name.padEnd(58)} ${rate.toFixed(0).padStart(6)} req/s${bad ? `  (${bad} unexpected statuses)` : ''}`);
  return rate;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
function report(name: string, ms: number[]): number {
  const p50 = pct(ms, 0.5);
  console.log(`  ${name.padEnd(58)} p50 ${p50.toFixed(2)} ms  p99 ${pct(ms, 0.99).toFixed(2)} ms`);
  return p50;
}

const call = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-bench-'));
  const config = loadConfig({ dataDir: join(dir, 'data'), port: 0, smtpPort: 0, logLevel: 'silent' }, {});
  const d = await Daemon.create(config, { quiet: true });
  const { http: base } = await d.start();
  const key = d.bootstrapped!.keys.test.key;
  for (let i = 0; i < 30; i++) {
    await fetch(`${base}/v1/test/inbound`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'agent', from: 'a@example.com', subject: `m${i}`, body_text: 'Your code is 123456.' }) });
  }
  console.log(`mcp bench: node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${CONCURRENCY} in flight, ${SECONDS}s per figure`);
  try {
    console.log('Streamable HTTP (POST /mcp) vs the REST route each tool calls:');
    await request(`${base}/mcp`, 'POST', key, call(0, 'mails.me', {})); // loads the SDK once
    const me = await load('GET /v1/me (baseline)', () => request(`${base}/v1/me`, 'GET', key));
    const mcpMe = await load('POST /mcp tools/call mails.me', () => request(`${base}/mcp`, 'POST', key, call(1, 'mails.me', {})));
    const list = await load('GET /v1/messages/received?limit=25 (baseline)', () => request(`${base}/v1/messages/received?limit=25`, 'GET', key));
    const mcpList = await load('POST /mcp tools/call mails.list_received limit 25', () => request(`${base}/mcp`, 'POST', key, call(2, 'mails.list_received', { limit: 25 })));
    console.log(`  → mails.me at ${(100 * mcpMe / me).toFixed(0)}% of its REST route; mails.list_received at ${(100 * mcpList / list).toFixed(0)}%`);

    console.log(`stdio (bin/mailagent mcp), ${SEQUENTIAL} calls one at a time:`);
    // The baseline is the call the stdio server itself makes: src/client (fetch) → GET /v1/me.
    const client = createClient({ baseUrl: base, apiKey: key });
    const rest: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t = performance.now();
      await client.call('me.get');
      rest.push(performance.now() - t);
    }
    const restP50 = report('src/client GET /v1/me from this process (baseline)', rest);
    const child = spawn(process.execPath, ['bin/mailagent', 'mcp', '--base-url', base, '--api-key', key], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout });
    const waiting = new Map<number, () => void>();
    lines.on('line', (l) => waiting.get((JSON.parse(l) as { id: number }).id)?.());
    const send = (id: number, msg: string) => new Promise<void>((r) => { waiting.set(id, r); child.stdin.write(msg + '\n'); });
    await send(0, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }));
    const viaStdio: number[] = [];
    for (let i = 1; i <= SEQUENTIAL; i++) {
      const t = performance.now();
      await send(i, call(i, 'mails.me', {}));
      viaStdio.push(performance.now() - t);
    }
    const stdioP50 = report('tools/call mails.me over stdio', viaStdio);
    console.log(`  → a stdio tool call adds ${(stdioP50 - restP50).toFixed(2)} ms at p50 over the REST call it makes`);
    child.stdin.end();
  } finally {
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
    agent.destroy();
  }
}

void main();
