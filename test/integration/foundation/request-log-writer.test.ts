import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { onPostgres } from '../../helpers/db.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { startSmtp } from '../inbound/helpers.js';
import { REQUEST_LOG_VALUES } from '../../../src/db/request-log-rows.js';

// services/request-log.ts: on SQLite, while the inbound queue's writer thread runs, the request
// log's batches are written on its connection (db/queue-writer.ts writeLogs), not on the main
// thread's; reads of the request log still see every answered request; without the writer (or
// when it fails) the main connection writes them.
let t: TestApp;
let smtp: SmtpListener | null;
beforeEach(async () => {
  t = await createTestApp();
  smtp = null;
});
afterEach(async () => {
  await smtp?.stop();
  await t.close();
});

const logged = async (requestId: string) => {
  const r = await t.req('GET', '/v1/logs', { query: { category: 'request', limit: 100 } });
  expect(r.status).toBe(200);
  return r.body.data.some((e: { metadata: { request_id: string } }) => e.metadata.request_id === requestId);
};

describe('request log on the writer thread', () => {
  it.skipIf(onPostgres)('SQLite with the writer: rows written by its connection, read back at once; after it stops, by the main connection', async () => {
    smtp = await startSmtp(t);
    expect(t.ctx.writeRequestLog).toBeTypeOf('function');
    const viaWriter = t.ctx.writeRequestLog!;
    let written = 0;
    t.ctx.writeRequestLog = async (batch) => {
      await viaWriter(batch);
      written += batch.length / REQUEST_LOG_VALUES;
    };
    const probes = [];
    for (let i = 0; i < 5; i++) probes.push((await t.req('GET', '/v1/me')).headers['x-request-id'] as string);
    for (const id of probes) expect(await logged(id)).toBe(true);
    expect(written).toBeGreaterThanOrEqual(5); // committed by the writer thread's connection

    await smtp.stop();
    smtp = null;
    expect(t.ctx.writeRequestLog).toBeUndefined();
    const after = (await t.req('GET', '/v1/me')).headers['x-request-id'] as string;
    expect(await logged(after)).toBe(true);
  });

  it('a writer that fails: the main connection writes the rows instead, none is lost', async () => {
    let calls = 0;
    t.ctx.writeRequestLog = async () => {
      calls++;
      throw new Error('queue writer exited with code 1');
    };
    const id = (await t.req('GET', '/v1/me')).headers['x-request-id'] as string;
    expect(await logged(id)).toBe(true);
    expect(calls).toBe(1);
  });
});
