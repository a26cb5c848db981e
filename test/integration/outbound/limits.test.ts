import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';
import { HOUR, DAY, SECOND, isoAt } from '../../../src/shared/clock.js';

const START = Date.parse('2026-03-20T12:00:00.000Z');
let t: TestApp;
let relay: TestRelay;
beforeAll(async () => {
  relay = await TestRelay.start();
  t = await createTestApp({ relay: relay.url }, START);
});
afterAll(async () => {
  closeRelay(t.ctx);
  await t.close();
  await relay.stop();
});

const addrs = (n: number, p = 'u') => Array.from({ length: n }, (_, i) => `${p}${i}@example.com`);
const send = (to: string[], key?: string) => t.req('POST', '/v1/messages', { key, body: { agent: 'agent', to, subject: 'Your receipt', body_text: 'Thanks for your order.' } });
const setTier = (tier: string) => t.ctx.db.updateTable('workspaces').set({ tier }).execute();
const clearLog = () => t.ctx.db.deleteFrom('send_log').execute();

describe('send caps (counted per recipient, sliding windows, stored in SQLite)', () => {
  it('hourly cap: 429 with resets_at; Retry-After only when ≤ 60 s; test keys never refused', async () => {
    await setTier('free');
    await clearLog();
    expect((await send(addrs(20))).status).toBe(201);
    t.clock.advance(10 * 60 * SECOND);
    expect((await send(addrs(10, 'v'))).status).toBe(201);
    const over = await send(['w@example.com']);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('hourly_limit_exceeded');
    expect(over.body.error.resets_at).toBe(isoAt(START + HOUR));
    expect(over.body.error.retry_after_seconds).toBe(50 * 60);
    expect(over.headers['retry-after']).toBeUndefined();
    // 59 s before the window frees a slot, the wait is short: Retry-After is sent.
    t.clock.set(START + HOUR - 59 * SECOND);
    const soon = await send(['w@example.com']);
    expect(soon.body.error.retry_after_seconds).toBe(59);
    expect(soon.headers['retry-after']).toBe('59');
    const tm = await send(addrs(40, 'test'), t.testKey);
    expect(tm.status).toBe(201);
    t.clock.set(START + HOUR + SECOND);
    expect((await send(['w@example.com'])).status).toBe(201);
    // A single send over the cap alone: both null.
    const alone = await send(addrs(31, 'z'));
    expect(alone.status).toBe(429);
    expect(alone.body.error.resets_at).toBeNull();
    expect(alone.body.error.retry_after_seconds).toBeNull();
  });

  it('monthly cap on Free is free_tier_exceeded with resets_at at the next billing month', async () => {
    await clearLog();
    const old = isoAt(START - 2 * DAY);
    const rows = Array.from({ length: 3000 }, (_, i) => ({ message_id: 'msg_seed', recipient: `s${i}@example.com`, workspace_id: t.boot.workspace.id, agent_id: t.boot.agent.id, at: old }));
    for (let i = 0; i < rows.length; i += 500) await t.ctx.db.insertInto('send_log').values(rows.slice(i, i + 500)).execute();
    const r = await send(['s1@example.com']);
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('free_tier_exceeded');
    expect(r.body.error.resets_at).toBe('2026-04-01T00:00:00.000Z');
    await setTier('pro');
    // Pro has 50,000: 3,000 used is fine.
    expect((await send(['s1@example.com'])).status).toBe(201);
    await setTier('free');
    await clearLog();
  });

  it('per-agent hourly and daily limits', async () => {
    await clearLog();
    await setTier('pro');
    const a = await t.req('POST', '/v1/agents', { body: { name: 'limited', hourly_send_limit: 3, daily_send_limit: 5 } });
    expect(a.status).toBe(201);
    const s = (to: string[]) => t.req('POST', '/v1/messages', { body: { agent: 'limited', to, subject: 'Your receipt', body_text: 'Thanks for your order.' } });
    expect((await s(addrs(3, 'l'))).status).toBe(201);
    const h = await s(['l9@example.com']);
    expect(h.body.error.code).toBe('hourly_limit_exceeded');
    t.clock.advance(HOUR + SECOND);
    expect((await s(addrs(2, 'm'))).status).toBe(201);
    t.clock.advance(HOUR + SECOND);
    const d = await s(['l9@example.com']);
    expect(d.body.error.code).toBe('daily_limit_exceeded');
    // The default agent is unaffected.
    expect((await send(['x@example.com'])).status).toBe(201);
  });

  it('distinct-recipient fan-out for a new workspace; already-mailed recipients always pass', async () => {
    await clearLog();
    await setTier('pro');
    expect((await send(addrs(50, 'f'))).status).toBe(201);
    const more = await send(['new@example.com']);
    expect(more.status).toBe(429);
    expect(more.body.error.code).toBe('new_workspace_fanout_exceeded');
    expect(more.body.error.resets_at).toBeTruthy();
    expect((await send(['f1@example.com', 'f2@example.com'])).status).toBe(201);
    // A week later the limit doubles.
    await t.ctx.db.updateTable('workspaces').set({ created_at: isoAt(t.clock.now() - 8 * DAY) }).execute();
    expect((await send(['new@example.com'])).status).toBe(201);
  });

  it('burst: 100 send requests per 10 s per live key across send routes; a batch is one request', async () => {
    const key = await t.makeKey({ scopes: ['send', 'read'] });
    let last;
    for (let i = 0; i < 99; i++) last = await t.req('POST', '/v1/messages', { key, body: {} });
    expect(last!.status).toBe(400);
    expect(last!.headers['ratelimit-remaining']).toBe('1');
    const batch = await t.req('POST', '/v1/messages/batch', { key, body: [{}, {}, {}] });
    expect(batch.status).toBe(201);
    const over = await t.req('POST', '/v1/messages/msg_x/reply', { key, body: { body_text: 'hi' } });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limit_exceeded');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(10);
    t.clock.advance(10 * SECOND);
    expect((await t.req('POST', '/v1/messages', { key, body: {} })).status).toBe(400);
    const tkey = await t.makeKey({ scopes: ['send'], mode: 'test' }, t.testKey);
    for (let i = 0; i < 120; i++) {
      const r = await t.req('POST', '/v1/messages', { key: tkey, body: {} });
      expect(r.status).toBe(400);
    }
  });
});
