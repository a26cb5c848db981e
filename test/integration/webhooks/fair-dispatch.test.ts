import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { startSink, type Sink } from '../../helpers/sink.js';
import { createWebhookDeliveryWorker, type WebhookDeliveryWorker } from '../../../src/server/workers/webhook-delivery.js';
import { RETRY_DELAYS_MS } from '../../../src/services/webhooks.js';

/**
 * An outside tester's report: four receivers that accept the connection and never answer held all
 * 16 delivery slots (4 per endpoint), at every retry, so a healthy endpoint got its events 6–17 s
 * late, in bursts every 15 s (the attempt timeout); ten such receivers, 1–41 s. Here the real
 * worker delivers through real sockets to a tarpit (accepts, reads, never answers) and to a real
 * HTTP sink answering 200 at once. The attempt timeout is set to a minute: every healthy delivery
 * must arrive before the first hanging attempt has even timed out (checked on the queue itself:
 * no hanging delivery has an attempt recorded yet), not by measuring time.
 */

/** A receiver that accepts connections and never answers; counts what it holds, per path. */
interface Tarpit {
  url(path: string): string;
  /** Connections open now, per request path. */
  open: Map<string, number>;
  /** The most connections ever open at once, per path (since reset). */
  maxOpen: Map<string, number>;
  connections: number;
  waitForOpen(n: number, timeoutMs?: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

async function startTarpit(): Promise<Tarpit> {
  const sockets = new Set<net.Socket>();
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let total = 0;
  const server = net.createServer((s) => {
    sockets.add(s);
    let path: string | null = null;
    let head = '';
    s.on('data', (c) => {
      if (path !== null) return;
      head += c.toString('latin1');
      const m = /^[A-Z]+ (\S+) HTTP/.exec(head);
      if (!m) return;
      path = m[1];
      open.set(path, (open.get(path) ?? 0) + 1);
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
      total++;
      for (const w of [...waiters]) if (openNow() >= w.n) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
    });
    s.on('error', () => {});
    s.on('close', () => {
      sockets.delete(s);
      if (path !== null) open.set(path, open.get(path)! - 1);
    });
  });
  const openNow = () => [...open.values()].reduce((a, b) => a + b, 0);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    open, maxOpen,
    get connections() { return total; },
    waitForOpen: (n, timeoutMs = 20_000) => new Promise<void>((resolve, reject) => {
      if (openNow() >= n) return resolve();
      const t = setTimeout(() => reject(new Error(`tarpit: ${openNow()}/${n} connections open after ${timeoutMs} ms`)), timeoutMs);
      waiters.push({ n, resolve: () => { clearTimeout(t); resolve(); } });
    }),
    reset: () => { maxOpen.clear(); total = 0; },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

let t: TestApp;
let sink: Sink;
let tarpit: Tarpit;
let worker: WebhookDeliveryWorker | null = null;
let n = 0;

beforeAll(async () => {
  sink = await startSink();
  tarpit = await startTarpit();
  t = await createTestApp();
});
afterAll(async () => {
  await sink.close();
  await tarpit.close();
  await t.close();
});
beforeEach(async () => {
  for (const w of (await t.req('GET', '/v1/webhooks', { query: { limit: 100 } })).body.data) await t.req('DELETE', `/v1/webhooks/${w.id}`);
  sink.reset();
  tarpit.reset();
});
afterEach(async () => {
  await worker?.stop();
  worker = null;
});

async function hook(url: string): Promise<string> {
  const r = await t.req('POST', '/v1/webhooks', { body: { url, event_types: ['message.received'] } });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

/** `mailagent inbound simulate --agent agent …`: one message.received event; its id. */
async function simulate(): Promise<string> {
  const r = await t.req('POST', '/v1/test/inbound', {
    key: t.testKey, body: { agent: 'agent', from: 'alice@example.com', subject: `fair ${++n}`, body_text: 'hello' },
  });
  expect(r.status, r.text).toBe(201);
  const ev = await t.req('GET', '/v1/events', { query: { limit: 1, event_type: 'message.received' } });
  return ev.body.data[0].id as string;
}

async function deliveries(whe: string) {
  return (await t.req('GET', `/v1/webhooks/${whe}/deliveries`, { query: { limit: 100 } })).body.data as any[];
}

/** Every hanging endpoint's deliveries: none has an attempt recorded (none has timed out yet). */
async function noHangingAttemptEnded(hanging: string[]): Promise<void> {
  for (const whe of hanging) {
    for (const d of await deliveries(whe)) expect(d, 'a hanging attempt ended before the healthy deliveries arrived').toMatchObject({ status: 'pending', attempt_number: 0 });
  }
}

const MINUTE_TIMEOUT = 60_000;

/** n endpoints on the tarpit (/h1…/hn) and one on the healthy sink; the hanging ones' ids. */
async function endpoints(n: number): Promise<string[]> {
  const hanging: string[] = [];
  for (let i = 1; i <= n; i++) hanging.push(await hook(tarpit.url(`/h${i}`)));
  await hook(sink.url);
  return hanging;
}

/** The worker as the daemon runs it (start(): bus notifications), attempts timing out after a minute. */
function startDaemonLoop(opts: { slowAfterMs?: number } = {}): void {
  worker = createWebhookDeliveryWorker(t.ctx, { timeoutMs: MINUTE_TIMEOUT, pollMs: 60_000, ...opts });
  worker.start();
}

/** n events, each one reaching the healthy sink before the next is made; in order. */
async function eventsArriveOneByOne(n: number): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await simulate());
    await sink.waitFor(i + 1, 20_000);
  }
  expect(sink.requests.map((r) => r.headers['x-mails-event-id'])).toEqual(ids);
}

describe('a healthy endpoint does not wait behind hanging ones', () => {
  it('8 hanging endpoints (more than 16 slots / 4 per endpoint), events one after another: the healthy one gets each at once', async () => {
    const hanging = await endpoints(8);
    startDaemonLoop();
    // Each event reaches the healthy endpoint while the hanging ones hold their connections
    // (before the fix: the second waited for a hanging attempt to time out, a minute here).
    await eventsArriveOneByOne(6);
    await tarpit.waitForOpen(8);
    await noHangingAttemptEnded(hanging);
  });

  it('a backlog: 6 events queued for 10 hanging endpoints and a healthy one before the worker starts', async () => {
    const hanging = await endpoints(10);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await simulate());
    startDaemonLoop();
    await sink.waitFor(6, 20_000);
    expect(new Set(sink.requests.map((r) => r.headers['x-mails-event-id']))).toEqual(new Set(ids));
    await tarpit.waitForOpen(10);
    await noHangingAttemptEnded(hanging);
  });

  it('more hanging endpoints than slots: their attempts move out of the fast lane once slow, and the healthy one is served', async () => {
    const hanging = await endpoints(24);
    startDaemonLoop({ slowAfterMs: 2_000 });
    await eventsArriveOneByOne(4);
    // Every hanging endpoint got its first attempt (none is starved either); none more than the
    // 4 it may have in flight before it is known to hang.
    await tarpit.waitForOpen(24);
    for (let i = 1; i <= 24; i++) expect(tarpit.open.get(`/h${i}`), `/h${i}`).toBeGreaterThanOrEqual(1);
    for (let i = 1; i <= 24; i++) expect(tarpit.maxOpen.get(`/h${i}`), `/h${i}`).toBeLessThanOrEqual(4);
    await noHangingAttemptEnded(hanging);
  });
});

describe('a demoted endpoint gets one attempt at a time', () => {
  it('after its attempts time out, its queue goes out one at a time, oldest first, at every retry', async () => {
    const whe = await hook(tarpit.url('/slow'));
    for (let i = 0; i < 6; i++) await simulate();
    worker = createWebhookDeliveryWorker(t.ctx, { timeoutMs: 600 });
    expect(await worker.runDue()).toBe(6);
    // Up to 4 at once before it was known to hang (the first attempts, in good standing).
    expect(tarpit.maxOpen.get('/slow')).toBeLessThanOrEqual(4);
    expect((await deliveries(whe)).map((d) => d.status)).toEqual(Array(6).fill('failed'));
    tarpit.reset();
    t.clock.advance(RETRY_DELAYS_MS[0] * 1.2);
    expect(await worker.runDue()).toBe(6);
    expect(tarpit.connections).toBe(6);
    expect(tarpit.maxOpen.get('/slow')).toBe(1);
    const ds = await deliveries(whe);
    expect(ds.every((d) => d.status === 'failed' && d.attempt_number === 2 && /timed out/.test(d.error))).toBe(true);
  });

  it('a prompt success restores it: several attempts at once again', async () => {
    const { r, whe, w } = await demotedPairingEndpoint(2_000);
    try {
      // Demoted now. It answers again: the retry succeeds at once, which restores it.
      r.mode = 'ok';
      t.clock.advance(RETRY_DELAYS_MS[0] * 1.2);
      expect(await w.runDue()).toBe(1);
      // One attempt at a time (demoted) would time out against the pairing receiver; in good
      // standing (up to 4 at once) every delivery succeeds.
      r.mode = 'pair';
      for (let i = 0; i < 8; i++) await simulate();
      expect(await w.runDue()).toBe(8);
      expect((await deliveries(whe)).map((d) => d.status)).toEqual(Array(9).fill('succeeded'));
    } finally {
      await r.close();
    }
  });

  it('while demoted (before the fix: still 4 at once), the pairing receiver\'s deliveries time out one by one', async () => {
    const { r, whe, w } = await demotedPairingEndpoint(1_000);
    try {
      r.mode = 'pair';
      await simulate();
      await simulate();
      // Two new deliveries, due now: one at a time, each alone at the receiver, each times out.
      expect(await w.runDue()).toBe(2);
      const first = (await deliveries(whe)).filter((d) => d.attempt_number === 1);
      expect(first.map((d) => d.error)).toEqual(Array(3).fill(expect.stringMatching(/timed out/)));
    } finally {
      await r.close();
    }
  });
});

/** An endpoint on a pairing receiver whose first delivery timed out (hanging): demoted. */
async function demotedPairingEndpoint(timeoutMs: number) {
  const r = await startPairingReceiver();
  const whe = await hook(r.url);
  await simulate();
  const w = (worker = createWebhookDeliveryWorker(t.ctx, { timeoutMs }));
  expect(await w.runDue()).toBe(1);
  expect((await deliveries(whe))[0].error).toMatch(/timed out/);
  return { r, whe, w };
}

/**
 * A receiver that hangs (mode 'hang'), answers 200 at once ('ok'), or answers only once two
 * requests are open ('pair'): one attempt at a time times out against it, two at once succeed.
 */
async function startPairingReceiver(): Promise<{ url: string; mode: 'hang' | 'ok' | 'pair'; close(): Promise<void> }> {
  const waiting: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (r.mode === 'hang') return;
      if (r.mode === 'ok') return void res.end('ok');
      waiting.push(res);
      res.on('close', () => { if (waiting.includes(res)) waiting.splice(waiting.indexOf(res), 1); });
      if (waiting.length >= 2) for (const w of waiting.splice(0)) w.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const r = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    mode: 'hang' as 'hang' | 'ok' | 'pair',
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return r;
}
