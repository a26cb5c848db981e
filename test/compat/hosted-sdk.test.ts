/**
 * Issue #11, "Done when": every method of the hosted TypeScript SDK returns objects its types
 * allow. The SDK's types are rewritten as schemas in ./hosted-sdk-types.ts (from its published
 * types, not from our contract); here each SDK method's request is made the way the SDK makes it
 * (`/api/v1/...`, Bearer key, `Content-Type: application/json` on every request, empty bodies on
 * body-less POSTs) against a real `mailagent serve`, and each answer is checked against them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { TSchema } from 'typebox';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startSink, type Sink } from '../helpers/sink.js';
import * as T from './hosted-sdk-types.js';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const compiled = new Map<TSchema, ValidateFunction>();
const validator = (s: TSchema) => {
  let v = compiled.get(s);
  if (!v) compiled.set(s, (v = ajv.compile(JSON.parse(JSON.stringify(s)))));
  return v;
};

let d: TestDaemon;
let sink: Sink;
const mismatches: string[] = [];
const checked: string[] = [];

/** One SDK method: the request as the SDK sends it, the answer checked against its declared type. */
async function sdk(method: string, name: string, httpMethod: string, path: string, type: TSchema, body?: unknown, key?: string): Promise<any> {
  const res = await fetch(`${d.url}/api/v1${path}`, {
    method: httpMethod,
    headers: { authorization: `Bearer ${key ?? d.testKey}`, 'content-type': 'application/json' },
    body: body === undefined ? (httpMethod === 'POST' ? '' : undefined) : JSON.stringify(body),
  });
  const json = await res.json();
  expect(res.ok, `${method} ${httpMethod} ${path}: ${res.status} ${JSON.stringify(json)}`).toBe(true);
  const v = validator(type);
  checked.push(method);
  if (!v(json)) mismatches.push(`${method} (${name}): ${ajv.errorsText(v.errors)} in ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

beforeAll(async () => {
  sink = await startSink();
  d = await startDaemon();
}, 60_000);

afterAll(async () => {
  await d?.stop();
  await sink?.close();
});

describe('the hosted TypeScript SDK against mailagent serve', () => {
  it('every method answers a shape its types allow', async () => {
    const agent = 'agent';
    const me = await sdk('me.get', 'Me', 'GET', '/me', T.Me);
    const domain = me.agent?.domain ?? (await sdk('agents.list', 'Page<Agent>', 'GET', '/agents', T.Pages.Agent)).data[0].domain;
    const agentAddr = `${agent}@${domain}`;

    // Agents
    await sdk('agents.create', 'Agent', 'POST', '/agents', T.Agent, { name: 'sdkcheck' }, d.liveKey);
    await sdk('agents.list', 'Page<Agent>', 'GET', '/agents', T.Pages.Agent);
    await sdk('agents.get', 'Agent', 'GET', `/agents/sdkcheck`, T.Agent);
    await sdk('agents.update', 'Agent', 'PATCH', `/agents/sdkcheck`, T.Agent, { hourly_send_limit: 20 }, d.liveKey);

    // API keys: the SDK may send only a name, or only scopes.
    const k1 = await sdk('apiKeys.create (name only)', 'ApiKeyCreated', 'POST', '/api-keys', T.ApiKeyCreated, { name: 'sdk only name' }, d.liveKey);
    expect(k1).toMatchObject({ mode: 'live', scopes: ['send', 'read', 'manage', 'draft'] });
    const k2 = await sdk('apiKeys.create (scopes only)', 'ApiKeyCreated', 'POST', '/api-keys', T.ApiKeyCreated, { scopes: ['read'] });
    expect(k2).toMatchObject({ mode: 'test', scopes: ['read'], name: 'API key' });
    await sdk('apiKeys.list', 'Page<ApiKey>', 'GET', '/api-keys', T.Pages.ApiKey);
    await sdk('apiKeys.revoke', 'ApiKeyRevoked', 'DELETE', `/api-keys/${k2.id}`, T.ApiKeyRevoked);

    // Sending: plain, scheduled, a test send the cold screen would refuse, batch, reply, forward.
    const sent = await sdk('messages.send', 'SendResult', 'POST', '/messages', T.SendResult, { from: agent, to: 'bob@example.com', subject: 'Your invoice', text: 'Invoice 1042 is attached to your account.' });
    expect(sent.routing_pool).toBe('clean');
    const later = await sdk('messages.send (scheduled)', 'SendResult', 'POST', '/messages', T.SendResult, {
      to: ['bob@example.com'], subject: 'Later', body_text: 'b', scheduled_at: new Date(Date.now() + 3_600_000).toISOString(), agent,
    });
    expect(later.scheduled_at).toBeTruthy();
    const cold = await sdk('messages.send (cold, test key)', 'SendResult', 'POST', '/messages', T.SendResult, {
      agent, to: 'ceo@bigcorp.example', subject: 'Quick question about your growth',
      body_text: 'Hi, I came across your company and wanted to reach out. We help companies increase your revenue by 3x. Do you have 15 minutes for a quick call next week?',
    });
    expect(cold.classifier_warning?.code).toBe('cold_email_prohibited');
    expect(cold.routing_pool).toBe('outbound');
    await sdk('messages.batch', 'BatchResult', 'POST', '/messages/batch', T.BatchResult, [
      { agent, to: 'a@example.com', subject: 'One', body_text: 'b' }, { agent, to: 'b@example.com', subject: 'Two', body_text: 'b' },
    ]);
    await sdk('messages.list', 'Page<SentMessage>', 'GET', '/messages', T.Pages.SentMessage);
    await sdk('messages.get', 'SentMessage', 'GET', `/messages/${sent.id}`, T.SentMessage);
    await sdk('messages.get (scheduled)', 'SentMessage', 'GET', `/messages/${later.id}`, T.SentMessage);
    await sdk('messages.appeal', 'AppealResult', 'POST', '/messages/appeal', T.AppealResult, { agent, subject: 'Your invoice', body_text: 'Invoice 1042 is attached to your account.' });

    // Inbound: the simulator, a reply to a sent message, list and get; threads with both directions.
    const sim = await sdk('testing.inbound', 'SimulateResult', 'POST', '/test/inbound', T.SimulateResult, {
      agent, from: 'alice@example.com', from_name: null, subject: 'Your code', body_text: 'Your code is 482913',
    });
    const reply = await sdk('testing.inbound (reply)', 'SimulateResult', 'POST', '/test/inbound', T.SimulateResult, {
      agent, from: 'bob@example.com', subject: 'Re: Your invoice', body_text: 'Thanks!', in_reply_to_message_id: sent.id,
    });
    const rcvList = await sdk('messages.listReceived', 'Page<ReceivedMessage>', 'GET', '/messages/received', T.Pages.ReceivedMessage);
    const rcv = await sdk('messages.getReceived', 'ReceivedMessage', 'GET', `/messages/received/${sim.message_id}`, T.ReceivedMessageFull);
    expect(rcv.to).toBe(agentAddr);
    expect(rcvList.data.every((m: { to: unknown }) => typeof m.to === 'string')).toBe(true);
    await sdk('messages.reply', 'SendResult', 'POST', `/messages/${reply.message_id}/reply`, T.SendResult, { body_text: 'You are welcome.' });
    await sdk('messages.forward', 'SendResult', 'POST', `/messages/${sim.message_id}/forward`, T.SendResult, { to: 'carol@example.com', body_text: 'FYI' });
    await sdk('threads.list', 'Page<Thread>', 'GET', '/threads', T.Pages.Thread);
    const th = await sdk('threads.get', 'ThreadWithMessages', 'GET', `/threads/${reply.thread_id}`, T.ThreadWithMessages);
    expect(th.messages.some((m: { direction: string }) => m.direction === 'inbound')).toBe(true);
    await sdk('threads.update', 'Thread', 'PATCH', `/threads/${reply.thread_id}`, T.Thread, { labels: ['billing'], status: 'closed' });

    // Events: inbound events' data.to is the same string as the message's to.
    const evs = await sdk('events.list', 'Page<Event>', 'GET', '/events?limit=100', T.Pages.Event);
    const inbound = evs.data.find((e: { id: string }) => e.id === sim.event_id);
    const v = validator(T.InboundEventData);
    if (!v(inbound.data)) mismatches.push(`events.list inbound data: ${ajv.errorsText(v.errors)}`);
    expect(inbound.data.to).toBe(rcv.to);
    const agentEvent = evs.data.find((e: { type: string }) => e.type === 'agent.created');
    expect(agentEvent).not.toHaveProperty('source_message_id');
    await sdk('events.get', 'Event', 'GET', `/events/${sim.event_id}`, T.Event);
    await sdk('events.get (non-message)', 'Event', 'GET', `/events/${agentEvent.id}`, T.Event);

    // Webhooks: create (default types), list, get, update, test (empty body), deliveries, replay, delete.
    const wh = await sdk('webhooks.create', 'WebhookCreated', 'POST', '/webhooks', T.WebhookCreated, { url: sink.url + '/hooks' }, d.liveKey);
    await sdk('webhooks.list', 'Page<WebhookEndpoint>', 'GET', '/webhooks', T.Pages.WebhookEndpoint);
    await sdk('webhooks.get', 'WebhookEndpoint', 'GET', `/webhooks/${wh.id}`, T.WebhookEndpoint);
    await sdk('webhooks.update', 'WebhookEndpoint', 'PATCH', `/webhooks/${wh.id}`, T.WebhookEndpoint, { description: 'sdk check' }, d.liveKey);
    await sdk('webhooks.test', 'WebhookTest', 'POST', `/webhooks/${wh.id}/test`, T.WebhookTest, undefined, d.liveKey);
    await sdk('events.redeliver', 'EventRedelivered', 'POST', `/events/${sim.event_id}/redeliver`, T.EventRedelivered, {}, d.liveKey);
    let deliveries: { data: { id: string }[] } = { data: [] };
    for (let i = 0; i < 50 && !deliveries.data.length; i++) {
      deliveries = await sdk('webhooks.listDeliveries', 'Page<WebhookDelivery>', 'GET', `/webhooks/${wh.id}/deliveries`, T.Pages.WebhookDelivery);
      if (!deliveries.data.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries.data.length).toBeGreaterThan(0);
    await sdk('webhooks.replayDelivery', 'DeliveryReplayed', 'POST', `/webhook-deliveries/${deliveries.data[0].id}/replay`, T.DeliveryReplayed, {}, d.liveKey);
    await sdk('webhooks.delete', 'Deleted', 'DELETE', `/webhooks/${wh.id}`, T.Deleted, undefined, d.liveKey);

    // Drafts.
    const dr = await sdk('drafts.create', 'Draft', 'POST', '/drafts', T.Draft, { agent, to: ['bob@example.com'], subject: 'Draft', body_text: 'Hi' });
    await sdk('drafts.list', 'Page<Draft>', 'GET', '/drafts', T.Pages.Draft);
    await sdk('drafts.get', 'Draft', 'GET', `/drafts/${dr.id}`, T.Draft);
    await sdk('drafts.update', 'Draft', 'PATCH', `/drafts/${dr.id}`, T.Draft, { subject: 'Draft 2' });
    await sdk('drafts.send', 'DraftSent', 'POST', `/drafts/${dr.id}/send`, T.DraftSent, {});
    const dr2 = await sdk('drafts.create', 'Draft', 'POST', '/drafts', T.Draft, { agent, to: ['bob@example.com'], subject: 'Gone', body_text: 'x' });
    await sdk('drafts.delete', 'Deleted', 'DELETE', `/drafts/${dr2.id}`, T.Deleted);

    // Suppression, reputation, usage, portal, logs.
    await sdk('suppression.lookup', 'SuppressionLookup', 'GET', '/suppression?address=nobody@example.com', T.SuppressionLookup);
    const allow = await sdk('suppression.allow', 'AllowEntry', 'POST', '/suppression/allow', T.AllowEntry, { address: 'carol@example.com', attestation: 'Carol asked to hear from us again on 2026-11-01' }, d.liveKey);
    await sdk('suppression.listAllowed', 'Page<AllowEntry>', 'GET', '/suppression', T.Pages.AllowEntry);
    await sdk('suppression.revokeAllow', 'AllowRevoked', 'DELETE', `/suppression/allow/${allow.id}`, T.AllowRevoked, undefined, d.liveKey);
    await sdk('reputation.get', 'Reputation', 'GET', '/reputation', T.Reputation);
    await sdk('reputation.get (agent)', 'Reputation', 'GET', `/reputation?agent_id=${agent}`, T.Reputation);
    const usage = await sdk('billing.usage', 'Usage', 'GET', '/billing/usage', T.Usage);
    expect(typeof usage.caps.monthly_parses).toBe('number');
    await sdk('billing.portal', 'Portal', 'POST', '/billing/portal', T.Portal, { return_url: 'https://example.com/back' });
    await sdk('logs.list', 'Page<LogEntry>', 'GET', '/logs', T.Pages.LogEntry);

    // Cancel the scheduled send, archive the agent.
    await sdk('messages.cancel', 'Canceled', 'POST', `/messages/${later.id}/cancel`, T.Canceled, undefined, d.testKey);
    await sdk('agents.delete', 'AgentArchived', 'DELETE', '/agents/sdkcheck', T.AgentArchived, undefined, d.liveKey);

    expect(checked.length).toBeGreaterThan(50);
    expect(mismatches).toEqual([]);
  }, 120_000);
});
