import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { runRetention, purgeMessages } from '../../../src/services/retention.js';
import { sql } from 'kysely';
import { autoVacuumMode, databaseSize, VACUUM_STEP_PAGES } from '../../../src/db/maintenance.js';
import { DAY } from '../../../src/shared/clock.js';
import { count, deliver } from './helpers.js';
import { onPostgres } from '../../helpers/db.js';

const none = { messagesDays: 0, messagesPerAgent: 0, eventsDays: 0, webhookDeliveriesDays: 0, requestLogDays: 0 };

let t: TestApp;
afterEach(async () => t?.close());

describe('retention', () => {
  it('a new database runs with auto_vacuum=INCREMENTAL (migration 0012 / db/open.ts)', async (ctx) => {
    ctx.skip(onPostgres, 'SQLite only: auto_vacuum is an SQLite pragma (autovacuum returns space on PostgreSQL)');
    t = await createTestApp();
    expect(await autoVacuumMode(t.ctx.db)).toBe(2);
  });

  it('the default policy deletes nothing', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    await deliver(t.ctx, t.boot.agent.email, 'old');
    t.clock.advance(3650 * DAY);
    const c = await runRetention(t.ctx, none);
    expect(c).toMatchObject({ received: 0, sent: 0, events: 0 });
    expect(await count(t.ctx, 'received_messages')).toBe(1);
  });

  it('deletes messages older than N days with raw bytes and attachments, keeps newer ones, emits nothing, frees pages', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    const agent = t.boot.agent.email;
    const old: string[] = [];
    for (let i = 0; i < 30; i++) old.push(await deliver(t.ctx, agent, `old ${i}`, { attachment: 'y'.repeat(20_000) }));
    t.clock.advance(40 * DAY);
    const fresh = await deliver(t.ctx, agent, 'fresh');
    // An outbound message too (test mode, local delivery to the agent itself).
    const send = await t.req('POST', '/v1/messages', { key: t.testKey, body: { to: ['someone@example.com'], subject: 'recent send', text: 'hi' } });
    expect(send.status, send.text).toBe(201);
    const eventsBefore = await count(t.ctx, 'events');
    const attachmentsBefore = await count(t.ctx, 'received_attachments');
    expect(attachmentsBefore).toBe(31);
    const emitted: unknown[] = [];
    t.ctx.bus.on('event', (e) => emitted.push(e));

    const c = await runRetention(t.ctx, { ...none, messagesDays: 30 }, { batchSize: 7 });
    expect(c.received).toBe(30);
    expect(c.sent).toBe(0);
    expect(c.threads).toBe(30); // each old message was its own thread, now a tombstone
    expect(await count(t.ctx, 'received_messages')).toBe(1);
    expect(await count(t.ctx, 'received_attachments')).toBe(1);
    expect(await count(t.ctx, 'received_messages', `id = '${fresh}'`)).toBe(1);
    expect(await count(t.ctx, 'sent_messages')).toBe(1);
    expect(await count(t.ctx, 'message_refs', `message_id IN (${old.map((i) => `'${i}'`).join(',')})`)).toBe(0);
    // Expiry is silent: no event row, nothing on the bus, so no webhook.
    expect(await count(t.ctx, 'events')).toBe(eventsBefore);
    expect(emitted).toEqual([]);
    expect(await count(t.ctx, 'webhook_deliveries')).toBe(0);
    if (onPostgres) {
      // No incremental vacuum there (autovacuum's job): nothing to free, nothing reported.
      expect(c.pagesFreed).toBe(0);
      expect((await databaseSize(t.ctx.db, null)).bytes).toBeGreaterThan(0);
    } else {
      expect(c.pagesFreed).toBeGreaterThan(0);
      expect((await databaseSize(t.ctx.db, t.config.dbFile)).freeBytes).toBe(0);
    }
    // A deleted thread answers 404.
    expect((await t.req('GET', `/v1/messages/received/${old[0]}`)).status).toBe(404);
    expect((await t.req('GET', `/v1/messages/received/${fresh}`)).status).toBe(200);
  });

  it('large messages: pieces and pages go back in bounded steps, with a pause (a turn of the event loop) between every two', async (ctx) => {
    ctx.skip(onPostgres, 'SQLite only: the incremental vacuum');
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    // 12 messages of ~1.5 MB (each stored in 256 KB pieces: src/db/repos/blobs.ts), ~18 MB in all.
    for (let i = 0; i < 12; i++) await deliver(t.ctx, t.boot.agent.email, `big ${i}`, { attachment: 'q'.repeat(1_100_000) });
    t.clock.advance(40 * DAY);
    const freelist = async () => Number((await sql<{ freelist_count: number }>`pragma freelist_count`.execute(t.ctx.db)).rows[0].freelist_count);
    const seen: number[] = [];
    const c = await runRetention(t.ctx, { ...none, messagesDays: 30 }, { pause: async () => { seen.push(await freelist()); } });
    expect(c.received).toBe(12);
    expect(await count(t.ctx, 'blob_chunks')).toBe(0);
    expect(c.pagesFreed).toBeGreaterThan(4 * VACUUM_STEP_PAGES);
    expect(await freelist()).toBe(0);
    // Between two pauses, one vacuum step: the free list shrinks by at most VACUUM_STEP_PAGES.
    const steps = seen.slice(seen.indexOf(Math.max(...seen)));
    // …and each step frees a full step's pages, not one (the driver steps a pragma statement once).
    expect(steps.length).toBeGreaterThanOrEqual(Math.floor(c.pagesFreed / VACUUM_STEP_PAGES));
    expect(steps.length).toBeLessThanOrEqual(Math.ceil(c.pagesFreed / VACUUM_STEP_PAGES) + 1);
    for (let i = 1; i < steps.length; i++) expect(steps[i - 1] - steps[i]).toBeLessThanOrEqual(VACUUM_STEP_PAGES);
  });

  it('two passes at once (two daemons on one PostgreSQL) delete every row once, count it once, and fail nowhere', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    for (let i = 0; i < 24; i++) await deliver(t.ctx, t.boot.agent.email, `old ${i}`, { attachment: 'z'.repeat(2_000) });
    t.clock.advance(40 * DAY);
    const fresh = await deliver(t.ctx, t.boot.agent.email, 'fresh');
    const policy = { ...none, messagesDays: 30, messagesPerAgent: 20, eventsDays: 30, requestLogDays: 30 };
    // Each pass works in its own transactions (own pooled connections on PostgreSQL), interleaved.
    const [a, b] = await Promise.all([runRetention(t.ctx, policy, { batchSize: 5 }), runRetention(t.ctx, policy, { batchSize: 3 })]);
    expect(a.received + b.received).toBe(24);
    expect(a.threads + b.threads).toBe(24);
    expect(await count(t.ctx, 'received_messages')).toBe(1);
    expect(await count(t.ctx, 'received_messages', `id = '${fresh}'`)).toBe(1);
    expect(await count(t.ctx, 'received_attachments')).toBe(1);
  });

  it('keeps at most M messages per agent (the newest), and never touches scheduled sends', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    const agent = t.boot.agent.email;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(await deliver(t.ctx, agent, `m${i}`));
      t.clock.advance(1000);
    }
    const sched = await t.req('POST', '/v1/messages', { key: t.testKey, body: { to: ['x@example.com'], subject: 'later', text: 'hi', scheduled_at: new Date(t.clock.now() + DAY).toISOString() } });
    expect(sched.status, sched.text).toBeLessThan(300);
    const c = await runRetention(t.ctx, { ...none, messagesPerAgent: 5, messagesDays: 0 }, { batchSize: 3 });
    expect(c.received).toBe(7);
    const left = (await t.ctx.db.selectFrom('received_messages').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(left).toEqual(ids.slice(7));
    expect(await count(t.ctx, 'sent_messages', "status = 'scheduled'")).toBe(1);
  });

  it('events and request-log entries go after their own N days; an event whose webhook is still owed stays', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    await t.req('GET', '/v1/agents'); // one request-log entry
    const { flushRequestLog } = await import('../../../src/services/request-log.js');
    await flushRequestLog(t.ctx);
    const hook = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.received'] } });
    expect(hook.status, hook.text).toBe(201);
    await deliver(t.ctx, t.boot.agent.email, 'owed'); // its delivery stays pending (no worker runs)
    const totalEvents = await count(t.ctx, 'events');
    t.clock.advance(10 * DAY);
    const c = await runRetention(t.ctx, { ...none, eventsDays: 7, requestLogDays: 7 });
    expect(c.requestLog).toBeGreaterThanOrEqual(1);
    expect(await count(t.ctx, 'request_log')).toBe(0);
    expect(await count(t.ctx, 'events', "type = 'message.received'")).toBe(1);
    expect(c.events).toBe(totalEvents - 1);
    expect(await count(t.ctx, 'received_messages')).toBe(1); // messages follow their own policy
  });

  it('purge --agent removes only that agent\'s mail and events; --before only older mail', async () => {
    t = await createTestApp({}, Date.parse('2026-01-01T00:00:00Z'));
    const other = await t.req('POST', '/v1/agents', { body: { name: 'other' } });
    expect(other.status, other.text).toBe(201);
    await deliver(t.ctx, t.boot.agent.email, 'mine 1');
    await deliver(t.ctx, other.body.email, 'theirs 1');
    t.clock.advance(5 * DAY);
    await deliver(t.ctx, t.boot.agent.email, 'mine 2');
    const cutoff = new Date(t.clock.now() - DAY).toISOString();
    const byDate = await purgeMessages(t.ctx, { agentId: null, before: cutoff });
    expect(byDate.received).toBe(2);
    const byAgent = await purgeMessages(t.ctx, { agentId: t.boot.agent.id, before: null });
    expect(byAgent.received).toBe(1);
    expect(await count(t.ctx, 'received_messages')).toBe(0);
    expect(await count(t.ctx, 'events', `agent_id = '${t.boot.agent.id}'`)).toBe(0);
  });

  it('thread delete for good removes raw bytes, attachments and refs', async () => {
    t = await createTestApp();
    const id = await deliver(t.ctx, t.boot.agent.email, 'to delete', { attachment: 'z'.repeat(5000) });
    const msg = await t.ctx.db.selectFrom('received_messages').select(['thread_id', 'raw']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(msg.raw?.length).toBeGreaterThan(5000);
    const del = await t.req('DELETE', `/v1/threads/${msg.thread_id}`);
    expect(del.status, del.text).toBeLessThan(300);
    expect(await count(t.ctx, 'received_messages', `id = '${id}'`)).toBe(0);
    expect(await count(t.ctx, 'received_attachments', `received_message_id = '${id}'`)).toBe(0);
    expect(await count(t.ctx, 'message_refs', `thread_id = '${msg.thread_id}'`)).toBe(0);
  });
});
