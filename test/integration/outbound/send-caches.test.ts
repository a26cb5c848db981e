import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { tableMark, openDatabase } from '../../../src/db/open.js';
import { inTransaction, withinTransaction, type AuthContext } from '../../../src/services/context.js';
import { resolveAgent } from '../../../src/services/agents.js';

// The send path keeps workspaces, agents and webhook endpoints in memory while nothing writes
// their tables (services/read-cache.ts, db/open.ts tableMark). These tests show that sends do not
// drop those caches and that every way of changing such a row is seen by the very next send.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const sqlite = () => t.config.database.kind === 'sqlite';
const CACHED = ['workspaces', 'agents', 'webhook_endpoints'] as const;
const send = (body: Record<string, unknown> = {}) =>
  t.req('POST', '/v1/messages', { key: t.testKey, body: { to: 'bob@example.com', subject: 'Receipt', body_text: 'Thanks.', ...body } });
const deliveriesOf = async (messageId: string) => {
  const events = (await t.ctx.db.selectFrom('events').select(['id', 'payload']).where('type', '=', 'message.sent').execute())
    .filter((e) => JSON.parse(e.payload).source_message_id === messageId);
  expect(events).toHaveLength(1);
  const rows = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', events[0].id).execute();
  return rows.length;
};

describe('send-path caches: kept across sends, dropped by any change to their rows', () => {
  it('a send writes none of the cached tables, so their mark holds still (the caches are not dropped)', async () => {
    expect((await send()).status).toBe(201);
    const before = tableMark(t.ctx.db, CACHED);
    if (!sqlite()) {
      expect(before).toBeNull(); // PostgreSQL: nothing is cached
      return;
    }
    expect(before).not.toBeNull();
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(201);
    expect(tableMark(t.ctx.db, CACHED)).toBe(before);
    // A write to one of them moves it.
    await t.ctx.db.updateTable('agents').set({ updated_at: new Date().toISOString() }).where('name', '=', 'no-such-agent').execute();
    expect(tableMark(t.ctx.db, CACHED)).not.toBe(before);
  });

  it('another connection committing other tables (the queue writer: request log, inbound queue) leaves the mark as it was; one writing a cached table moves it', async () => {
    const spec = t.config.database;
    if (spec.kind !== 'sqlite') return; // PostgreSQL: nothing is cached
    const turn = () => new Promise((r) => setImmediate(r));
    await turn();
    const before = tableMark(t.ctx.db, CACHED);
    const other = new Database(spec.file);
    other.pragma('busy_timeout = 5000');
    other.exec('create table if not exists scratch (x); insert into scratch values (1)');
    await turn();
    expect(tableMark(t.ctx.db, CACHED)).toBe(before);
    // Requests write the request log (in a daemon by the queue writer's thread; here by this
    // connection): logs is not a cached table either way.
    for (let i = 0; i < 5; i++) expect((await t.req('GET', '/v1/me', { key: t.testKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(tableMark(t.ctx.db, CACHED)).toBe(before);
    other.prepare('update workspaces set tier = tier').run();
    await turn();
    expect(tableMark(t.ctx.db, CACHED)).not.toBe(before);
    other.exec('drop table scratch');
    other.close();
  });

  it('pausing the agent through the API refuses the very next send; resuming lets it through', async () => {
    expect((await send({ agent: 'agent' })).status).toBe(201);
    const p = await t.req('PATCH', '/v1/agents/agent', { body: { status: 'paused' } });
    expect(p.status, p.text).toBe(200);
    const r = await send({ agent: 'agent' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('agent_paused');
    expect((await t.req('PATCH', '/v1/agents/agent', { body: { status: 'active' } })).status).toBe(200);
    expect((await send({ agent: 'agent' })).status).toBe(201);
  });

  it('a second live agent makes the next send without `agent` ask which one (the live-agents list is not stale)', async () => {
    expect((await send()).status).toBe(201); // one live agent: chosen implicitly, now cached
    const a = await t.req('POST', '/v1/agents', { body: { name: 'second' } });
    expect(a.status, a.text).toBe(201);
    const r = await send();
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'missing_field', param: 'agent' });
    expect((await t.req('DELETE', `/v1/agents/${a.body.id}`)).status).toBe(200);
    expect((await send()).status).toBe(201);
  });

  it('an agent changed by another connection (another process) is seen by the next send', async () => {
    expect((await send({ agent: 'agent' })).status).toBe(201);
    if (t.config.database.kind === 'sqlite') {
      const other = new Database(t.config.database.file);
      other.pragma('busy_timeout = 5000');
      other.prepare("update agents set status = 'paused' where name = 'agent'").run();
      other.close();
      await new Promise((r) => setImmediate(r)); // looked for once per event-loop turn (db/open.ts OtherConnections)
    } else {
      const other = openDatabase(t.config.database);
      await other.db.updateTable('agents').set({ status: 'paused' }).where('name', '=', 'agent').execute();
      await other.close();
    }
    expect((await send({ agent: 'agent' })).body.error?.code).toBe('agent_paused');
    await t.ctx.db.updateTable('agents').set({ status: 'active' }).where('name', '=', 'agent').execute();
    expect((await send({ agent: 'agent' })).status).toBe(201);
  });

  it('an agent row read inside a transaction that wrote it is neither served from nor kept in the cache', async () => {
    const auth: AuthContext = { keyId: 'key_test', workspaceId: t.boot.workspace.id, mode: 'test', scopes: ['send'], agentId: null, expiresAt: null };
    expect((await resolveAgent(t.ctx, auth, 'agent', 'send')).status).toBe('active'); // cached
    await expect(inTransaction(t.ctx, async (tx) => {
      await tx.db.updateTable('agents').set({ status: 'paused' }).where('name', '=', 'agent').execute();
      // A service reads inside a transaction through a context bound to it (services/context.ts).
      expect((await resolveAgent(withinTransaction(t.ctx, tx), auth, 'agent', 'send')).status).toBe('paused'); // its own uncommitted row
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect((await resolveAgent(t.ctx, auth, 'agent', 'send')).status).toBe('active');
    expect((await send({ agent: 'agent' })).status).toBe(201);
  });

  it('a webhook endpoint created, paused or deleted is seen by the next send\'s events', async () => {
    const first = await send();
    expect(await deliveriesOf(first.body.id)).toBe(0);
    const hook = await t.req('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.sent'] } });
    expect(hook.status, hook.text).toBe(201);
    const second = await send();
    expect(await deliveriesOf(second.body.id)).toBe(1);
    const narrowed = await t.req('PATCH', `/v1/webhooks/${hook.body.id}`, { body: { event_types: ['message.delivered'] } });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(await deliveriesOf((await send()).body.id)).toBe(0);
    expect((await t.req('PATCH', `/v1/webhooks/${hook.body.id}`, { body: { event_types: ['message.sent'] } })).status).toBe(200);
    expect(await deliveriesOf((await send()).body.id)).toBe(1);
    expect((await t.req('DELETE', `/v1/webhooks/${hook.body.id}`)).status).toBe(200);
    expect(await deliveriesOf((await send()).body.id)).toBe(0);
  });
});
