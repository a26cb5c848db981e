import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';

/**
 * A cursor belongs to the list that handed it out (an outside tester passed a GET /v1/agents
 * cursor to GET /v1/messages and got a page): another list's cursor, or one altered, is 400
 * invalid_param_value naming `cursor` and saying what to do. Real HTTP app, real database.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  for (const name of ['c-one', 'c-two', 'c-three']) expect((await t.req('POST', '/v1/agents', { body: { name } })).status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: `c-one@local.mailagent.localhost`, subject: `note ${i}`, body_text: 'Just a note between agents.' } });
    expect(s.status, s.text).toBe(201);
  }
});
afterAll(async () => { await t.close(); });

async function cursorOf(path: string): Promise<string> {
  const r = await t.req('GET', path, { query: { limit: 1 } });
  expect(r.status, r.text).toBe(200);
  expect(r.body.next_cursor, path).toBeTruthy();
  return r.body.next_cursor;
}

describe('cursors name their list', () => {
  it('a cursor pages its own list, filters included', async () => {
    const c = await cursorOf('/v1/agents');
    const next = await t.req('GET', '/v1/agents', { query: { limit: 1, cursor: c } });
    expect(next.status, next.text).toBe(200);
    // Filters are not part of a cursor: it is a position in the list's order.
    expect((await t.req('GET', '/v1/agents', { query: { limit: 1, cursor: c, status: 'all' } })).status).toBe(200);
  });

  it('another list\'s cursor is 400 invalid_param_value, param cursor, naming both lists', async () => {
    const agents = await cursorOf('/v1/agents');
    const sent = await cursorOf('/v1/messages');
    const events = await cursorOf('/v1/events');
    const threads = await cursorOf('/v1/threads');
    const cases: [string, string, string, string][] = [
      ['/v1/messages', agents, 'agents', 'sent messages'],
      ['/v1/agents', sent, 'sent messages', 'agents'],
      ['/v1/messages/received', sent, 'sent messages', 'received messages'],
      ['/v1/threads', events, 'events', 'threads'],
      ['/v1/events', threads, 'threads', 'events'],
      ['/api/v1/api-keys', agents, 'agents', 'API keys'],
    ];
    for (const [path, cursor, from, to] of cases) {
      const r = await t.req('GET', path, { query: { cursor } });
      expect(r.status, `${path} ${r.text}`).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_param_value', param: 'cursor' });
      expect(r.body.error.message).toBe(`This cursor continues the list of ${from}, not this list of ${to}: pass a cursor only to the list whose page returned it, or leave \`cursor\` out to start from the first page.`);
    }
  });

  it('an altered or truncated cursor is 400 with what to do', async () => {
    const c = await cursorOf('/v1/messages');
    const text = Buffer.from(c, 'base64url').toString();
    const edited = Buffer.from(text.replace(/\|msg_[0-9a-z]{4}/, '|msg_0000')).toString('base64url');
    for (const bad of [c.slice(0, -3), edited, `${c}x`]) {
      const r = await t.req('GET', '/v1/messages', { query: { cursor: bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'cursor' });
      expect(r.body.error.message).toMatch(/not valid \(altered or cut short\).*leave `cursor` out/);
    }
  });
});
