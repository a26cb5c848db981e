import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator, sql } from 'kysely';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { onPostgres } from '../../helpers/db.js';
import { ingestInbound } from '../../../src/services/inbound.js';
import { indexQueuedMessages } from '../../../src/services/search.js';
import { createSearchIndexer } from '../../../src/server/workers/search-index.js';
import { openDatabase, checkpointOffThread, searchIndexThread, runTransaction, migrate } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { indexSearchBatch, catchUpSearchIndex, hasPendingSearch } from '../../../src/db/search-index.js';
import { Daemon } from '../../../src/server/daemon.js';
import { loadConfig } from '../../../src/server/config.js';

/**
 * The full-text index is written off the write path (migration 0027, db/search-index.ts): storing
 * a message queues it in message_search_pending; batches (the background worker, or a search
 * first) write its index rows. What must hold: a search sees every message committed before it,
 * an update re-indexes, a delete leaves nothing behind, the queue survives a restart.
 */
let t: TestApp;
const D = 'local.mailagent.localhost';
const AGENT = `agent@${D}`;

async function deliver(subject: string, text: string): Promise<string> {
  const raw = await new MailComposer({ from: 'Alice <alice@sender.test>', to: AGENT, subject, text }).compile().build();
  const r = await ingestInbound(t.ctx, { raw, mailFrom: 'alice@sender.test', rcptTo: [AGENT], source: 'smtp', auth: { spf: true, dkim: true } });
  return r.stored![0].messageId;
}
async function send(subject: string, text: string): Promise<string> {
  const r = await t.req('POST', '/v1/messages', { key: t.testKey, body: { to: 'bob@example.com', subject, body_text: text } });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
const queued = async () => (await sql<{ message_id: string }>`SELECT message_id FROM message_search_pending ORDER BY message_id`.execute(t.ctx.db)).rows.map((r) => r.message_id);
/** The index's own rows of a message (SQLite: the rowid map beside FTS5; PostgreSQL: the tsvector table). */
const indexed = async (id: string) => (await sql`SELECT 1 FROM ${sql.table(onPostgres ? 'message_search' : 'message_search_keys')} WHERE message_id = ${id}`.execute(t.ctx.db)).rows.length > 0;
const received = async (q: string) => (await t.req('GET', '/v1/messages/received', { query: { q } })).body.data.map((m: { id: string }) => m.id);
const sent = async (q: string) => (await t.req('GET', '/v1/messages', { key: t.testKey, query: { q } })).body.data.map((m: { id: string }) => m.id);

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('search index queue', () => {
  it('storing a message queues it; a search indexes the queue first and finds it', async () => {
    const r = await deliver('Quokka sighting', 'A quokka was seen near the harbour.');
    const s = await send('Wombat report', 'The wombat count is 14.');
    expect(await queued()).toEqual(expect.arrayContaining([r, s]));
    expect(await indexed(r)).toBe(false);
    expect(await received('quokka')).toEqual([r]);
    expect(await sent('wombat')).toEqual([s]);
    expect(await queued()).toEqual([]);
    expect(await indexed(r)).toBe(true);
    expect(await indexed(s)).toBe(true);
  });

  it('a filter-only list leaves the queue alone; the background pass indexes it', async () => {
    const r = await deliver('Numbat notes', 'Numbats eat termites.');
    expect((await t.req('GET', '/v1/messages/received', { query: { q: 'is:unread' } })).status).toBe(200);
    expect(await queued()).toEqual([r]);
    const worker = createSearchIndexer(t.ctx);
    expect(await worker.tick()).toBe(1);
    expect(await queued()).toEqual([]);
    expect(await indexed(r)).toBe(true);
    expect(await worker.tick()).toBe(0);
    expect(await received('numbat')).toEqual([r]);
  });

  it('indexes a backlog larger than a batch, in batches', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push(await send(`Bilby ${i}`, `bilby number ${i}`));
    expect((await queued()).length).toBe(300);
    expect(await indexSearchBatch(t.ctx.db, 100)).toBe(100);
    expect((await queued()).length).toBe(200);
    expect(await indexQueuedMessages(t.ctx)).toBe(200);
    expect(await hasPendingSearch(t.ctx.db)).toBe(false);
    const all = await t.req('GET', '/v1/messages', { key: t.testKey, query: { q: 'bilby', limit: 100 } });
    expect(all.body.data).toHaveLength(100);
    expect(await sent('"bilby number 299"')).toEqual([ids[299]]);
  });

  it('an update of an indexed column re-queues the message; the old words no longer match', async () => {
    const s = await send('Platypus draft', 'Platypus text.');
    await catchUpSearchIndex(t.ctx.db);
    await sql`UPDATE sent_messages SET subject = 'Echidna final' WHERE id = ${s}`.execute(t.ctx.db);
    expect(await queued()).toEqual([s]);
    expect(await indexed(s)).toBe(false);
    expect(await sent('echidna')).toEqual([s]);
    expect(await sent('"platypus draft"')).toEqual([]);
    // An update of a column the index does not read queues nothing.
    await sql`UPDATE sent_messages SET status = 'sent' WHERE id = ${s}`.execute(t.ctx.db);
    expect(await queued()).toEqual([]);
  });

  it('deleting a message removes its queue row or its index rows', async () => {
    const a = await deliver('Dingo one', 'first dingo');
    const b = await deliver('Dingo two', 'second dingo');
    await indexSearchBatch(t.ctx.db, 1); // a indexed, b still queued
    expect(await indexed(a)).toBe(true);
    expect(await queued()).toEqual([b]);
    for (const id of [a, b]) {
      const m = await t.req('GET', '/v1/messages/received/' + id);
      const del = await t.req('DELETE', '/v1/threads/' + m.body.thread_id);
      expect(del.status, del.text).toBe(200);
    }
    expect(await queued()).toEqual([]);
    expect(await indexed(a)).toBe(false);
    expect(await received('dingo')).toEqual([]);
  });

  it('a rolled-back store queues nothing', async () => {
    await catchUpSearchIndex(t.ctx.db);
    await expect(runTransaction(t.ctx.db, async (tx) => {
      await sql`UPDATE sent_messages SET subject = 'Kangaroo' WHERE id IN (SELECT id FROM sent_messages LIMIT 1)`.execute(tx);
      throw new Error('undo');
    })).rejects.toThrow('undo');
    expect(await queued()).toEqual([]);
  });

  it('migration 0027 down() indexes what was queued and restores indexing in the transaction; up() again queues', async () => {
    await catchUpSearchIndex(t.ctx.db);
    const s = await send('Koala census', 'koalas everywhere');
    expect(await queued()).toEqual([s]);
    const migrator = new Migrator({ db: t.ctx.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('0026_table_versions');
    expect(down.error).toBeUndefined();
    // This version's code writes has_attachments (0031), which 0031's down() drops: put back for the
    // sends this test makes on the 0026 schema (0031's up() below adds it only when absent).
    for (const table of ['received_messages', 'sent_messages']) await sql.raw(`ALTER TABLE ${table} ADD COLUMN has_attachments INTEGER NOT NULL DEFAULT 0`).execute(t.ctx.db);
    expect(await indexed(s)).toBe(true);
    const inline = await send('Possum census', 'possums everywhere');
    expect(await indexed(inline)).toBe(true);
    expect(await migrate(t.ctx.db)).toContain('0027_search_index_queue');
    const after = await send('Wallaby census', 'wallabies everywhere');
    expect(await queued()).toEqual([after]);
    expect(await sent('census')).toEqual([after, inline, s]);
  });
});

describe.skipIf(onPostgres)('SQLite: batches on the checkpointer thread', () => {
  it('the daemon indexes what a send queued in the background, on that thread', async () => {
    const d = await Daemon.create(loadConfig({ dataDir: `${t.dir}/daemon`, port: 0, smtpPort: 0, logLevel: 'silent' }, {}), { quiet: true });
    try {
      const { http } = await d.start();
      const key = d.bootstrapped!.keys.test.key;
      const post = () => fetch(`${http}/v1/messages`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'bob@example.com', subject: 'Quoll sighting', body_text: 'a quoll' }),
      });
      for (const r of await Promise.all(Array.from({ length: 20 }, post))) expect(r.status).toBe(201);
      expect(searchIndexThread(d.ctx.db)).not.toBeNull();
      // The search-index worker (every 250 ms) empties the queue without any search asking.
      for (let i = 0; i < 100 && (await hasPendingSearch(d.ctx.db)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await hasPendingSearch(d.ctx.db)).toBe(false);
      const hits = await sql<{ n: number }>`SELECT count(*) AS n FROM message_search WHERE message_search MATCH 'quoll'`.execute(d.ctx.db);
      expect(hits.rows[0].n).toBe(20);
    } finally {
      await d.stop();
    }
  });

  it('run there while the main connection keeps writing; the queue survives closing and reopening', async () => {
    const file = `${t.dir}/thread.db`;
    let o = openDatabase(file);
    await migrate(o.db);
    const insert = (id: string) => sql`INSERT INTO sent_messages (id, workspace_id, agent_id, thread_id, api_key_id, test_mode, status, source, from_address, "to", cc, bcc, reply_to, subject, body_text, rfc_message_id, "references", metadata, tags, classifier_score, cost_usd, created_at, updated_at)
      VALUES (${id}, 'ws', 'ag', 'th', 'key', 1, 'sent', 'api', 'a@x.test', '[]', '[]', '[]', '[]', ${'Thread test ' + id}, 'marsupial', ${id + '@x'}, '[]', '{}', '[]', 0, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(o.db);
    await sql`PRAGMA foreign_keys = OFF`.execute(o.db);
    for (let i = 0; i < 10; i++) await insert(`msg_a${i}`);
    await o.close();
    // A restart: the queue is still there.
    o = openDatabase(file);
    await sql`PRAGMA foreign_keys = OFF`.execute(o.db);
    expect(await hasPendingSearch(o.db)).toBe(true);
    checkpointOffThread(o);
    for (let i = 0; i < 50 && !searchIndexThread(o.db); i++) await new Promise((r) => setTimeout(r, 50));
    expect(searchIndexThread(o.db)).not.toBeNull();
    // A batch on the thread and the main connection's writes, at once: each waits for the other.
    const [n] = await Promise.all([indexSearchBatch(o.db, 1000), ...Array.from({ length: 5 }, (_, i) => insert(`msg_b${i}`))]);
    await catchUpSearchIndex(o.db);
    expect(n + 0).toBeGreaterThanOrEqual(10);
    expect(await hasPendingSearch(o.db)).toBe(false);
    const hits = await sql<{ n: number }>`SELECT count(*) AS n FROM message_search WHERE message_search MATCH 'marsupial'`.execute(o.db);
    expect(hits.rows[0].n).toBe(15);
    await o.close();
  });
});
