import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SmtpPipe } from '../inbound/smtp-client.js';
import { startLiveDaemon, type LiveDaemon } from './helpers.js';

// An outside tester's findings (session 13, README only): an agent-bound key telling which other
// agents exist, a `null` body, CR/LF in a send's subject, a simulated reply threaded to another
// agent's message, a past `scheduled_at`, and a quoted local part at RCPT. A real daemon over real
// HTTP and SMTP; every JSON answer is checked against the contract (helpers.ts).

let d: LiveDaemon;
let bound = '';
let boundTest = '';
let other: { id: string; name: string; email: string };
let domain = '';

beforeAll(async () => {
  d = await startLiveDaemon();
  const sarah = await d.api('POST', '/v1/agents', { body: { name: 'sarah' } });
  expect(sarah.status, sarah.text).toBe(201);
  domain = sarah.body.email.split('@')[1];
  // The other agent's name appears nowhere in the answers' own words ("agent" would).
  const quill = await d.api('POST', '/v1/agents', { body: { name: 'quill' } });
  expect(quill.status, quill.text).toBe(201);
  other = { id: quill.body.id, name: quill.body.name, email: quill.body.email };
  const scopes = ['send', 'read', 'manage', 'draft'];
  const k1 = await d.api('POST', '/v1/api-keys', { body: { name: 'sarah live', mode: 'live', scopes, agent_id: 'sarah' } });
  expect(k1.status, k1.text).toBe(201);
  bound = k1.body.key;
  const k2 = await d.api('POST', '/v1/api-keys', { body: { name: 'sarah test', mode: 'test', scopes, agent_id: 'sarah' } });
  expect(k2.status, k2.text).toBe(201);
  boundTest = k2.body.key;
}, 60_000);

afterAll(async () => {
  await d?.stop();
});

/** An answer with the agent reference and the per-request ids taken out: what a prober could compare. */
function shape(res: { status: number; text: string }, ref: string): string {
  // A `from` address is answered by its local part ("No agent \"quill\"").
  const text = res.text.split(ref).join('<REF>').split(ref.split('@')[0]).join('<REF>');
  return `${res.status} ${text.replace(/req_[0-9a-z]+/g, 'req_…')}`;
}

describe('an agent-bound key cannot tell which other agents exist', () => {
  // Every route that takes an agent filter or reference. q(ref) builds the request.
  const enc = encodeURIComponent;
  const routes: { name: string; test?: boolean; noIds?: boolean; status: number; code: string; q: (ref: string) => [string, string, unknown?] }[] = [
    { name: 'received list', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/messages/received?agent_id=${enc(r)}`] },
    { name: 'threads list', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/threads?agent_id=${enc(r)}`] },
    { name: 'messages list', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/messages?agent_id=${enc(r)}`] },
    { name: 'drafts list', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/drafts?agent_id=${enc(r)}`] },
    { name: 'events list', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/events?agent_id=${enc(r)}`] },
    { name: 'event stream', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/events/stream?agent_id=${enc(r)}`] },
    { name: 'reputation', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/reputation?agent_id=${enc(r)}`] },
    { name: 'metrics', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/metrics?agent_id=${enc(r)}`] },
    { name: 'usage', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/billing/usage?agent_id=${enc(r)}`] },
    { name: 'logs', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/logs?agent_id=${enc(r)}`] },
    { name: 'suppression lookup', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/suppression?address=bob%40example.com&agent_id=${enc(r)}`] },
    { name: 'suppression entries', status: 403, code: 'insufficient_scope', q: (r) => ['GET', `/v1/suppression/entries?agent_id=${enc(r)}`] },
    { name: 'classify', status: 403, code: 'insufficient_scope', q: (r) => ['POST', '/v1/classify', { agent: r, from: 'a@example.com', subject: 'Hi', body_text: 'Hello there.' }] },
    { name: 'simulator', test: true, status: 403, code: 'insufficient_scope', q: (r) => ['POST', '/v1/test/inbound', { agent: r, from: 'a@example.com', subject: 'Hi', body_text: 'Hello.' }] },
    { name: 'agent read', status: 404, code: 'agent_not_found', q: (r) => ['GET', `/v1/agents/${enc(r)}`] },
    { name: 'agent change', status: 404, code: 'agent_not_found', q: (r) => ['PATCH', `/v1/agents/${enc(r)}`, { display_name: 'X' }] },
    { name: 'agent archive', status: 404, code: 'agent_not_found', q: (r) => ['DELETE', `/v1/agents/${enc(r)}`] },
    { name: 'inbox wait', status: 404, code: 'agent_not_found', q: (r) => ['GET', `/v1/agents/${enc(r)}/inbox/wait?timeout=0`] },
    { name: 'send', test: true, status: 404, code: 'agent_not_found', q: (r) => ['POST', '/v1/messages', { agent: r, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' }] },
    { name: 'send from', test: true, noIds: true, status: 404, code: 'agent_not_found', q: (r) => ['POST', '/v1/messages', { from: r.includes('@') ? r : `${r}@${domain}`, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' }] },
    { name: 'batch', test: true, status: 201, code: '', q: (r) => ['POST', '/v1/messages/batch', [{ agent: r, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' }]] },
    { name: 'draft', test: true, status: 404, code: 'agent_not_found', q: (r) => ['POST', '/v1/drafts', { agent: r, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' }] },
    { name: 'appeal', status: 404, code: 'agent_not_found', q: (r) => ['POST', '/v1/messages/appeal', { agent: r, subject: 'Hi', body_text: 'Hello.' }] },
    { name: 'suppression add', status: 404, code: 'agent_not_found', q: (r) => ['POST', '/v1/suppression', { address: 'bob@example.com', agent_id: r }] },
    { name: 'key binding', status: 403, code: 'insufficient_scope', q: (r) => ['POST', '/v1/api-keys', { name: 'x', scopes: ['read'], agent_id: r }] },
  ];

  it('every route answers an existing other agent exactly as a nonexistent one (by name, id and address)', async () => {
    const fakeId = other.id.slice(0, -4) + 'zzzz';
    const pairs: [string, string][] = [[other.name, 'nosuch'], [other.id, fakeId], [other.email, `nosuch@${domain}`]];
    const mismatches: string[] = [];
    for (const route of routes) {
      for (const [real, fake] of pairs) {
        if (route.noIds && real === other.id) continue; // `from` takes a handle or an address
        const key = route.test ? boundTest : bound;
        const answers = [];
        for (const ref of [real, fake]) {
          const [method, path, body] = route.q(ref);
          const res = await d.api(method, path, { key, body, headers: { accept: 'application/json' } });
          if (route.name === 'batch') {
            expect(res.status, `${route.name} ${ref}: ${res.text}`).toBe(201);
            expect(res.body.data[0].error.code, `${route.name} ${ref}`).toBe('agent_not_found');
          } else {
            expect(res.status, `${route.name} ${ref}: ${res.text}`).toBe(route.status);
            expect(res.body.error.code, `${route.name} ${ref}`).toBe(route.code);
          }
          answers.push(shape(res, ref));
        }
        if (answers[0] !== answers[1]) mismatches.push(`${route.name}:\n  ${answers[0]}\n  ${answers[1]}`);
      }
    }
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  }, 60_000);

  it('the filter refusal says what is true either way', async () => {
    const r = await d.api('GET', '/v1/messages/received?agent_id=nosuch', { key: bound });
    expect(r.status, r.text).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'insufficient_scope', param: 'agent_id' });
    expect(r.body.error.message).toBe(`This key is bound to agent sarah <sarah@${domain}> and cannot act on agent "nosuch".`);
    // Its own agent, by any name, still works.
    for (const ref of ['sarah', `sarah@${domain}`]) {
      expect((await d.api('GET', `/v1/messages/received?agent_id=${encodeURIComponent(ref)}`, { key: bound })).status).toBe(200);
    }
  });

  it('the MCP tools (over HTTP) answer alike too', async () => {
    const client = new Client({ name: 'tester13', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${boundTest}` } } }));
    try {
      const tools: [string, (ref: string) => Record<string, unknown>][] = [
        ['mails.list_received', (r) => ({ agent_id: r })],
        ['mails.list_threads', (r) => ({ agent_id: r })],
        ['mails.list_messages', (r) => ({ agent_id: r })],
        ['mails.get_reputation', (r) => ({ agent_id: r })],
        ['mails.check_suppression', (r) => ({ address: 'bob@example.com', agent_id: r })],
        ['mails.test_inbound', (r) => ({ agent: r, from: 'a@example.com', subject: 'Hi', body_text: 'Hello.' })],
        ['mails.wait_for_message', (r) => ({ agent: r, timeout_seconds: 1 })],
        ['mails.extract', (r) => ({ agent: r })],
        ['mails.send', (r) => ({ agent: r, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' })],
        ['mails.create_draft', (r) => ({ agent: r, to: 'bob@example.com', subject: 'Hi', body_text: 'Hello.' })],
        ['mails.classify', (r) => ({ agent: r, from: 'a@example.com', subject: 'Hi', body_text: 'Hello.' })],
      ];
      const mismatches: string[] = [];
      for (const [name, args] of tools) {
        const answers: string[] = [];
        for (const ref of [other.name, 'nosuch']) {
          const r = (await client.callTool({ name, arguments: args(ref) })) as CallToolResult;
          expect(r.isError, `${name} ${ref}: ${JSON.stringify(r.content)}`).toBe(true);
          const err = JSON.parse((r.content[0] as { text: string }).text).error;
          expect(['insufficient_scope', 'agent_not_found'], `${name} ${ref}`).toContain(err.code);
          answers.push(JSON.stringify({ ...err, request_id: undefined }).split(ref).join('<REF>'));
        }
        if (answers[0] !== answers[1]) mismatches.push(`${name}:\n  ${answers[0]}\n  ${answers[1]}`);
      }
      expect(mismatches, mismatches.join('\n')).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('a JSON `null` body is not an object', () => {
  it('gets the same 400 as [] on every route with a JSON body', async () => {
    const routes = ['/v1/messages', '/v1/agents', '/v1/drafts', '/v1/classify', '/v1/webhooks', '/v1/api-keys', '/v1/suppression', '/v1/labels'];
    for (const path of routes) {
      const key = path === '/v1/drafts' || path === '/v1/classify' ? d.testKey : d.liveKey;
      const asNull = await d.api('POST', path, { key, raw: 'null' });
      const asArray = await d.api('POST', path, { key, raw: '[]' });
      expect(asNull.status, `${path}: ${asNull.text}`).toBe(400);
      expect(asNull.body.error, path).toMatchObject({ code: 'invalid_field', param: 'body', message: 'The request body must be a JSON object.' });
      expect(shape(asNull, 'null'), path).toBe(shape(asArray, 'null'));
    }
    const patch = await d.api('PATCH', '/v1/agents/agent', { raw: 'null' });
    expect(patch.body.error, patch.text).toMatchObject({ code: 'invalid_field', param: 'body' });
    // An empty body is still an absent one: the required field is named.
    const empty = await d.api('POST', '/v1/messages', { raw: '' });
    expect(empty.body.error).toMatchObject({ code: 'missing_field', param: 'to' });
  });
});

describe('a send subject is one header line', () => {
  it('CR, LF and other control characters in `subject` are refused on send, reply, batch and drafts; a tab is kept', async () => {
    const evil = 'x\r\nBcc: x@evil.example';
    const send = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: evil, body_text: 'b' } });
    expect(send.status, send.text).toBe(400);
    expect(send.body.error).toMatchObject({ code: 'invalid_param_value', param: 'subject' });
    expect(send.body.error.message).toMatch(/one line/);
    for (const s of ['a\nb', 'a\rb', 'a\u0000b', 'a\u001bb', 'a\u007fb']) {
      const r = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: s, body_text: 'b' } });
      expect(r.body.error?.param, JSON.stringify(s)).toBe('subject');
    }
    const draft = await d.api('POST', '/v1/drafts', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: evil, body_text: 'b' } });
    expect(draft.body.error, draft.text).toMatchObject({ code: 'invalid_param_value', param: 'subject' });
    const batch = await d.api('POST', '/v1/messages/batch', { key: d.testKey, body: [{ agent: 'agent', to: 'bob@example.com', subject: evil, body_text: 'b' }] });
    expect(batch.body.data[0].error, batch.text).toMatchObject({ param: 'subject' });
    const tab = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'a\tb', body_text: 'b' } });
    expect(tab.status, tab.text).toBe(201);
    expect(tab.body.subject).toBe('a\tb');
    const reply = await d.api('POST', `/v1/messages/${tab.body.id}/reply`, { key: d.testKey, body: { subject: evil, body_text: 'b' } });
    expect(reply.body.error, reply.text).toMatchObject({ param: 'subject' });
  });
});

describe('a simulated reply to another agent\'s message', () => {
  it('is 400 naming in_reply_to_message_id with an unbound key, as with a bound one', async () => {
    const sent = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'sarah', to: 'bob@example.com', subject: 'From sarah', body_text: 'b' } });
    expect(sent.status, sent.text).toBe(201);
    const r = await d.api('POST', '/v1/test/inbound', { key: d.testKey, body: { agent: 'agent', from: 'bob@example.com', subject: 'Re: From sarah', body_text: 'hi', in_reply_to_message_id: sent.body.id } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'in_reply_to_message_id' });
    expect(r.body.error.message).toContain('belongs to another agent');
    // To the agent that sent it, it threads as the reply.
    const ok = await d.api('POST', '/v1/test/inbound', { key: d.testKey, body: { agent: 'sarah', from: 'bob@example.com', subject: 'Re: From sarah', body_text: 'hi', in_reply_to_message_id: sent.body.id } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ thread_id: sent.body.thread_id, event_type: 'reply.received' });
    // A bound key still reads another agent's message as unknown.
    const other = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'From agent', body_text: 'b' } });
    const b = await d.api('POST', '/v1/test/inbound', { key: boundTest, body: { agent: 'sarah', from: 'bob@example.com', subject: 'x', body_text: 'hi', in_reply_to_message_id: other.body.id } });
    expect(b.body.error, b.text).toMatchObject({ param: 'in_reply_to_message_id' });
    expect(b.body.error.message).not.toContain('another agent');
  });
});

describe('a past scheduled_at', () => {
  it('beyond the 60-second skew tolerance is a 400; within it the send goes at once', async () => {
    const past = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'Old', body_text: 'b', scheduled_at: '2020-01-01T00:00:00Z' } });
    expect(past.status, past.text).toBe(400);
    expect(past.body.error).toMatchObject({ code: 'invalid_param_value', param: 'scheduled_at' });
    expect(past.body.error.message).toMatch(/in the past.*leave `scheduled_at` out to send it now.*60 seconds/);
    const tooOld = new Date(Date.now() - 5 * 60_000).toISOString();
    const r2 = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'Old', body_text: 'b', scheduled_at: tooOld } });
    expect(r2.body.error?.param, r2.text).toBe('scheduled_at');
    const batch = await d.api('POST', '/v1/messages/batch', { key: d.testKey, body: [{ agent: 'agent', to: 'bob@example.com', subject: 'Old', body_text: 'b', scheduled_at: '2020-01-01T00:00:00Z' }] });
    expect(batch.body.data[0].error, batch.text).toMatchObject({ param: 'scheduled_at' });
    const skewed = new Date(Date.now() - 5_000).toISOString();
    const ok = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'Skewed', body_text: 'b', scheduled_at: skewed } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.status).toBe('sent');
    // null still means "now".
    const none = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'agent', to: 'bob@example.com', subject: 'Now', body_text: 'b', scheduled_at: null } });
    expect(none.status, none.text).toBe(201);
  });
});

describe('a quoted local part at RCPT (RFC 5321 §4.1.2)', () => {
  it('"agent"@domain is agent@domain over real SMTP; a quoted part that needs its quotes is still unknown', async () => {
    const smtp = await SmtpPipe.open(d.smtpPort);
    try {
      expect(await smtp.cmd('MAIL FROM:<dana@sender.example>')).toMatch(/^250/);
      // Content that needs its quotes names another mailbox (none here): refused, never agent@.
      expect(await smtp.cmd(`RCPT TO:<"agent x"@${domain}>`)).toMatch(/^5\d\d /);
      expect(await smtp.cmd(`RCPT TO:<".agent"@${domain}>`)).toMatch(/^550 5\.1\.1/);
      expect(await smtp.cmd(`RCPT TO:<"agent..x"@${domain}>`)).toMatch(/^5\d\d /);
      expect(await smtp.cmd(`RCPT TO:<"nosuch"@${domain}>`)).toMatch(/^550 5\.1\.1/);
      expect(await smtp.cmd('RSET')).toMatch(/^250/);
      // `\a` is a quoted pair: "sar\ah+x" is sarah+x, sarah's plus address.
      const raw = Buffer.from(`From: dana@sender.example\r\nTo: "agent"@${domain}\r\nSubject: Quoted local part\r\nMessage-ID: <q1@sender.example>\r\n\r\nHello.\r\n`);
      expect(await smtp.send('dana@sender.example', [`"agent"@${domain}`, `"sar\\ah+x"@${domain}`], raw)).toMatch(/^250/);
    } finally {
      await smtp.quit();
    }
    for (const [agent, to] of [['agent', `agent@${domain}`], ['sarah', `sarah+x@${domain}`]]) {
      const list = await d.api('GET', `/v1/messages/received?agent_id=${agent}`);
      const got = list.body.data.find((m: { subject: string }) => m.subject === 'Quoted local part');
      expect(got, `${agent}: ${list.text.slice(0, 400)}`).toBeDefined();
      expect(JSON.stringify(got.to)).toContain(to);
    }
  });
});
