import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';
import { checkResponse, type Res } from '../../helpers/app.js';

// An outside tester's findings (round 11): test keys changing live material, a manage-only key
// reading mail through a webhook, /metrics answering any Host from loopback, the public billing
// page, and send/API quirks. A real daemon over real HTTP; every answer is checked against the
// contract (checkResponse: envelope on errors, route schema on success).

let daemon: Daemon;
let dir = '';
let url = '';
let live = '';
let test = '';
let agentEmail = '';
let liveThread = '';
let testThread = '';
let metricsAddr = '';

async function api(method: string, path: string, opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? live : opts.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const r = await fetch(url + path, { method, headers, body: payload });
  const text = await r.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* HTML or text */ }
  const res: Res = { status: r.status, body, headers: Object.fromEntries(r.headers), text };
  checkResponse(method, path, res);
  return res;
}

/** A GET with a Host header of our choosing (fetch would send the URL's own). */
function getWithHost(addr: string, path: string, host: string): Promise<{ status: number; text: string }> {
  const [h, p] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const req = request({ host: h, port: p, path, method: 'GET', headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectError(r: Res, status: number, code: string, param?: string | null): void {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
  if (param !== undefined) expect(r.body.error.param).toBe(param);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-authz-'));
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', metricsListen: '127.0.0.1:0' }, {});
  daemon = await Daemon.create(config, { quiet: true });
  url = (await daemon.start()).http;
  metricsAddr = daemon.listenerAddress('metrics')!;
  live = daemon.bootstrapped!.keys.live.key;
  test = daemon.bootstrapped!.keys.test.key;
  agentEmail = daemon.bootstrapped!.agent.email;
  expect((await api('POST', '/v1/agents', { body: { name: 'other' } })).status).toBe(201);
  // Live mail between two local agents (no relay needed): a live thread.
  const l = await api('POST', '/v1/messages', { body: { agent: 'other', to: agentEmail, subject: 'Lunch on Friday', body_text: 'Are we still on for lunch on Friday at noon?' } });
  expect(l.status, l.text).toBe(201);
  liveThread = l.body.thread_id;
  const t = await api('POST', '/v1/messages', { key: test, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'Test only', body_text: 'A test-mode message.' } });
  expect(t.status, t.text).toBe(201);
  testThread = t.body.thread_id;
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('test keys never change live material (spec: live_mode_required)', () => {
  it('POST /v1/suppression with a test key is 403 and live sends are unaffected; a live key still adds one', async () => {
    const r = await api('POST', '/v1/suppression', { key: test, body: { address: agentEmail } });
    expectError(r, 403, 'live_mode_required');
    expect(r.body.error.message).toMatch(/use a live key/);
    expect((await api('GET', `/v1/suppression?address=${encodeURIComponent(agentEmail)}`)).body.suppressed).toBe(false);
    // The live send the tester saw refused (422 recipient_suppressed) goes through.
    const s = await api('POST', '/v1/messages', { body: { agent: 'other', to: agentEmail, subject: 'Still reachable', body_text: 'This must not be suppressed.' } });
    expect(s.status, s.text).toBe(201);
    const byLive = await api('POST', '/v1/suppression', { body: { address: 'carol@example.com' } });
    expect(byLive.status, byLive.text).toBe(201);
    expect(byLive.body).toMatchObject({ address: 'carol@example.com', scope: 'workspace' });
  });

  it('PATCH, restore and label changes of a live thread are 403 for a test key; test threads and live keys are unaffected', async () => {
    expectError(await api('PATCH', `/v1/threads/${liveThread}`, { key: test, body: { status: 'archived' } }), 403, 'live_mode_required');
    expectError(await api('PATCH', `/v1/threads/${liveThread}`, { key: test, body: { labels: ['x'] } }), 403, 'live_mode_required');
    expect((await api('GET', `/v1/threads/${liveThread}`)).body.status).toBe('open');
    expectError(await api('POST', `/v1/threads/${liveThread}/restore`, { key: test }), 403, 'live_mode_required');
    const ok = await api('PATCH', `/v1/threads/${testThread}`, { key: test, body: { status: 'archived', labels: ['sandbox'] } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'archived', labels: ['sandbox'] });
    const byLive = await api('PATCH', `/v1/threads/${liveThread}`, { body: { labels: ['lunch'] } });
    expect(byLive.status, byLive.text).toBe(200);
    // A label on a live thread: renaming or deleting it would rewrite that thread.
    expectError(await api('PATCH', '/v1/labels/lunch', { key: test, body: { name: 'food' } }), 403, 'live_mode_required');
    expectError(await api('DELETE', '/v1/labels/lunch', { key: test }), 403, 'live_mode_required');
    expect((await api('GET', `/v1/threads/${liveThread}`)).body.labels).toEqual(['lunch']);
    // A label only test threads carry stays the test key's to change.
    const renamed = await api('PATCH', '/v1/labels/sandbox', { key: test, body: { name: 'sandbox-2' } });
    expect(renamed.status, renamed.text).toBe(200);
  });

  it('a test key cannot re-verify a sending domain a live key added', async () => {
    const added = await api('POST', '/v1/domains', { body: { domain: 'mail.authz-live.example' } });
    if (added.status === 400 && added.body.error.code === 'feature_not_enabled') return; // custom domains off: nothing to verify
    expect(added.status, added.text).toBe(201);
    expectError(await api('POST', `/v1/domains/${added.body.id}/verify`, { key: test }), 403, 'live_mode_required');
  });
});

describe('webhook subscriptions to message content need `read`', () => {
  let manageOnly = '';
  let readManage = '';
  beforeAll(async () => {
    manageOnly = (await api('POST', '/v1/api-keys', { body: { name: 'ops', mode: 'live', scopes: ['manage'] } })).body.key;
    readManage = (await api('POST', '/v1/api-keys', { body: { name: 'integrator', mode: 'live', scopes: ['read', 'manage'] } })).body.key;
  });

  it('a manage-only key is refused message.received and "*", naming the scope and the types', async () => {
    const r = await api('POST', '/v1/webhooks', { key: manageOnly, body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.received'] } });
    expectError(r, 403, 'insufficient_scope');
    expect(r.body.error.message).toContain('`read`');
    expect(r.body.error.message).toContain('"message.received"');
    const all = await api('POST', '/v1/webhooks', { key: manageOnly, body: { url: 'http://127.0.0.1:9/hook' } });
    expectError(all, 403, 'insufficient_scope');
    expect(all.body.error.message).toContain('"*"');
    expect((await api('GET', '/v1/webhooks')).body.data).toHaveLength(0);
  });

  it('a manage-only key may subscribe to content-free types but not widen them or redirect a content endpoint', async () => {
    const own = await api('POST', '/v1/webhooks', { key: manageOnly, body: { url: 'http://127.0.0.1:9/agents', event_types: ['agent.created', 'suppression.added'] } });
    expect(own.status, own.text).toBe(201);
    const widen = await api('PATCH', `/v1/webhooks/${own.body.id}`, { key: manageOnly, body: { event_types: ['agent.created', 'reply.received'] } });
    expectError(widen, 403, 'insufficient_scope');
    expect(widen.body.error.message).toContain('"reply.received"');
    const mail = await api('POST', '/v1/webhooks', { key: readManage, body: { url: 'http://127.0.0.1:9/mail', event_types: ['message.received'] } });
    expect(mail.status, mail.text).toBe(201);
    expectError(await api('PATCH', `/v1/webhooks/${mail.body.id}`, { key: manageOnly, body: { url: 'http://127.0.0.1:9/elsewhere' } }), 403, 'insufficient_scope');
    // Pausing or describing it needs no read.
    expect((await api('PATCH', `/v1/webhooks/${mail.body.id}`, { key: manageOnly, body: { active: false, description: 'paused by ops' } })).status).toBe(200);
    expect((await api('GET', `/v1/webhooks/${mail.body.id}`)).body.url).toBe('http://127.0.0.1:9/mail');
    // Redelivering a mail event to its own endpoint would read it the same way.
    const inbound = await api('POST', '/v1/test/inbound', { key: test, body: { agent: 'agent', from: 'x@sender.example', subject: 'Private', body_text: 'secret' } });
    expect(inbound.status, inbound.text).toBe(201);
    expectError(await api('POST', `/v1/events/${inbound.body.event_id}/redeliver`, { key: manageOnly, body: { webhook_endpoint_ids: [own.body.id] } }), 403, 'insufficient_scope');
  });

  it('the live event stream needs `read` too', async () => {
    expectError(await api('GET', '/v1/events/stream', { key: manageOnly }), 403, 'insufficient_scope');
  });
});

describe('/metrics from loopback checks the Host header (DNS rebinding)', () => {
  it('the API port refuses a foreign name and answers an address or localhost', async () => {
    const addr = new URL(url).host;
    const evil = await getWithHost(addr, '/metrics', `evil.example:${new URL(url).port}`);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.text).error).toMatchObject({ code: 'insufficient_scope' });
    expect(JSON.parse(evil.text).error.message).toMatch(/Host header names this machine/);
    expect((await getWithHost(addr, '/metrics', addr)).status).toBe(200);
    expect((await getWithHost(addr, '/metrics', `localhost:${new URL(url).port}`)).status).toBe(200);
  });

  it('so does the --metrics-listen listener without a token', async () => {
    expect((await getWithHost(metricsAddr, '/metrics', 'evil.example')).status).toBe(403);
    expect((await getWithHost(metricsAddr, '/metrics', metricsAddr)).status).toBe(200);
  });
});

describe('the public billing page', () => {
  it('shows nothing about the workspace and links nowhere without a portal session', async () => {
    const r = await fetch(`${url}/v1/public/billing?return_url=${encodeURIComponent('https://evil.example/login')}`);
    const html = await r.text();
    expect(r.status).toBe(200);
    expect(html).not.toContain('evil.example');
    expect(html).not.toMatch(/tier\b.*<b>/);
    expect(html).not.toContain('free</b>');
    expect(html).toContain('POST /v1/billing/portal');
  });

  it('a portal link shows the tier and a Back link to its return_url; a tampered one shows nothing', async () => {
    const p = await api('POST', '/v1/billing/portal', { body: { return_url: 'https://app.example.com/settings' } });
    expect(p.status, p.text).toBe(200);
    expect(p.body.url).not.toContain('return_url=');
    const page = await (await fetch(p.body.url)).text();
    expect(page).toContain('<b>free</b>');
    expect(page).toContain('href="https://app.example.com/settings"');
    const u = new URL(p.body.url);
    const s = u.searchParams.get('session')!;
    u.searchParams.set('session', `${s.slice(0, 4)}${s[4] === 'A' ? 'B' : 'A'}${s.slice(5)}`);
    const forged = await (await fetch(u)).text();
    expect(forged).not.toContain('app.example.com');
    expect(forged).toContain('not valid');
    expectError(await api('POST', '/v1/billing/portal', { body: { return_url: 'javascript:alert(1)' } }), 400, 'invalid_param_value', 'return_url');
  });
});

describe('quirks', () => {
  it('a JSON body declared in another charset is a 400 naming Content-Type; utf-8 passes', async () => {
    const r = await api('POST', '/v1/agents', { raw: JSON.stringify({ name: 'latin' }), headers: { 'content-type': 'application/json; charset=latin1' } });
    expectError(r, 400, 'invalid_field', 'Content-Type');
    expect(r.body.error.message).toMatch(/UTF-8/);
    const ok = await api('POST', '/v1/agents', { raw: JSON.stringify({ name: 'utf' }), headers: { 'content-type': 'application/json; charset="UTF-8"' } });
    expect(ok.status, ok.text).toBe(201);
  });

  it('a display name holding an address or angle brackets is refused, naming the field', async () => {
    const r = await api('POST', '/v1/messages', { key: test, body: { from: '"Evil \\"Boss\\" <ceo@bank.com>" <agent@x.example>', to: 'reply@test.mailagent.localhost', subject: 'Hi', body_text: 'x' } });
    expectError(r, 400, 'invalid_param_value', 'from');
    const bare = await api('POST', '/v1/messages', { key: test, body: { from: '"ceo@bank.com" <agent@x.example>', to: 'reply@test.mailagent.localhost', subject: 'Hi', body_text: 'x' } });
    expectError(bare, 400, 'invalid_param_value', 'from');
    const named = await api('POST', '/v1/messages', { key: test, body: { from: 'Billing Team <agent@x.example>', to: 'reply@test.mailagent.localhost', subject: 'Hi', body_text: 'x' } });
    expect(named.status, named.text).toBe(201);
    expectError(await api('PATCH', '/v1/agents/other', { body: { display_name: 'Support <help@bank.com>' } }), 400, 'invalid_param_value', 'display_name');
    expectError(await api('POST', '/v1/agents', { body: { name: 'disp', display_name: 'ceo@bank.com' } }), 400, 'invalid_param_value', 'display_name');
  });

  it('a test key\'s send never creates an agent through `from`', async () => {
    const r = await api('POST', '/v1/messages', { key: test, body: { from: 'brandnew', to: 'reply@test.mailagent.localhost', subject: 'Typo', body_text: 'x' } });
    expectError(r, 404, 'agent_not_found', 'from');
    expect(r.body.error.message).toMatch(/POST \/v1\/agents/);
    expectError(await api('GET', '/v1/agents/brandnew'), 404, 'agent_not_found');
  });

  it('scheduling is capped at the documented horizon on create, reschedule and drafts', async () => {
    const far = '9999-12-31T23:59:59Z';
    expectError(await api('POST', '/v1/messages', { key: test, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'Far', body_text: 'x', scheduled_at: far } }), 400, 'invalid_param_value', 'scheduled_at');
    const soon = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const s = await api('POST', '/v1/messages', { key: test, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'Soon', body_text: 'x', scheduled_at: soon } });
    expect(s.status, s.text).toBe(201);
    expect(s.body.status).toBe('scheduled');
    const past = new Date(Date.now() + 400 * 86_400_000).toISOString();
    const re = await api('PATCH', `/v1/messages/${s.body.id}`, { key: test, body: { scheduled_at: past } });
    expectError(re, 400, 'invalid_param_value', 'scheduled_at');
    expect(re.body.error.message).toMatch(/365 days/);
    expectError(await api('POST', '/v1/drafts', { key: test, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'D', body_text: 'x', send_at: far } }), 400, 'invalid_param_value', 'send_at');
    const d = await api('POST', '/v1/drafts', { key: test, body: { agent: 'agent', to: 'reply@test.mailagent.localhost', subject: 'D', body_text: 'x' } });
    expect(d.status, d.text).toBe(201);
    expectError(await api('POST', `/v1/drafts/${d.body.id}/send`, { key: test, body: { send_at: far } }), 400, 'invalid_param_value', 'send_at');
  });
});
