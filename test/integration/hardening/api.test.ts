import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveDaemon, expectEnvelope, type LiveDaemon } from './helpers.js';
import { MAX_JSON_DEPTH } from '../../../src/server/http/json-body.js';
import { isMetadataAddress, isPrivateAddress } from '../../../src/services/webhook-url-guard.js';

// Issue #10 items 4-7 and 9, and the drafts item of "Also": each attack replayed against a real
// daemon over real HTTP (fetch), as the review did.
let d: LiveDaemon;
let agentA: { id: string; email: string; name: string };
let agentB: { id: string; email: string; name: string };

beforeAll(async () => {
  d = await startLiveDaemon();
  agentA = (await d.api('POST', '/v1/agents', { body: { name: 'alpha' } })).body;
  agentB = (await d.api('POST', '/v1/agents', { body: { name: 'bravo' } })).body;
});
afterAll(async () => { await d.stop(); });

async function makeKey(spec: Record<string, unknown>): Promise<string> {
  const r = await d.api('POST', '/v1/api-keys', { body: { name: 'k', mode: 'live', ...spec } });
  expect(r.status, r.text).toBe(201);
  return r.body.key;
}

describe('item 4: deeply nested JSON', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('`[` × 100,000 to a send route is 400 with the envelope, not 500 (with and without Idempotency-Key)', async () => {
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Record<string, string>[]) {
      const r = await d.api('POST', '/v1/messages', { raw: nested(100_000), headers });
      expectEnvelope(r, 400, 'invalid_field');
      expect(r.body.error.message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
    }
    // Unclosed too (the review's exact payload), and inside an object field.
    expectEnvelope(await d.api('POST', '/v1/messages', { raw: '['.repeat(100_000) }), 400, 'invalid_field');
    expectEnvelope(await d.api('POST', '/v1/messages/batch', { raw: `{"messages":${nested(100_000)}}` }), 400, 'invalid_field');
    // The daemon is still well.
    expect((await d.api('GET', '/v1/health', { key: null })).status).toBe(200);
  });

  it('nesting up to the documented depth is parsed normally; brackets inside strings do not count', async () => {
    // Depth exactly MAX_JSON_DEPTH reaches validation (the body is not a valid send), not the depth refusal.
    const ok = await d.api('POST', '/v1/messages', { raw: `{"metadata":${nested(MAX_JSON_DEPTH - 1)}}` });
    expect(ok.status).toBe(400);
    expect(ok.body.error.message).not.toContain('levels');
    const tooDeep = await d.api('POST', '/v1/messages', { raw: `{"metadata":${nested(MAX_JSON_DEPTH)}}` });
    expect(tooDeep.body.error.message).toContain('levels');
    const s = await d.api('POST', '/v1/messages', {
      key: d.testKey,
      body: { agent: 'alpha', to: agentB.email, subject: '['.repeat(500), body_text: '{'.repeat(5000) },
    });
    expect(s.status, s.text).toBe(201);
  });
});

describe('a body of a million members (an outside tester froze the daemon with one send)', () => {
  const send = (metadata: Record<string, string>) => ({ agent: 'alpha', to: agentB.email, subject: 's', body_text: 'x', metadata });
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

  it('1,000,000 metadata keys: 400 before JSON.parse; the daemon answers at once', async () => {
    const [r, health] = await Promise.all([
      d.api('POST', '/v1/messages', { key: d.testKey, body: send(keys(1_000_000)) }),
      new Promise((res) => setTimeout(res, 20)).then(() => d.api('GET', '/v1/health', { key: null })),
    ]);
    expectEnvelope(r, 400, 'invalid_field');
    expect(r.body.error.message).toContain('more than 50,000 array items and object members');
    expect(health.status).toBe(200);
  });

  it('metadata takes at most 50 keys (400 naming metadata); 50 are stored and returned', async () => {
    const over = await d.api('POST', '/v1/messages', { key: d.testKey, body: send(keys(51)) });
    expectEnvelope(over, 400, 'invalid_param_value');
    expect(over.body.error.param).toBe('metadata');
    expect(over.body.error.message).toContain('has 51 keys; at most 50 are allowed');
    const ok = await d.api('POST', '/v1/messages', { key: d.testKey, body: send(keys(50)) });
    expect(ok.status, ok.text).toBe(201);
    const got = await d.api('GET', `/v1/messages/${ok.body.id}`, { key: d.testKey });
    expect(Object.keys(got.body.metadata)).toHaveLength(50);
  });
});

describe('a JSON body whose bytes are not UTF-8', () => {
  it('is 400 invalid_field (not stored with U+FFFD in place of the bytes); the same text UTF-8 encoded is sent', async () => {
    const body = (subject: Buffer) => Buffer.concat([Buffer.from(`{"agent":"alpha","to":"${agentB.email}","subject":"`), subject, Buffer.from('","body_text":"x"}')]);
    const post = (b: Buffer) => fetch(`${d.url}/v1/messages`, { method: 'POST', headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' }, body: b });
    const bad = await post(body(Buffer.from([0xff, 0xfe])));
    expect(bad.status).toBe(400);
    const env = await bad.json() as any;
    expect(env.error).toMatchObject({ code: 'invalid_field', param: null });
    expect(env.error.message).toContain('not UTF-8');
    const good = await post(body(Buffer.from('Grüße ✓', 'utf8')));
    expect(good.status).toBe(201);
    expect((await good.json() as any).subject).toBe('Grüße ✓');
  });
});

describe('item 5: webhook deliveries are filtered by the key\'s agent', () => {
  it('a key bound to alpha sees no delivery of an event about bravo (list and get)', async () => {
    const hook = await d.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['agent.paused'] } });
    expect(hook.status, hook.text).toBe(201);
    // One event about each agent, each queued for the endpoint.
    for (const a of [agentA, agentB]) {
      expect((await d.api('PATCH', `/v1/agents/${a.id}`, { body: { status: 'paused' } })).status).toBe(200);
      expect((await d.api('PATCH', `/v1/agents/${a.id}`, { body: { status: 'active' } })).status).toBe(200);
    }
    const all = await d.api('GET', `/v1/webhooks/${hook.body.id}/deliveries`);
    expect(all.body.data).toHaveLength(2);
    const bound = await makeKey({ scopes: ['read'], agent_id: agentA.id });
    const mine = await d.api('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key: bound });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toHaveLength(1);
    const events = await Promise.all(all.body.data.map((x: any) => d.api('GET', `/v1/events/${x.event_id}`)));
    const aboutB = all.body.data[events.findIndex((e) => e.body.agent_id === agentB.id)];
    const aboutA = all.body.data[events.findIndex((e) => e.body.agent_id === agentA.id)];
    expect(mine.body.data[0].id).toBe(aboutA.id);
    expectEnvelope(await d.api('GET', `/v1/webhook-deliveries/${aboutB.id}`, { key: bound }), 404, 'resource_not_found');
    expect((await d.api('GET', `/v1/webhook-deliveries/${aboutA.id}`, { key: bound })).status).toBe(200);
    // The unbound owner key still sees both.
    expect((await d.api('GET', `/v1/webhook-deliveries/${aboutB.id}`)).status).toBe(200);
  });
});

describe('item 6: a test key cannot change live configuration', () => {
  it('live webhook endpoint: PATCH, DELETE, rotate-secret → 403 live_mode_required; its own test endpoint is fine', async () => {
    const live = (await d.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/live' } })).body;
    const test = (await d.api('POST', '/v1/webhooks', { key: d.testKey, body: { url: 'http://127.0.0.1:9/test' } })).body;
    expectEnvelope(await d.api('DELETE', `/v1/webhooks/${live.id}`, { key: d.testKey }), 403, 'live_mode_required');
    expectEnvelope(await d.api('PATCH', `/v1/webhooks/${live.id}`, { key: d.testKey, body: { url: 'http://127.0.0.1:9/stolen' } }), 403, 'live_mode_required');
    expectEnvelope(await d.api('POST', `/v1/webhooks/${live.id}/rotate-secret`, { key: d.testKey, body: {} }), 403, 'live_mode_required');
    expect((await d.api('GET', `/v1/webhooks/${live.id}`)).body.url).toBe('http://127.0.0.1:9/live');
    expect((await d.api('PATCH', `/v1/webhooks/${test.id}`, { key: d.testKey, body: { description: 'mine' } })).status).toBe(200);
    expect((await d.api('DELETE', `/v1/webhooks/${test.id}`, { key: d.testKey })).status).toBe(200);
    expect((await d.api('DELETE', `/v1/webhooks/${live.id}`)).status).toBe(200);
  });

  it('live sending domain: DELETE → 403; a test key\'s own domain can be removed', async () => {
    const live = await d.api('POST', '/v1/domains', { body: { domain: 'live-example.org' } });
    expect(live.status, live.text).toBe(201);
    expectEnvelope(await d.api('DELETE', `/v1/domains/${live.body.id}`, { key: d.testKey }), 403, 'live_mode_required');
    expect((await d.api('GET', `/v1/domains/${live.body.id}`)).status).toBe(200);
    const test = await d.api('POST', '/v1/domains', { key: d.testKey, body: { domain: 'test-example.org' } });
    expect((await d.api('DELETE', `/v1/domains/${test.body.id}`, { key: d.testKey })).status).toBe(200);
  });

  it('connected apps act in live mode: a test key cannot revoke one', async () => {
    expectEnvelope(await d.api('DELETE', '/v1/oauth/grants/grt_00000000000000000000000000', { key: d.testKey }), 403, 'live_mode_required');
  });

  it('consent allow entries: a test key\'s entry lifts suppression for test sends only, and cannot revoke a live one', async () => {
    const address = 'bounced-once@example.net';
    const attestation = 'They asked to hear from us again by reply on 2026-11-01';
    expect((await d.api('POST', '/v1/suppression', { body: { address, type: 'hard_bounce' } })).status).toBe(201);
    const sendLive = () => d.api('POST', '/v1/messages', { body: { agent: 'alpha', to: address, subject: 'hi', body_text: 'hello' } });

    // A test key attests consent: the test view is lifted, the live view and live sends are not.
    const testAllow = await d.api('POST', '/v1/suppression/allow', { key: d.testKey, body: { address, attestation } });
    expect(testAllow.status, testAllow.text).toBe(201);
    const asTest = await d.api('GET', `/v1/suppression?address=${address}`, { key: d.testKey });
    expect(asTest.body).toMatchObject({ suppressed: false, allowed: { id: testAllow.body.id } });
    const asLive = await d.api('GET', `/v1/suppression?address=${address}`);
    expect(asLive.body).toMatchObject({ suppressed: true, type: 'hard_bounce' });
    expect(asLive.body.allowed ?? null).toBeNull();
    expect((await d.api('GET', '/v1/suppression/entries')).body.data.find((e: any) => e.address === address).active).toBe(true);
    expectEnvelope(await sendLive(), 422, 'recipient_suppressed');

    // A live entry lifts it for live sends too, and does not displace the test key's entry.
    const liveAllow = await d.api('POST', '/v1/suppression/allow', { body: { address, attestation } });
    expect(liveAllow.status, liveAllow.text).toBe(201);
    expect((await d.api('GET', `/v1/suppression?address=${address}`)).body).toMatchObject({ suppressed: false, allowed: { id: liveAllow.body.id } });
    const sent = await sendLive();
    expect(sent.body?.error?.code, sent.text).not.toBe('recipient_suppressed');

    // Revoking: a test key may not undo the live consent (which would block live mail again).
    expectEnvelope(await d.api('DELETE', `/v1/suppression/allow/${liveAllow.body.id}`, { key: d.testKey }), 403, 'live_mode_required');
    expect((await d.api('GET', `/v1/suppression?address=${address}`)).body.suppressed).toBe(false);
    expect((await d.api('DELETE', `/v1/suppression/allow/${testAllow.body.id}`, { key: d.testKey })).status).toBe(200);
    expect((await d.api('DELETE', `/v1/suppression/allow/${liveAllow.body.id}`)).status).toBe(200);
    expect((await d.api('GET', `/v1/suppression?address=${address}`)).body.suppressed).toBe(true);
  });

  it('a test key cannot redeliver a live event or replay its webhook delivery', async () => {
    const hook = await d.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/redeliver', event_types: ['agent.paused'] } });
    expect(hook.status, hook.text).toBe(201);
    expect((await d.api('PATCH', `/v1/agents/${agentA.id}`, { body: { status: 'paused' } })).status).toBe(200);
    expect((await d.api('PATCH', `/v1/agents/${agentA.id}`, { body: { status: 'active' } })).status).toBe(200);
    const delivery = (await d.api('GET', `/v1/webhooks/${hook.body.id}/deliveries`)).body.data[0];
    const ev = (await d.api('GET', `/v1/events/${delivery.event_id}`)).body;
    expect(ev.test_mode).toBe(false);
    expectEnvelope(await d.api('POST', `/v1/events/${ev.id}/redeliver`, { key: d.testKey, body: {} }), 403, 'live_mode_required');
    expectEnvelope(await d.api('POST', `/v1/webhook-deliveries/${delivery.id}/replay`, { key: d.testKey, body: {} }), 403, 'live_mode_required');
    expect((await d.api('GET', `/v1/webhooks/${hook.body.id}/deliveries`)).body.data).toHaveLength(1);
    // A live key may do both.
    expect((await d.api('POST', `/v1/events/${ev.id}/redeliver`, { body: {} })).status).toBeLessThan(300);
    expect((await d.api('POST', `/v1/webhook-deliveries/${delivery.id}/replay`, { body: {} })).status).toBeLessThan(300);
    expect((await d.api('DELETE', `/v1/webhooks/${hook.body.id}`)).status).toBe(200);
  });
});

describe('item 7: SSRF spellings the hand-written list missed', () => {
  const missed = [
    '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:a00:1', '::ffff:0:a9fe:a9fe', // IPv4-translated (RFC 6145)
    '64:ff9b:1::7f00:1', '64:ff9b:1::a00:1', '64:ff9b:1::808:808', // local-use NAT64 (RFC 8215)
  ];
  it.each(missed)('%s is private', (a) => expect(isPrivateAddress(a)).toBe(true));

  it('the daemon refuses them at creation when private targets are not allowed', async () => {
    const strict = await startLiveDaemon({ allowPrivateWebhooks: false });
    try {
      for (const a of missed) {
        const r = await strict.api('POST', '/v1/webhooks', { body: { url: `https://[${a}]/hook` } });
        expectEnvelope(r, 400, 'invalid_param_value');
        expect(r.body.error.param).toBe('url');
      }
      // Public addresses in the forms that embed one still pass.
      for (const a of ['8.8.8.8', '::ffff:8.8.8.8', '64:ff9b::808:808', '2606:4700::1111']) {
        expect((await strict.api('POST', '/v1/webhooks', { body: { url: `https://[${a}]/hook`.replace(/^https:\/\/\[(\d+\.\d+\.\d+\.\d+)\]/, 'https://$1') } })).status).toBe(201);
      }
    } finally {
      await strict.stop();
    }
  });
});

describe('cloud metadata endpoints are never a webhook target', () => {
  const meta = ['169.254.169.254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', 'fd00:ec2::254', '100.100.100.200', '169.254.170.2'];
  it.each(meta)('%s is a metadata address', (a) => expect(isMetadataAddress(a)).toBe(true));
  it('other link-local and private addresses are not', () => {
    for (const a of ['169.254.1.1', '10.0.0.1', '127.0.0.1', 'fd00::1', '8.8.8.8', 'not an address']) expect(isMetadataAddress(a)).toBe(false);
  });

  it('refused even on a daemon that allows private targets (loopback, local development)', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/hook', 'http://[::ffff:169.254.169.254]/x']) {
      const r = await d.api('POST', '/v1/webhooks', { body: { url } });
      expectEnvelope(r, 400, 'invalid_param_value');
      expect(r.body.error.message).toMatch(/instance-metadata/);
    }
    // A private target is still allowed there.
    const ok = await d.api('POST', '/v1/webhooks', { body: { url: 'http://10.1.2.3/hook' } });
    expect(ok.status).toBe(201);
    await d.api('DELETE', `/v1/webhooks/${ok.body.id}`);
  });
});

describe('item 9: every URL the API hands out answers', () => {
  it('billing portal, upgrade_url, raw_url and List-Unsubscribe links all resolve on this daemon', async () => {
    const portal = await d.api('POST', '/v1/billing/portal', { body: { return_url: 'https://app.example.com/' } });
    expect(portal.status).toBe(200);
    const followed: string[] = [portal.body.url];

    const over = await d.api('PATCH', `/v1/agents/${agentA.id}`, { body: { daily_send_limit: 10_000_000 } });
    expectEnvelope(over, 402, 'plan_limit_exceeded');
    followed.push(over.body.error.upgrade_url);

    // A live send between two local agents: the received copy has raw_url and List-Unsubscribe.
    const sent = await d.api('POST', '/v1/messages', { body: { agent: 'alpha', to: agentB.email, subject: 'Weekly update', body_text: 'Here is what happened on the project this week.' } });
    expect(sent.status, sent.text).toBe(201);
    const list = await d.api('GET', `/v1/messages/received?agent_id=${agentB.id}`);
    const got = await d.api('GET', `/v1/messages/received/${list.body.data[0].id}`);
    expect(got.body.raw_url).toBeTruthy();
    const unsub = got.body.headers.find((h: any) => h.name.toLowerCase() === 'list-unsubscribe')?.value;
    expect(unsub).toBeTruthy();
    followed.push(got.body.raw_url, /<([^>]+)>/.exec(unsub)![1]);

    for (const url of followed) {
      expect(url.startsWith(d.url), `${url} is on this daemon (${d.url})`).toBe(true);
      const res = await fetch(url, { headers: { authorization: `Bearer ${d.liveKey}` } });
      expect(res.status, `GET ${url}`).toBe(200);
      await res.arrayBuffer();
    }
  });
});

describe('Also: drafts refuse another agent\'s message as in_reply_to_message_id', () => {
  it('at creation and on edit: 404, as every cross-agent reference', async () => {
    const toB = await d.api('POST', '/v1/messages', { key: d.testKey, body: { agent: 'alpha', to: agentB.email, subject: 'Hello bravo', body_text: 'A note between agents.' } });
    expect(toB.status, toB.text).toBe(201);
    const bMsgs = await d.api('GET', `/v1/messages/received?agent_id=${agentB.id}`, { key: d.testKey });
    const bMessage = bMsgs.body.data[0].id;
    const boundA = await makeKey({ mode: 'test', scopes: ['send', 'read'], agent_id: agentA.id });
    const refused = await d.api('POST', '/v1/drafts', { key: boundA, body: { to: 'x@example.com', subject: 'Re', body_text: 'hi', in_reply_to_message_id: bMessage } });
    expectEnvelope(refused, 404, 'resource_not_found');
    expect(refused.body.error.message).toContain(bMessage);
    // An unbound key drafting for alpha may not thread into bravo's mail either.
    expectEnvelope(await d.api('POST', '/v1/drafts', { key: d.testKey, body: { agent: 'alpha', in_reply_to_message_id: bMessage } }), 404, 'resource_not_found');
    // Its own agent's message is fine, and an edit pointing elsewhere is refused.
    const own = await d.api('POST', '/v1/drafts', { key: boundA, body: { in_reply_to_message_id: toB.body.id } });
    expect(own.status, own.text).toBe(201);
    expectEnvelope(await d.api('PATCH', `/v1/drafts/${own.body.id}`, { key: boundA, body: { in_reply_to_message_id: bMessage } }), 404, 'resource_not_found');
  });
});

describe('Also: bursts of failed authentication', () => {
  it('are logged at warn level with the address, once, and each failure past the allowance waits longer', async () => {
    const { AUTH_FAILURE_LIMITS: L } = await import('../../../src/services/auth-failures.js');
    const warnings: any[] = [];
    const ctx = d.daemon.ctx;
    const log = ctx.log;
    ctx.log = { ...log, warn: (o: any) => { warnings.push(o); } };
    try {
      for (let i = 0; i < L.freeFailures; i++) {
        expectEnvelope(await d.api('GET', '/v1/agents', { key: `mk_live_${'0'.repeat(32)}` }), 401, 'invalid_api_key');
      }
      expect(warnings).toHaveLength(0);
      const t0 = performance.now();
      // No credential at all is not counted.
      expectEnvelope(await d.api('GET', '/v1/agents', { key: null }), 401, 'missing_authorization');
      expect(warnings).toHaveLength(0);
      expectEnvelope(await d.api('GET', '/v1/agents', { key: 'mk_live_nope' }), 401, 'invalid_api_key');
      expectEnvelope(await d.api('GET', '/v1/agents', { key: 'Basic abc' }), 401, 'invalid_api_key');
      // Two failures past the allowance: at least step + 2 × step of delay, enforced by the daemon.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(3 * L.stepMs - 5);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ address: '127.0.0.1', failures: L.freeFailures + 1, delay_ms: L.stepMs });
      // A valid key from the same address is not slowed or refused.
      expect((await d.api('GET', '/v1/agents')).status).toBe(200);
    } finally {
      ctx.log = log;
    }
  });
});
