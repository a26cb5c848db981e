import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// Concurrent sends to a real daemon over real HTTP: on SQLite they are written by the group
// commit (services/context.ts groupedTransaction: the units of one batch in one transaction, a
// failing unit undone alone, every response only after the shared commit is on disk). Here some
// units fail inside the batch: scheduled live sends reserve against the agent's daily cap in
// their transaction, and concurrent requests all pass the checks made before it.
let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon();
});
afterAll(async () => {
  await d?.stop();
});

const CAP = 5;
const SENDS = 12;

async function post(path: string, body: unknown, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(d.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('group commit over HTTP', () => {
  it('concurrent sends: the ones over the cap are refused, every other one stored and evented exactly once', async () => {
    const agent = await post('/v1/agents', { name: 'capped', daily_send_limit: CAP }, d.liveKey);
    expect(agent.status).toBe(201);
    // Mail to another agent of this server (no relay needed), a local part per send.
    const other = (await post('/v1/agents', { name: 'other' }, d.liveKey)).body.email as string;
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const results = await Promise.all(Array.from({ length: SENDS }, (_, i) => post('/v1/messages', {
      agent: 'capped', to: other.replace('@', `+r${i}@`), subject: `Receipt ${i}`, body_text: 'Thanks for your order.', scheduled_at: at,
    }, d.liveKey)));
    const stored = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(stored).toHaveLength(CAP);
    expect(refused).toHaveLength(SENDS - CAP);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('daily_limit_exceeded');
    }
    const ids = stored.map((r) => r.body.id as string).sort();
    expect(new Set(ids).size).toBe(CAP);

    const listed = await d.api('GET', `/v1/messages?agent_id=${agent.body.id}&limit=100`, undefined, d.liveKey);
    expect(listed.data.map((m: { id: string }) => m.id).sort()).toEqual(ids);
    for (const m of listed.data) expect(m.status).toBe('scheduled');

    const events = await d.api('GET', `/v1/events?event_type=message.scheduled&agent_id=${agent.body.id}&limit=100`, undefined, d.liveKey);
    const evented = events.data.map((e: { data: { message_id: string } }) => e.data.message_id).sort();
    expect(evented).toEqual(ids);
  });

  it('concurrent test sends with one Idempotency-Key reused: one message for the key, every other send stored once', async () => {
    const body = (i: number) => ({ agent: 'agent', to: `t${i}@example.com`, subject: `Test ${i}`, body_text: 'Hello' });
    const res = await Promise.all(Array.from({ length: SENDS }, async (_, i) => {
      const r = await fetch(`${d.url}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json', ...(i < 4 ? { 'idempotency-key': 'same-key' } : {}) },
        body: JSON.stringify(i < 4 ? body(0) : body(i)),
      });
      return { status: r.status, body: (await r.json()) as any };
    }));
    const keyed = res.slice(0, 4);
    // One request holds the key; the others see it in flight (409) or replay its answer.
    const ok = keyed.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    for (const r of keyed.filter((x) => x.status !== 201)) expect(r.status).toBe(409);
    for (const r of res.slice(4)) expect(r.status).toBe(201);
    const ids = [ok[0].body.id, ...res.slice(4).map((r) => r.body.id)].sort();
    const events = await d.api('GET', '/v1/events?event_type=message.sent&limit=100');
    const evented = events.data.map((e: { data: { message_id: string } }) => e.data.message_id).filter((id: string) => ids.includes(id)).sort();
    expect(evented).toEqual(ids);
  });
});
