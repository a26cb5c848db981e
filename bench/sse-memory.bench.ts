/**
 * Event-stream memory benchmark (not a test):
 * `node --expose-gc --import tsx bench/sse-memory.bench.ts [--quick]`.
 *
 * The review's scenario (issue #10 item 3): 100 SSE clients (5 keys × 20) on real sockets
 * connect to a real daemon (in this process, so the daemon's own queue accounting can be read),
 * stop reading, and events flow (EVENTS events of ~16 KB, committed through emitEvent like any
 * other); then the clients close. Printed: process RSS before, at the peak and after the clients
 * closed (after a GC when --expose-gc is given), the bytes queued to streams at the peak
 * (streamBufferedBytes) and the streams still open at the end.
 * Baseline in the same run: the same daemon with the stream caps lifted (sseMaxBufferedBytes
 * 1 GiB, no per-key cap) — the behaviour before the caps.
 */
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ConfigInput } from '../src/server/config.js';
import { Daemon } from '../src/server/daemon.js';
import { emitEvent } from '../src/services/events.js';
import { inTransaction } from '../src/services/context.js';
import { openStreamCount, streamBufferedBytes } from '../src/services/event-stream.js';

const QUICK = process.argv.includes('--quick');
const EVENTS = Number(process.env.EVENTS ?? (QUICK ? 250 : 500));
const EVENT_BYTES = 16 * 1024;
const CLIENTS = 100;
const KEYS = 5;

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gc = (globalThis as { gc?: () => void }).gc;

async function scenario(label: string, overrides: ConfigInput) {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-ssebench-'));
  const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', ...overrides }, {}), { quiet: true });
  const { http } = await d.start();
  const port = Number(new URL(http).port);
  const ctx = d.ctx;
  const boot = d.bootstrapped!;
  try {
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const r = await fetch(`${http}/v1/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${boot.keys.live.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `sse${i}`, mode: 'live', scopes: ['read'] }) });
      keys.push(((await r.json()) as { key: string }).key);
    }
    const socks: net.Socket[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.write(`GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys[i % KEYS]}\r\n\r\n`);
      s.once('data', () => s.pause()); // headers arrived: stop reading
      socks.push(s);
    }
    await sleep(500);
    const streams = openStreamCount(ctx);
    gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    let peakQueued = 0;
    const filler = 'x'.repeat(EVENT_BYTES);
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      await inTransaction(ctx, (tx) => emitEvent(ctx, tx, { type: 'message.received', workspaceId: boot.workspace.id, agentId: boot.agent.id, testMode: false, data: { i, filler } }));
      await new Promise((r) => setImmediate(r));
      peakQueued = Math.max(peakQueued, streamBufferedBytes(ctx));
      if (i % 20 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    const secs = (performance.now() - t0) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    const openAtEnd = openStreamCount(ctx);
    for (const s of socks) s.destroy();
    await sleep(1000);
    gc?.();
    await sleep(500);
    const after = process.memoryUsage().rss;
    console.log(`${label.padEnd(26)} streams ${streams} · RSS before ${mb(before)} · peak ${mb(peak)} · after close${gc ? '+GC' : ''} ${mb(after)} · queued at peak ${mb(peakQueued)} · open at end ${openAtEnd} · ${EVENTS} events in ${secs.toFixed(1)} s`);
  } finally {
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`sse-memory: ${CLIENTS} stalled SSE clients, ${EVENTS} events of ${EVENT_BYTES / 1024} KB · load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
await scenario('baseline (caps lifted)', { sseMaxBufferedBytes: 1024 ** 3, sseMaxStreamsPerKey: 1000, sseMaxStreams: 1000 });
await scenario('with the caps (defaults)', {});
console.log(`load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
