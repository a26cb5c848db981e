import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { addSuppression } from '../../../src/services/suppression.js';
import { inTransaction } from '../../../src/services/context.js';
import { senderHistory } from '../../../src/services/inbound.js';
import { observeStatements } from '../../../bench/tools/statement-hook.js';
import { dialectOf } from '../../../src/db/dialect.js';

// The classifier's sender history (services/inbound.ts senderHistory) reads the sender's
// suppression entries once: the same rows give the complaint count and, through findSuppression,
// whether the sender is suppressed for this agent (a consent allow lifting it).
let t: TestApp;
let ws: string;
let agentId: string;
let other: { id: string };
const seen: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  ws = t.boot.workspace.id;
  agentId = t.boot.agent.id;
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
  observeStatements({ ran: (sql) => seen.push(sql) });
});
afterAll(async () => { await t.close(); });

const add = (input: Parameters<typeof addSuppression>[2]) => inTransaction(t.ctx, (tx) => addSuppression(t.ctx, tx, input));
const history = (from: string, agent = agentId) => senderHistory(t.ctx, ws, agent, from, undefined);
/** SELECTs of suppression entries seen (SQLite: the hook observes better-sqlite3's statements; PostgreSQL: not counted). */
const expectSuppressionReads = (n: number) => {
  if (dialectOf(t.ctx.db) === 'sqlite') expect(seen.filter((s) => /from "suppressions"/.test(s))).toHaveLength(n);
};

describe('sender history: suppression entries', () => {
  it('an unknown sender: not suppressed, no complaints, one read of the entries', async () => {
    seen.length = 0;
    expect(await history('new@partner.test')).toMatchObject({ suppressed: false, complaints: 0 });
    expectSuppressionReads(1);
  });

  it('a complaint: suppressed and counted, whatever the case of the address, with one read of the entries', async () => {
    await add({ workspaceId: ws, agentId, address: 'angry@partner.test', type: 'complaint' });
    seen.length = 0;
    expect(await history('Angry@Partner.test')).toMatchObject({ suppressed: true, complaints: 1 });
    expectSuppressionReads(1);
  });

  it('an unsubscribe from one agent suppresses the sender for that agent only', async () => {
    await add({ workspaceId: ws, agentId, address: 'gone@partner.test', type: 'unsubscribe' });
    expect(await history('gone@partner.test')).toMatchObject({ suppressed: true, complaints: 0 });
    expect(await history('gone@partner.test', other.id)).toMatchObject({ suppressed: false, complaints: 0 });
  });

  it('a consent allow made after the complaint lifts the suppression; the complaint still counts', async () => {
    const allow = await t.req('POST', '/v1/suppression/allow', { body: { address: 'angry@partner.test', attestation: 'They wrote back asking to hear from us again.' } });
    expect(allow.status).toBe(201);
    expect(await history('angry@partner.test')).toMatchObject({ suppressed: false, complaints: 1 });
  });
});
