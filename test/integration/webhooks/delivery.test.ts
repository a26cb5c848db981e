import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { startSink, type Sink } from '../../helpers/sink.js';
import { createWebhookDeliveryWorker, type WebhookDeliveryWorker } from '../../../src/server/workers/webhook-delivery.js';
import { RETRY_DELAYS_MS, MAX_ATTEMPTS } from '../../../src/services/webhooks.js';
import { emitEvent } from '../../../src/services/events.js';
import { inTransaction } from '../../../src/services/context.js';
import { setWebhookResolver } from '../../../src/services/webhook-url-guard.js';
import { loadConfig } from '../../../src/server/config.js';
import { openDatabase, migrate } from '../../../src/db/open.js';
import { createContext } from '../../../src/server/context.js';
import { buildApp } from '../../../src/server/http/app.js';
import { bootstrapWorkspace } from '../../../src/services/bootstrap.js';
import { ManualClock, HOUR, DAY } from '../../../src/shared/clock.js';
import { claimDeliveries } from '../../../src/db/repos/webhooks.js';
import { call } from '../../helpers/app.js';
import { postWebhook } from '../../../src/services/webhook-dispatch.js';
import { mailsEntries, mailsHex, strictClientAccepts, standardAccepts } from './helpers.js';
import type { EventType } from '../../../src/contract/events.js';

let t: TestApp;
let sink: Sink;
let worker: WebhookDeliveryWorker;
let n = 0;

// One app for the file (tests move its clock forward only); every test starts with no endpoints.
beforeAll(async () => {
  sink = await startSink();
  t = await createTestApp();
});
afterAll(async () => {
  await sink.close();
  await t.close();
});
beforeEach(async () => {
  for (const w of (await t.req('GET', '/v1/webhooks', { query: { limit: 100 } })).body.data) await t.req('DELETE', `/v1/webhooks/${w.id}`);
  sink.reset();
  worker = createWebhookDeliveryWorker(t.ctx, { timeoutMs: 400 });
});
afterEach(async () => { await worker.stop(); });

async function hook(body: Record<string, unknown> = {}) {
  const r = await t.req('POST', '/v1/webhooks', { body: { url: sink.url, ...body } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; signing_secret: string };
}

/** Pausing and resuming an agent emits agent.paused / agent.resumed today: a real cause for an event. */
let paused = false;
async function makeEvent(): Promise<string> {
  paused = !paused;
  const r = await t.req('PATCH', '/v1/agents/agent', { body: { status: paused ? 'paused' : 'active' } });
  expect(r.status, r.text).toBe(200);
  const ev = await t.req('GET', '/v1/events', { query: { limit: 1 } });
  expect(ev.body.data[0].type).toBe(paused ? 'agent.paused' : 'agent.resumed');
  return ev.body.data[0].id as string;
}

async function emit(type: EventType): Promise<string> {
  return inTransaction(t.ctx, async (tx) => (await emitEvent(t.ctx, tx, {
    type, workspaceId: t.boot.workspace.id, agentId: null, testMode: false, data: { n: ++n },
  })).id);
}

async function deliveries(whe: string) {
  return (await t.req('GET', `/v1/webhooks/${whe}/deliveries`)).body.data as any[];
}

describe('delivery: body, headers, signatures', () => {
  it('POSTs the event object with both signature schemes, verified independently', async () => {
    const w = await hook();
    const evId = await makeEvent();
    expect(await worker.runDue()).toBe(1);
    const [r] = sink.requests;
    expect(r.method).toBe('POST');
    const stored = (await t.req('GET', `/v1/events/${evId}`)).body;
    expect(r.json()).toEqual(stored);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-mails-event-id']).toBe(evId);
    expect(r.headers['x-mails-event-type']).toBe(stored.type);
    expect(r.headers['webhook-id']).toBe(evId);
    expect(r.headers['user-agent']).toBe(`mailagent/${t.config.version}`);
    const { t: ts, v1 } = mailsEntries(String(r.headers['x-mails-signature']));
    expect(v1).toHaveLength(1);
    expect(Math.abs(ts - Math.floor(t.clock.now() / 1000))).toBeLessThanOrEqual(1);
    expect(String(r.headers['webhook-timestamp'])).toBe(String(ts));
    expect(w.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(strictClientAccepts(w.signing_secret, r)).toBe(true);
    expect(standardAccepts(w.signing_secret, r)).toBe(true);
    // each scheme fails on its own with a wrong secret or a changed body
    const other = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
    expect(strictClientAccepts(other, r)).toBe(false);
    expect(standardAccepts(other, r)).toBe(false);
    const tampered = { ...r, raw: Buffer.concat([r.raw, Buffer.from(' ')]) };
    expect(strictClientAccepts(w.signing_secret, tampered)).toBe(false);
    expect(standardAccepts(w.signing_secret, tampered)).toBe(false);
    const d = (await deliveries(w.id))[0];
    expect(d).toMatchObject({ status: 'succeeded', attempt_number: 1, http_status: 200, event_id: evId, event_type: stored.type, response_body_excerpt: 'ok' });
    expect(r.headers['x-mails-delivery-id']).toBe(d.id);
  });

  it('POST /webhooks/{id}/test answers {ok, http_status, error} inline', async () => {
    const w = await hook();
    const before = (await t.req('GET', '/v1/events', { query: { limit: 100 } })).body.data.length;
    const ok = await t.req('POST', `/v1/webhooks/${w.id}/test`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(ok.body).toEqual({ ok: true, http_status: 200 });
    expect(sink.requests[0].json().type).toBe('webhook.test');
    expect(strictClientAccepts(w.signing_secret, sink.requests[0])).toBe(true);
    sink.queue({ status: 500, body: 'boom' });
    const bad = await t.req('POST', `/v1/webhooks/${w.id}/test`);
    expect(bad.body).toMatchObject({ ok: false, http_status: 500, error: 'HTTP 500' });
    // not stored as an event, not a queued delivery
    expect((await t.req('GET', '/v1/events', { query: { limit: 100 } })).body.data).toHaveLength(before);
    expect(await deliveries(w.id)).toHaveLength(0);
  });
});

describe('delivery: retries and the schedule', () => {
  it('retries with backoff on the injected clock, same ids each time, history kept', async () => {
    const w = await hook();
    const evId = await makeEvent();
    sink.queue({ status: 500, body: 'down' }, { status: 503, body: 'still down' });
    expect(await worker.runDue()).toBe(1);
    let [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'failed', attempt_number: 1, http_status: 500, response_body_excerpt: 'down', error: 'HTTP 500' });
    const wait = Date.parse(d.next_retry_at) - t.clock.now();
    expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0] * 0.9);
    expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[0] * 1.1);
    expect(await worker.runDue()).toBe(0); // not due yet
    t.clock.advance(wait);
    expect(await worker.runDue()).toBe(1);
    [d] = await deliveries(w.id);
    expect(d.attempt_number).toBe(2);
    const wait2 = Date.parse(d.next_retry_at) - t.clock.now();
    expect(wait2).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1] * 0.9);
    t.clock.advance(wait2);
    expect(await worker.runDue()).toBe(1);
    const full = (await t.req('GET', `/v1/webhook-deliveries/${d.id}`)).body;
    expect(full).toMatchObject({ status: 'succeeded', attempt_number: 3 });
    expect(full).not.toHaveProperty('next_retry_at');
    expect(full.attempts.map((a: any) => [a.attempt_number, a.status, a.http_status])).toEqual([[1, 'failed', 500], [2, 'failed', 503], [3, 'succeeded', 200]]);
    expect(new Set(sink.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([evId]));
    expect(new Set(sink.requests.map((r) => r.headers['x-mails-delivery-id']))).toEqual(new Set([d.id]));
  });

  it('gives up after the last attempt (~3 days) and the delivery is dlq', async () => {
    const w = await hook();
    await makeEvent();
    sink.respond({ status: 500 });
    const start = t.clock.now();
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect(await worker.runDue()).toBe(1);
      const [d] = await deliveries(w.id);
      if (i < MAX_ATTEMPTS - 1) t.clock.set(Date.parse(d.next_retry_at));
    }
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'dlq', attempt_number: MAX_ATTEMPTS });
    expect(d).not.toHaveProperty('next_retry_at');
    const span = t.clock.now() - start;
    expect(span).toBeGreaterThan(2.5 * DAY);
    expect(span).toBeLessThan(3.3 * DAY);
    t.clock.advance(10 * DAY);
    expect(await worker.runDue()).toBe(0);
    expect(sink.requests).toHaveLength(MAX_ATTEMPTS);
  });

  it('honours Retry-After', async () => {
    const w = await hook();
    await makeEvent();
    sink.queue({ status: 503, headers: { 'retry-after': '7200' } });
    await worker.runDue();
    const [d] = await deliveries(w.id);
    expect(Date.parse(d.next_retry_at) - t.clock.now()).toBe(7200_000);
    t.clock.advance(HOUR);
    expect(await worker.runDue()).toBe(0);
    t.clock.advance(HOUR);
    expect(await worker.runDue()).toBe(1);
  });

  it('a receiver that hangs times out and is retried', async () => {
    const w = await hook();
    await makeEvent();
    sink.queue({ hang: true });
    await worker.runDue();
    const [d] = await deliveries(w.id);
    expect(d.status).toBe('failed');
    expect(d.error).toMatch(/timed out/);
    expect(d.http_status).toBeUndefined();
  });

  it('an attempt aborted before its request is sent (shutdown) settles as aborted, with no unhandled error', async () => {
    // An outside tester's SIGTERM during failing deliveries ended the daemon with an unhandled
    // 'error' (socket hang up): the abort destroyed a request that had no error listener yet.
    const unhandled: unknown[] = [];
    const onUncaught = (e: unknown) => unhandled.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const ac = new AbortController();
      ac.abort();
      const w = { url: sink.url, secrets: ['whsec_' + Buffer.alloc(24, 1).toString('base64')], eventId: 'evt_x', eventType: 'agent.paused', deliveryId: null, body: '{}' };
      const r = await postWebhook(t.ctx, w, { signal: ac.signal, timeoutMs: 2_000 });
      expect(r).toMatchObject({ ok: false, aborted: true, error: 'aborted' });
      // Aborted while the request is in flight, too.
      sink.queue({ hang: true });
      const ac2 = new AbortController();
      const p = postWebhook(t.ctx, w, { signal: ac2.signal, timeoutMs: 2_000 });
      setTimeout(() => ac2.abort(), 50);
      expect(await p).toMatchObject({ ok: false, aborted: true });
      await new Promise((r) => setTimeout(r, 100)); // an 'error' emitted on the next ticks lands here
      expect(unhandled).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('does not follow redirects', async () => {
    const w = await hook();
    await makeEvent();
    sink.queue({ status: 302, headers: { location: `${sink.url}/elsewhere` } });
    await worker.runDue();
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'failed', http_status: 302 });
    expect(d.error).toMatch(/redirect not followed/);
    expect(sink.requests).toHaveLength(1);
  });

  it('410 switches the endpoint off; PATCH active=true delivers what was kept', async () => {
    const w = await hook();
    await makeEvent();
    sink.queue({ status: 410, body: 'gone' });
    await worker.runDue();
    const e = (await t.req('GET', `/v1/webhooks/${w.id}`)).body;
    expect(e).toMatchObject({ active: false, disabled_reason: 'gone' });
    await makeEvent();
    await makeEvent();
    t.clock.advance(DAY);
    expect(await worker.runDue()).toBe(0);
    expect(sink.requests).toHaveLength(1);
    const on = await t.req('PATCH', `/v1/webhooks/${w.id}`, { body: { active: true } });
    expect(on.body).toMatchObject({ active: true });
    expect(on.body).not.toHaveProperty('disabled_reason');
    expect(await worker.runDue()).toBe(3);
    expect((await deliveries(w.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('a paused endpoint gets nothing; resuming delivers everything kept, oldest first', async () => {
    const w = await hook({ active: false });
    const ids = [await makeEvent(), await makeEvent(), await makeEvent()];
    expect(await worker.runDue()).toBe(0);
    t.clock.advance(5 * DAY); // far beyond the retry schedule: nothing is lost while paused
    expect(await worker.runDue()).toBe(0);
    expect((await deliveries(w.id)).map((d) => d.status)).toEqual(['pending', 'pending', 'pending']);
    await t.req('PATCH', `/v1/webhooks/${w.id}`, { body: { active: true } });
    const slow = createWebhookDeliveryWorker(t.ctx, { concurrency: 1 });
    expect(await slow.runDue()).toBe(3);
    expect(sink.requests.map((r) => r.headers['x-mails-event-id'])).toEqual(ids);
    await slow.stop();
  });
});

describe('delivery: subscriptions', () => {
  it('"*" covers every type except the four that must be named', async () => {
    const all = await hook({ event_types: ['*'] });
    const named = await hook({ event_types: ['thread.created', 'thread.updated', 'thread.deleted', 'message.delayed'] });
    const only = await hook({ event_types: ['message.sent'] });
    for (const type of ['thread.created', 'thread.updated', 'thread.deleted', 'message.delayed', 'message.received', 'message.sent'] as const) await emit(type);
    const types = async (id: string) => (await deliveries(id)).map((d) => d.event_type).sort();
    expect(await types(all.id)).toEqual(['message.received', 'message.sent']);
    expect(await types(named.id)).toEqual(['message.delayed', 'thread.created', 'thread.deleted', 'thread.updated']);
    expect(await types(only.id)).toEqual(['message.sent']);
  });

  it('a deleted endpoint gets nothing more', async () => {
    const w = await hook({ active: false });
    await makeEvent();
    expect((await t.req('DELETE', `/v1/webhooks/${w.id}`)).status).toBe(200);
    await makeEvent();
    expect(await worker.runDue()).toBe(0);
    expect(sink.requests).toHaveLength(0);
  });
});

describe('delivery: redelivery and replay', () => {
  it('replay and redeliver queue new deliveries with the same event id', async () => {
    const w = await hook();
    const evId = await makeEvent();
    await worker.runDue();
    const [d] = await deliveries(w.id);
    const rp = await t.req('POST', `/v1/webhook-deliveries/${d.id}/replay`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(rp.status, rp.text).toBe(200);
    expect(rp.body).toMatchObject({ delivery_id: d.id, event_id: evId });
    expect(rp.body.scheduled).toHaveLength(1);
    const rd = await t.req('POST', `/v1/events/${evId}/redeliver`, { body: {} });
    expect(rd.body).toMatchObject({ event_id: evId, webhook_endpoint_ids: [w.id] });
    expect(await worker.runDue()).toBe(2);
    expect(sink.requests.map((r) => r.headers['webhook-id'])).toEqual([evId, evId, evId]);
    const bound = await t.makeKey({ scopes: ['read', 'manage'], agent_id: t.boot.agent.id });
    const refused = await t.req('POST', `/v1/events/${evId}/redeliver`, { key: bound, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    const refused2 = await t.req('POST', `/v1/webhook-deliveries/${d.id}/replay`, { key: bound, body: {} });
    expect(refused2.body.error.code).toBe('insufficient_scope');
    expect((await t.req('POST', `/v1/events/${evId}/redeliver`, { body: { webhook_endpoint_ids: ['whe_nope'] } })).body.error.param).toBe('webhook_endpoint_ids[0]');
    expect((await t.req('POST', '/v1/webhook-deliveries/whd_nope/replay', { body: {} })).status).toBe(404);
  });
});

describe('delivery: secret rotation', () => {
  it('signs with both secrets during the overlap (new first, previous last), then only the new', async () => {
    const w = await hook();
    const rot = await t.req('POST', `/v1/webhooks/${w.id}/rotate-secret`, { body: {} });
    expect(rot.status, rot.text).toBe(200);
    const fresh = rot.body.signing_secret as string;
    expect(fresh).not.toBe(w.signing_secret);
    expect(rot.body.secret_rotated_at).toBe(new Date(t.clock.now()).toISOString());
    expect(Date.parse(rot.body.previous_secret_expires_at) - t.clock.now()).toBe(DAY);
    expect((await t.req('GET', `/v1/webhooks/${w.id}`)).body.signing_secret).toBeUndefined();
    await makeEvent();
    await worker.runDue();
    const r = sink.requests[0];
    const { t: ts, v1 } = mailsEntries(String(r.headers['x-mails-signature']));
    expect(v1).toEqual([mailsHex(fresh, ts, r.raw), mailsHex(w.signing_secret, ts, r.raw)]);
    // a client still holding the old secret keeps working (it reads the last v1)
    expect(strictClientAccepts(w.signing_secret, r)).toBe(true);
    expect(standardAccepts(w.signing_secret, r)).toBe(true);
    expect(standardAccepts(fresh, r)).toBe(true);
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);

    t.clock.advance(DAY + 1000);
    expect((await t.req('GET', `/v1/webhooks/${w.id}`)).body.previous_secret_expires_at).toBeNull();
    await makeEvent();
    await worker.runDue();
    const r2 = sink.requests[1];
    expect(mailsEntries(String(r2.headers['x-mails-signature'])).v1).toHaveLength(1);
    expect(strictClientAccepts(fresh, r2)).toBe(true);
    expect(strictClientAccepts(w.signing_secret, r2)).toBe(false);
    expect(standardAccepts(w.signing_secret, r2)).toBe(false);
  });
});

describe('delivery: connection-time address checks', () => {
  it('connects to the address it checked, and refuses a name that now resolves privately', async () => {
    const guarded = await createTestApp({ allowPrivateWebhooks: false });
    try {
      let answers = [['93.184.216.34'], ['127.0.0.1']];
      setWebhookResolver(guarded.ctx, async () => answers.shift() ?? ['127.0.0.1']);
      const c = await guarded.req('POST', '/v1/webhooks', { body: { url: `https://rebind.example:${sink.port}/hook` } });
      expect(c.status, c.text).toBe(201); // public at creation...
      const w = createWebhookDeliveryWorker(guarded.ctx, { timeoutMs: 400 });
      await guarded.req('POST', '/v1/agents', { body: { name: 'x1' } });
      await w.runDue();
      const d = (await guarded.req('GET', `/v1/webhooks/${c.body.id}/deliveries`)).body.data[0];
      expect(d.status).toBe('failed'); // ...private at connection time
      expect(d.error).toMatch(/^refused: .*private/);
      expect(sink.requests).toHaveLength(0);
      answers = [];
      await w.stop();
    } finally {
      await guarded.close();
    }
    // allowed: the name is resolved by our lookup and the socket goes to that address
    setWebhookResolver(t.ctx, async () => ['127.0.0.1']);
    const w = await hook({ url: `http://receiver.example:${sink.port}/hook` });
    await makeEvent();
    await worker.runDue();
    expect(sink.requests[0].headers.host).toBe(`receiver.example:${sink.port}`);
    expect((await deliveries(w.id))[0].status).toBe('succeeded');
  });
});

describe('delivery: restart', () => {
  it('pending deliveries survive closing the app and database, and go out after reopening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-restart-'));
    const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
    const clock = new ManualClock(Date.now());
    try {
      let opened = openDatabase(config.dbFile);
      await migrate(opened.db);
      let ctx = createContext(config, opened.db, clock);
      const boot = await bootstrapWorkspace(ctx, {});
      let app = await buildApp(ctx, { logger: false });
      const key = boot.keys.live.key;
      const w = await call(app, 'POST', '/v1/webhooks', { key, body: { url: sink.url } });
      for (let i = 0; i < 3; i++) await call(app, 'POST', '/v1/agents', { key, body: { name: `r${i}` } });
      // one delivery was claimed by a worker that then died mid-attempt
      const first = (await call(app, 'GET', `/v1/webhooks/${w.body.id}/deliveries`, { key })).body.data.at(-1);
      const lease = [new Date(clock.now()).toISOString(), new Date(clock.now() + 75_000).toISOString()] as const;
      expect(await claimDeliveries(opened.db, [first.id], ...lease)).toEqual([first.id]);
      expect(await claimDeliveries(opened.db, [first.id], ...lease)).toEqual([]); // held: not won twice
      await app.close();
      await opened.close();
      expect(sink.requests).toHaveLength(0);

      opened = openDatabase(config.dbFile);
      await migrate(opened.db);
      ctx = createContext(config, opened.db, clock);
      app = await buildApp(ctx, { logger: false });
      const again = createWebhookDeliveryWorker(ctx);
      expect(await again.runDue()).toBe(2);
      clock.advance(76_000); // the dead worker's lease expires
      expect(await again.runDue()).toBe(1);
      expect(sink.requests).toHaveLength(3);
      const list = (await call(app, 'GET', `/v1/webhooks/${w.body.id}/deliveries`, { key })).body.data;
      expect(list.every((d: any) => d.status === 'succeeded' && d.attempt_number === 1)).toBe(true);
      await again.stop();
      await app.close();
      await opened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('delivery: the daemon loop', () => {
  it('start() delivers on the bus notification without a manual pass', async () => {
    await hook();
    const live = createWebhookDeliveryWorker(t.ctx, { pollMs: 60_000 });
    live.start();
    try {
      await makeEvent();
      await sink.waitFor(1);
      expect(sink.requests[0].headers['x-mails-event-type']).toMatch(/^agent\.(paused|resumed)$/);
    } finally {
      await live.stop();
    }
  });
});
