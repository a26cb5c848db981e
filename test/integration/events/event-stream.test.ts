import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { emitEvent } from '../../../src/services/events.js';
import { inTransaction } from '../../../src/services/context.js';
import { configureEventStream, openStreamCount } from '../../../src/services/event-stream.js';
import type { EventType } from '../../../src/contract/events.js';

let t: TestApp;
let base: string;
let other: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  // 100 subscribers on one key below: above the default per-key cap (docs/security.md).
  configureEventStream(t.ctx, { keepaliveMs: 40, maxStreamsPerKey: 150 });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
});
afterAll(async () => { await t.close(); });

interface SseEvent { id: string; event: string; data: any }

/** A minimal SSE client over a real socket: raw text kept, frames parsed as they arrive. */
class Stream {
  raw = '';
  events: SseEvent[] = [];
  comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  private req!: http.ClientRequest;
  private waiters: (() => void)[] = [];

  static open(path: string, opts: { key?: string; headers?: Record<string, string> } = {}): Promise<Stream> {
    const s = new Stream();
    return new Promise((resolve, reject) => {
      s.req = http.get(base + path, { headers: { authorization: `Bearer ${opts.key ?? t.liveKey}`, ...(opts.headers ?? {}) } }, (res) => {
        s.status = res.statusCode ?? 0;
        s.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (c: string) => { s.raw += c; s.parse(); });
        res.on('end', () => { s.ended = true; s.notify(); });
        res.on('error', () => { s.ended = true; s.notify(); });
        if (s.status !== 200) res.on('end', () => resolve(s));
        else s.until(() => s.comments.length > 0).then(() => resolve(s), reject);
      });
      s.req.on('error', reject);
    });
  }

  private consumed = 0;
  private parse() {
    for (let end = this.raw.indexOf('\n\n', this.consumed); end >= 0; end = this.raw.indexOf('\n\n', this.consumed)) {
      const lines = this.raw.slice(this.consumed, end).split('\n');
      this.consumed = end + 2;
      if (lines.every((l) => l.startsWith(':'))) {
        this.comments.push(...lines.map((l) => l.slice(1).trim()));
      } else {
        const f = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
        this.events.push({ id: f.id, event: f.event, data: JSON.parse(f.data) });
      }
    }
    this.notify();
  }
  private notify() { for (const w of this.waiters.splice(0)) w(); }

  until(cond: () => boolean, ms = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stream: condition not met; ${this.events.length} events, ended=${this.ended}`)), ms);
      const check = () => {
        if (cond()) { clearTimeout(timer); resolve(); return; }
        if (this.ended) { clearTimeout(timer); reject(new Error('stream ended')); return; }
        this.waiters.push(check);
      };
      check();
    });
  }

  close() { this.req.destroy(); }
}

async function emit(type: EventType = 'message.received', agentId: string | null = null): Promise<string> {
  return inTransaction(t.ctx, async (tx) => (await emitEvent(t.ctx, tx, {
    type, workspaceId: t.boot.workspace.id, agentId: agentId ?? t.boot.agent.id, testMode: false, data: { at: Date.now() },
  })).id);
}

describe('GET /v1/events/stream', () => {
  it('speaks SSE exactly: connected comment, id/event/data frames, LF only, keepalives', async () => {
    const s = await Stream.open('/api/v1/events/stream');
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(s.headers['x-request-id']).toMatch(/^req_/);
    expect(s.raw.startsWith(': connected\n\n')).toBe(true);
    const id = await emit('message.received');
    await s.until(() => s.events.length === 1);
    const stored = (await t.req('GET', `/v1/events/${id}`)).body;
    expect(s.events[0]).toEqual({ id, event: 'message.received', data: stored });
    // One frame, the data on one line (key order may differ from the HTTP serialiser's; the parsed object is equal above).
    expect(s.raw).toMatch(new RegExp(`id: ${id}\nevent: message.received\ndata: \\{[^\\n]*\\}\n\n`));
    await s.until(() => s.comments.includes('keepalive'));
    expect(s.raw).not.toContain('\r');
    s.close();
    await new Promise((r) => setTimeout(r, 50));
  });

  it('resumes after an id (since or Last-Event-ID) with every later event exactly once, in order', async () => {
    const before = [await emit(), await emit(), await emit()];
    // Events keep being committed while the subscriber replays: nothing may be lost or doubled.
    let stop = false;
    const emitted: string[] = [];
    // At least two while the subscriber replays (the Last-Event-ID part below resumes after the
    // second-to-last): on a loaded PostgreSQL run 30 ms saw one.
    const producer = (async () => { while (!stop || emitted.length < 2) { emitted.push(await emit()); await new Promise((r) => setImmediate(r)); } })();
    const s = await Stream.open(`/v1/events/stream?since=${before[0]}&event_types=message.received`);
    await new Promise((r) => setTimeout(r, 30));
    stop = true;
    await producer;
    expect(emitted.length).toBeGreaterThan(1);
    const last = emitted[emitted.length - 1];
    await s.until(() => s.events.some((e) => e.id === last));
    const want = [before[1], before[2], ...emitted];
    expect(s.events.map((e) => e.id)).toEqual(want);
    s.close();

    // Last-Event-ID wins over since (a reconnecting EventSource repeats its URL)
    const r = await Stream.open(`/v1/events/stream?since=${before[0]}&event_types=message.received`, { headers: { 'last-event-id': emitted[emitted.length - 2] } });
    await r.until(() => r.events.length >= 1);
    expect(r.events.map((e) => e.id)).toEqual([last]);
    const next = await emit();
    await r.until(() => r.events.length === 2);
    expect(r.events[1].id).toBe(next);
    r.close();
  });

  it('since can be a time', async () => {
    const a = await emit('thread.created');
    const at = (await t.req('GET', `/v1/events/${a}`)).body.created_at;
    const b = await emit('thread.created');
    const s = await Stream.open(`/v1/events/stream?event_types=thread.created&since=${encodeURIComponent(at)}`);
    await s.until(() => s.events.length >= 2);
    expect(s.events.map((e) => e.id).slice(-2)).toEqual([a, b]);
    expect(s.events.every((e) => e.data.created_at >= at)).toBe(true);
    s.close();
  });

  it('filters by type and keeps agent-bound keys to their agent', async () => {
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    const mine = await Stream.open('/v1/events/stream', { key: bound });
    const typed = await Stream.open('/v1/events/stream?event_types=message.sent,thread.updated');
    await emit('message.received', t.boot.agent.id);
    const o = await emit('message.received', other.id);
    const sent = await emit('message.sent', t.boot.agent.id);
    const upd = await emit('thread.updated', other.id);
    await mine.until(() => mine.events.length === 2);
    expect(mine.events.map((e) => e.id)).toEqual([o, upd]);
    await typed.until(() => typed.events.length === 2);
    expect(typed.events.map((e) => e.id)).toEqual([sent, upd]);
    mine.close();
    typed.close();
  });

  it('refuses bad requests with the JSON envelope before streaming', async () => {
    const bad = await Stream.open('/v1/events/stream?since=whenever');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.raw).error).toMatchObject({ code: 'invalid_param_value', param: 'since' });
    const badType = await Stream.open('/v1/events/stream?event_types=message.sent,nope');
    expect(JSON.parse(badType.raw).error).toMatchObject({ code: 'invalid_param_value', param: 'event_types' });
    const badId = await Stream.open('/v1/events/stream', { headers: { 'last-event-id': 'x' } });
    expect(JSON.parse(badId.raw).error).toMatchObject({ code: 'invalid_param_value', param: 'Last-Event-ID' });
    const noKey = await Stream.open('/v1/events/stream', { key: 'mk_live_nope' });
    expect(noKey.status).toBe(401);
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    const foreign = await Stream.open('/v1/events/stream?agent_id=agent', { key: bound });
    expect(foreign.status).toBe(403);
  });

  it('ends when its key is revoked or expires: no event goes out after, with or without events to send', async () => {
    // Revoked while events flow: the event committed after the revocation is not delivered.
    const k1 = await t.makeKey({ scopes: ['read'], name: 'streamer' });
    const s1 = await Stream.open('/v1/events/stream?event_types=message.bounced', { key: k1 });
    const before = await emit('message.bounced');
    await s1.until(() => s1.events.length === 1);
    expect(s1.events[0].id).toBe(before);
    const id1 = (await t.req('GET', '/v1/api-keys')).body.data.find((k: { name: string }) => k.name === 'streamer').id;
    expect((await t.req('DELETE', `/v1/api-keys/${id1}`)).status).toBe(200);
    await emit('message.bounced');
    await s1.until(() => s1.ended);
    expect(s1.events.map((e) => e.id)).toEqual([before]);
    expect(s1.comments.some((c) => c.startsWith('closed revoked_api_key'))).toBe(true);
    // A new request with the key gets the envelope (what a reconnecting client sees).
    const again = await Stream.open('/v1/events/stream', { key: k1 });
    expect([again.status, JSON.parse(again.raw).error.code]).toEqual([401, 'revoked_api_key']);

    // Revoked with nothing to send: the stream ends at its next keepalive (40 ms here).
    const k2 = await t.makeKey({ scopes: ['read'], name: 'idle-streamer' });
    const s2 = await Stream.open('/v1/events/stream?event_types=message.bounced', { key: k2 });
    const id2 = (await t.req('GET', '/v1/api-keys')).body.data.find((k: { name: string }) => k.name === 'idle-streamer').id;
    await t.req('DELETE', `/v1/api-keys/${id2}`);
    await s2.until(() => s2.ended);
    expect(s2.events).toEqual([]);

    // Expired: the clock passes expires_at; the next event is not delivered.
    const expires = new Date(t.clock.now() + 60_000).toISOString();
    const k3 = await t.makeKey({ scopes: ['read'], name: 'expiring', expires_at: expires });
    const s3 = await Stream.open('/v1/events/stream?event_types=message.bounced', { key: k3 });
    const ok = await emit('message.bounced');
    await s3.until(() => s3.events.length === 1);
    t.clock.advance(61_000);
    await emit('message.bounced');
    await s3.until(() => s3.ended);
    expect(s3.events.map((e) => e.id)).toEqual([ok]);
    expect(s3.comments.some((c) => c.startsWith('closed expired_api_key'))).toBe(true);
  });

  it('serves 100 concurrent subscribers and cleans up when they leave', async () => {
    const baseline = openStreamCount(t.ctx);
    const subs = await Promise.all(Array.from({ length: 100 }, () => Stream.open('/v1/events/stream?event_types=message.delayed')));
    expect(openStreamCount(t.ctx)).toBe(baseline + 100);
    const id = await emit('message.delayed');
    await Promise.all(subs.map((s) => s.until(() => s.events.length === 1)));
    expect(subs.every((s) => s.events[0].id === id)).toBe(true);
    for (const s of subs) s.close();
    await new Promise<void>((resolve) => { const c = () => (openStreamCount(t.ctx) === baseline ? resolve() : setTimeout(c, 10)); c(); });
    expect(t.ctx.bus.listenerCount('event')).toBe(baseline);
  });

  it('daemon stop ends open streams instead of hanging', async () => {
    const own = await createTestApp();
    await own.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}/v1/events/stream`;
    const ended = new Promise<string>((resolve) => {
      http.get(url, { headers: { authorization: `Bearer ${own.liveKey}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve(text));
      });
    });
    await new Promise<void>((resolve) => { const c = () => (openStreamCount(own.ctx) === 1 ? resolve() : setTimeout(c, 5)); c(); });
    await own.close();
    expect(await ended).toContain(': connected');
    expect(openStreamCount(own.ctx)).toBe(0);
  });
});
