import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveDaemon, type LiveDaemon } from './helpers.js';
import { emitEvent } from '../../../src/services/events.js';
import { inTransaction } from '../../../src/services/context.js';
import { openStreamCount, streamBufferedBytes, STREAM_DEFAULTS } from '../../../src/services/event-stream.js';
import { DEFAULT_LIMITS } from '../../../src/server/config.js';

// Issue #10 item 3: SSE clients that stop reading, and too many streams, over real sockets
// against a real daemon. The stream's own accounting (streamBufferedBytes) shows the memory bound.

/** An SSE client on a raw socket, so the test decides when it stops reading. */
class RawStream {
  text = '';
  status = 0;
  closed = false;
  private waiters: (() => void)[] = [];
  readonly sock: net.Socket;
  constructor(port: number, key: string, headers: Record<string, string> = {}) {
    this.sock = net.connect(port, '127.0.0.1');
    this.sock.setEncoding('utf8');
    this.sock.on('data', (d: string) => {
      this.text += d;
      if (!this.status) this.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(this.text)?.[1] ?? 0);
      this.wake();
    });
    this.sock.on('close', () => { this.closed = true; this.wake(); });
    this.sock.on('error', () => {});
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    this.sock.write(`GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${extra}\r\n`);
  }
  private wake() { this.waiters.splice(0).forEach((w) => w()); }
  async until(pred: () => boolean, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out; got: ${this.text.slice(0, 300)}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 50); });
    }
  }
  /** Event ids of complete frames received. */
  ids(): string[] {
    return [...this.text.matchAll(/^id: (evt_\w+)\nevent: [^\n]+\ndata: [^\n]*\n\n/gm)].map((m) => m[1]);
  }
  body(): any {
    return JSON.parse(this.text.slice(this.text.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '').trim());
  }
}

let d: LiveDaemon | null = null;
const streams: RawStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.sock.destroy();
  await d?.stop();
  d = null;
});

function open(key: string, headers?: Record<string, string>): RawStream {
  const s = new RawStream(d!.httpPort, key, headers);
  streams.push(s);
  return s;
}

async function makeKey(): Promise<string> {
  return (await d!.api('POST', '/v1/api-keys', { body: { name: 'k', mode: 'live', scopes: ['read'] } })).body.key;
}

/** One committed event of ~`size` bytes, published on the bus like any other. */
async function emitBig(size: number): Promise<string> {
  const ctx = d!.daemon.ctx;
  const ws = d!.daemon.bootstrapped!.workspace.id;
  return inTransaction(ctx, async (tx) => (await emitEvent(ctx, tx, {
    type: 'message.received', workspaceId: ws, agentId: d!.daemon.bootstrapped!.agent.id, testMode: false,
    data: { filler: 'x'.repeat(size) },
  })).id);
}

describe('event stream caps', () => {
  it('streams per key (429) and in total (503) answer the envelope; a closed stream frees its slot', async () => {
    d = await startLiveDaemon({ sseMaxStreamsPerKey: 2, sseMaxStreams: 3 });
    const [k1, k2, k3] = [d.liveKey, await makeKey(), await makeKey()];
    const a = [open(k1), open(k1)];
    for (const s of a) await s.until(() => s.text.includes(': connected'));
    const third = open(k1);
    await third.until(() => third.closed || third.text.includes('"error"'));
    expect(third.status).toBe(429);
    expect(third.text).toMatch(/x-request-id: req_/i);
    expect(third.body().error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error', resets_at: null, retry_after_seconds: null });
    const b = open(k2);
    await b.until(() => b.text.includes(': connected'));
    const c = open(k3);
    await c.until(() => c.text.includes('"error"'));
    expect(c.status).toBe(503);
    expect(c.body().error.code).toBe('service_unavailable');
    expect(openStreamCount(d.daemon.ctx)).toBe(3);

    a[0].sock.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(openStreamCount(d.daemon.ctx)).toBe(2);
    const again = open(k3);
    await again.until(() => again.text.includes(': connected'));
  });

  it('the defaults exist and match the config defaults', () => {
    expect(DEFAULT_LIMITS.sseMaxStreams).toBe(STREAM_DEFAULTS.maxStreams);
    expect(DEFAULT_LIMITS.sseMaxStreamsPerKey).toBe(STREAM_DEFAULTS.maxStreamsPerKey);
    expect(DEFAULT_LIMITS.sseMaxBufferedBytes).toBe(STREAM_DEFAULTS.maxBufferedBytes);
    expect(STREAM_DEFAULTS.maxStreamsPerKey).toBeLessThan(STREAM_DEFAULTS.maxStreams);
  });
});

describe('a consumer that stops reading', () => {
  it('is dropped once its buffer passes the cap, memory stays bounded, and it resumes with Last-Event-ID losing nothing', async () => {
    const cap = 64 * 1024;
    d = await startLiveDaemon({ sseMaxBufferedBytes: cap, sseMaxStreamsPerKey: 20 });
    const ctx = d.daemon.ctx;
    const reader = open(d.liveKey);
    const stalled = Array.from({ length: 5 }, () => open(d!.liveKey));
    for (const s of [reader, ...stalled]) await s.until(() => s.text.includes(': connected'));
    for (const s of stalled) s.sock.pause(); // stop reading: the kernel buffers fill, then ours

    const EVENT = 16 * 1024;
    const ids: string[] = [];
    let peak = 0;
    for (let i = 0; i < 2000 && openStreamCount(ctx) > 1; i++) {
      ids.push(await emitBig(EVENT));
      // Events arrive between I/O turns in a daemon; let the sockets (and the reader) run.
      await new Promise((r) => setImmediate(r));
      peak = Math.max(peak, streamBufferedBytes(ctx));
      // Never more than the cap (plus the one frame that crossed it) per stream.
      expect(streamBufferedBytes(ctx)).toBeLessThanOrEqual(6 * (cap + EVENT + 1024));
    }
    expect(openStreamCount(ctx), 'every stalled stream was dropped; the reader stays').toBe(1);
    expect(peak).toBeGreaterThan(0);
    // A few more after the drop: the reader gets every one, in order.
    for (let i = 0; i < 5; i++) {
      ids.push(await emitBig(EVENT));
      await new Promise((r) => setImmediate(r));
    }
    await reader.until(() => reader.ids().length === ids.length, 20_000);
    expect(reader.ids()).toEqual(ids);
    // Memory given back: nothing is queued for the dropped streams.
    expect(streamBufferedBytes(ctx)).toBeLessThan(cap);

    // The stalled client reads what reached it, sees the connection closed, and resumes.
    const s = stalled[0];
    s.sock.resume();
    await s.until(() => s.closed, 20_000);
    const got = s.ids();
    expect(got).toEqual(ids.slice(0, got.length));
    const resumed = open(d.liveKey, { 'Last-Event-ID': got[got.length - 1] ?? '' });
    await resumed.until(() => resumed.ids().length === ids.length - got.length, 20_000);
    expect([...got, ...resumed.ids()]).toEqual(ids);
  }, 60_000);
});
