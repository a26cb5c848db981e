import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { parseSince } from '../../../src/services/event-queries.js';
import { emitEvent } from '../../../src/services/events.js';
import { inTransaction } from '../../../src/services/context.js';

let t: TestApp;
let other: { id: string };
beforeAll(async () => {
  t = await createTestApp({}, Date.parse('2026-03-10T12:00:00.000Z'));
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
});
afterAll(async () => { await t.close(); });

describe('since parsing (spec: Events → since)', () => {
  const Z = (s: string) => Date.parse(s);
  it.each([
    ['2026-03-10', Z('2026-03-10T00:00:00.000Z')],
    ['2026-03-10T09:30', Z('2026-03-10T09:30:00.000Z')],
    ['2026-03-10T09:30:15', Z('2026-03-10T09:30:15.000Z')],
    ['2026-03-10T09:30:15.250', Z('2026-03-10T09:30:15.250Z')],
    ['2026-03-10T09:30:15.2', Z('2026-03-10T09:30:15.200Z')],
    ['2026-03-10T09:30Z', Z('2026-03-10T09:30:00.000Z')],
    ['2026-03-10T09:30:15.250Z', Z('2026-03-10T09:30:15.250Z')],
    ['2026-03-10T09:30:15+02:00', Z('2026-03-10T07:30:15.000Z')],
    ['2026-03-10T09:30-05:30', Z('2026-03-10T15:00:00.000Z')],
    ['2026-03-10T09:30:15+0200', Z('2026-03-10T07:30:15.000Z')],
    ['2026-03-10T09:30:15 02:00', Z('2026-03-10T07:30:15.000Z')], // an unencoded + in a query string
    ['2024-02-29', Z('2024-02-29T00:00:00.000Z')],
  ])('%s', (text, want) => {
    expect(parseSince(text)).toBe(want);
  });
  it.each([
    '', 'yesterday', '1741600000', '2026-3-10', '2026-03-10T9:30', '2026-03-10T09', '2026-13-01', '2026-02-30',
    '2025-02-29', '2026-03-10T24:00', '2026-03-10T09:60', '2026-03-10T09:30:61', '2026-03-10T09:30+25:00',
    '2026-03-10 09:30', '2026-03-10T09:30:15.250ZZ', '10/03/2026', '2026-03-10T09:30:15.1234567890Z',
  ])('%s is refused', (text) => {
    expect(parseSince(text)).toBeNull();
  });
});

describe('GET /v1/events', () => {
  it('lists newest first with filters, pages with a cursor, and gets one', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      ids.push(await inTransaction(t.ctx, async (tx) => (await emitEvent(t.ctx, tx, {
        type: 'message.received', workspaceId: t.boot.workspace.id, agentId: i === 2 ? other.id : t.boot.agent.id,
        threadId: null, testMode: false, data: { i },
      })).id));
    }
    const all = await t.req('GET', '/v1/events', { query: { event_type: 'message.received' } });
    expect(all.body.data.map((e: any) => e.id)).toEqual([...ids].reverse());
    const p1 = await t.req('GET', '/v1/events', { query: { event_type: 'message.received', limit: 2 } });
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.req('GET', '/v1/events', { query: { event_type: 'message.received', limit: 2, cursor: p1.body.next_cursor } });
    expect(p2.body.data.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(p2.body.next_cursor).toBeUndefined();
    const byName = await t.req('GET', '/v1/events', { query: { agent_id: 'other' } });
    expect(byName.body.data.map((e: any) => e.id)).toEqual([ids[2], expect.any(String)]); // + its agent.created
    expect(byName.body.data.every((e: any) => e.agent_id === other.id)).toBe(true);
    const since = new Date(Date.parse((await t.req('GET', `/v1/events/${ids[1]}`)).body.created_at)).toISOString();
    const s = await t.req('GET', '/v1/events', { query: { since, event_type: 'message.received' } });
    expect(s.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const s2 = await t.req('GET', '/v1/events', { query: { since: since.slice(0, 16), event_type: 'message.received' } }); // minutes only
    expect(s2.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const g = await t.req('GET', `/api/v1/events/${ids[0]}`);
    expect(g.body).toMatchObject({ id: ids[0], object: 'event', type: 'message.received', agent_id: t.boot.agent.id, test_mode: false, data: { i: 0 } });
  });

  it('refuses bad parameters with the envelope', async () => {
    const err = async (query: Record<string, string | number>) => (await t.req('GET', '/v1/events', { query })).body.error;
    expect(await err({ since: 'last tuesday' })).toMatchObject({ code: 'invalid_param_value', param: 'since' });
    expect(await err({ since: '2026-02-30' })).toMatchObject({ code: 'invalid_param_value', param: 'since' });
    expect(await err({ event_type: 'message.nope' })).toMatchObject({ code: 'invalid_param_value', param: 'event_type' });
    expect(await err({ agent_id: 'ghost' })).toMatchObject({ code: 'agent_not_found', param: 'agent_id' });
    expect(await err({ limit: 101 })).toMatchObject({ code: 'invalid_param_value', param: 'limit' });
    expect(await err({ cursor: 'garbage' })).toMatchObject({ code: 'invalid_param_value', param: 'cursor' });
    expect(await err({ bogus: 1 })).toMatchObject({ code: 'invalid_field', param: 'bogus' });
    expect((await t.req('GET', '/v1/events/evt_00000000000000000000000000')).body.error.code).toBe('resource_not_found');
    expect((await t.req('GET', '/v1/events/xyz')).status).toBe(404);
    const noRead = await t.makeKey({ scopes: ['send'] });
    expect((await t.req('GET', '/v1/events', { key: noRead })).body.error.code).toBe('insufficient_scope');
  });

  it('agent-bound keys see only their agent', async () => {
    const bound = await t.makeKey({ scopes: ['read'], agent_id: other.id });
    const list = await t.req('GET', '/v1/events', { key: bound, query: { limit: 100 } });
    expect(list.body.data.length).toBeGreaterThan(0);
    expect(list.body.data.every((e: any) => e.agent_id === other.id)).toBe(true);
    const mine = (await t.req('GET', '/v1/events', { query: { agent_id: t.boot.agent.id, limit: 1 } })).body.data[0];
    expect((await t.req('GET', `/v1/events/${mine.id}`, { key: bound })).status).toBe(404);
    expect((await t.req('GET', '/v1/events', { key: bound, query: { agent_id: 'agent' } })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('GET', '/v1/events', { key: bound, query: { agent_id: 'other' } })).status).toBe(200);
  });
});
