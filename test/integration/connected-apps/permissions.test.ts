import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { startSink, type Sink } from '../../helpers/sink.js';
import { strictClientAccepts } from '../webhooks/helpers.js';
import { connectApp } from '../../../src/services/connected-apps.js';
import { insertNewKey } from '../../../src/services/api-keys.js';
import { flushRequestLog } from '../../../src/services/request-log.js';
import type { OauthGrantConnected } from '../../../src/contract/oauth.js';

let t: TestApp;
let sink: Sink;
let app: OauthGrantConnected;
let threadId: string;
let webhookId: string;

beforeAll(async () => {
  t = await createTestApp();
  sink = await startSink();
  app = await connectApp(t.ctx, { name: 'Helper', createdBy: 'operator' });
  const s = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: 'agent@local.mailagent.localhost', subject: 'Live thread for the app', body_text: 'Some live mail in a thread.' } });
  expect(s.status, s.text).toBe(201);
  threadId = s.body.thread_id;
  const w = await t.req('POST', '/v1/webhooks', { body: { url: `${sink.url}/hook` } });
  expect(w.status, w.text).toBe(201);
  webhookId = w.body.id;
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

const asApp = (method: string, url: string, body?: unknown) => t.req(method, url, { key: app.access_token, body });

describe('403 connected_app_not_allowed (spec: Connected apps)', () => {
  it('refuses each listed action, even with full access', async () => {
    const refused: [string, string, unknown][] = [
      ['POST', '/v1/api-keys', { name: 'k', scopes: ['read'], mode: 'live' }],
      ['POST', '/v1/webhooks', { url: `${sink.url}/other` }],
      ['PATCH', `/v1/webhooks/${webhookId}`, { url: `${sink.url}/moved` }],
      ['POST', `/v1/webhooks/${webhookId}/rotate-secret`, {}],
      ['GET', '/v1/oauth/grants', undefined],
      ['DELETE', `/v1/oauth/grants/${app.grant.id}`, undefined],
      ['DELETE', `/v1/threads/${threadId}`, undefined],
      ['PATCH', '/v1/agents/agent', { allowlist_domains: ['example.com'] }],
      ['PATCH', '/v1/agents/agent', { blocklist_domains: ['example.com'] }],
      ['PATCH', '/v1/agents/agent', { daily_send_limit: 10 }],
      ['PATCH', '/v1/agents/agent', { hourly_send_limit: 5 }],
      ['POST', '/v1/billing/portal', { return_url: 'https://example.com/back' }],
      ['POST', '/api/v1/billing/portal', {}],
    ];
    for (const [m, p, body] of refused) {
      const r = await asApp(m, p, body);
      expect(r.status, `${m} ${p} ${JSON.stringify(body)}: ${r.text}`).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'connected_app_not_allowed' });
    }
    // Nothing was changed by the refused calls.
    expect((await t.req('GET', `/v1/webhooks/${webhookId}`)).body.url).toBe(`${sink.url}/hook`);
    const agent = (await t.req('GET', '/v1/agents/agent')).body;
    expect(agent).toMatchObject({ allowlist_domains: [], blocklist_domains: [] });
    expect((await t.req('GET', `/v1/threads/${threadId}`)).status).toBe(200);
    expect((await t.req('GET', '/v1/api-keys', { query: { limit: 100 } })).body.data).toHaveLength(2);
  });

  it('allows the neighbouring actions: trash, other webhook changes, other agent fields', async () => {
    const trash = await asApp('POST', `/v1/threads/${threadId}/trash`, {});
    expect(trash.status, trash.text).toBe(200);
    expect((await asApp('POST', `/v1/threads/${threadId}/restore`, {})).status).toBe(200);
    const pause = await asApp('PATCH', `/v1/webhooks/${webhookId}`, { active: false, event_types: ['message.sent'] });
    expect(pause.status, pause.text).toBe(200);
    expect((await asApp('PATCH', `/v1/webhooks/${webhookId}`, { active: true, event_types: ['*'] })).status).toBe(200);
    const rename = await asApp('PATCH', '/v1/agents/agent', { display_name: 'Helper-run agent' });
    expect(rename.status, rename.text).toBe(200);
    expect((await asApp('GET', '/v1/api-keys')).status).toBe(200);
    expect((await asApp('GET', '/v1/billing/usage')).status).toBe(200);
  });

  it('the request log hides IP addresses and browsers from an app; a key sees them', async () => {
    await t.req('GET', '/v1/agents', { headers: { 'user-agent': 'Mozilla/5.0 (X11) Firefox/128.0' } });
    await flushRequestLog(t.ctx);
    const mine = await t.req('GET', '/v1/logs', { query: { category: 'request', limit: 100 } });
    expect(mine.body.data.some((e: any) => e.metadata.user_agent === 'Mozilla/5.0 (X11) Firefox/128.0')).toBe(true);
    expect(mine.body.data.every((e: any) => 'client_address' in e.metadata)).toBe(true);
    const seen = await asApp('GET', '/v1/logs?category=request&limit=100');
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.data.length).toBeGreaterThanOrEqual(mine.body.data.length);
    for (const e of seen.body.data) {
      expect(e.metadata).not.toHaveProperty('client_address');
      expect(e.metadata).not.toHaveProperty('user_agent');
      expect(e.metadata).toHaveProperty('request_id');
    }
    expect(JSON.stringify(seen.body)).not.toContain('Firefox');
    expect(JSON.stringify(seen.body)).not.toContain('127.0.0.1');
    // The app's own requests are logged under its grant id.
    expect(seen.body.data.some((e: any) => e.key_id === app.grant.id)).toBe(true);
  });
});

describe('GET/DELETE /v1/oauth/grants', () => {
  it('need an unbound manage key', async () => {
    const bound = await t.makeKey({ scopes: ['read', 'manage'], agent_id: t.boot.agent.id });
    const reader = await t.makeKey({ scopes: ['read', 'send'] });
    for (const key of [bound, reader]) {
      for (const [m, p] of [['GET', '/v1/oauth/grants'], ['DELETE', `/v1/oauth/grants/${app.grant.id}`]]) {
        const r = await t.req(m, p, { key });
        expect(r.status, `${m} ${p}`).toBe(403);
        expect(r.body.error.code).toBe('insufficient_scope');
      }
    }
    expect((await t.req('GET', '/v1/oauth/grants', { key: null })).body.error.code).toBe('missing_authorization');
    expect((await t.req('GET', '/v1/oauth/grants', { key: t.testKey })).status).toBe(200);
  });

  it('list newest first with paging; bad input is 400', async () => {
    const second = await connectApp(t.ctx, { name: 'Second', access: 'read', createdBy: 'operator' });
    const l = await t.req('GET', '/api/v1/oauth/grants', { query: { limit: 1 } });
    expect(l.status).toBe(200);
    expect(l.body.data[0]).toMatchObject({ id: second.grant.id, object: 'oauth_grant', app_name: 'Second', access: 'read', scopes: ['read'], status: 'active', revoked_at: null });
    expect(l.body.has_more).toBe(true);
    const l2 = await t.req('GET', '/v1/oauth/grants', { query: { limit: 1, cursor: l.body.next_cursor } });
    expect(l2.body.data[0].id).toBe(app.grant.id);
    expect(l2.body.data[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(l.body) + JSON.stringify(l2.body)).not.toMatch(/moa_|mor_|refresh_token/);
    expect((await t.req('GET', '/v1/oauth/grants', { query: { cursor: 'junk' } })).body.error.param).toBe('cursor');
    expect((await t.req('GET', '/v1/oauth/grants', { query: { limit: 0 } })).body.error.param).toBe('limit');
    expect((await t.req('DELETE', '/v1/oauth/grants/grt_nope')).status).toBe(404);
  });

  it('revoking ends the sign-in at once; what the app made keeps working', async () => {
    const victim = await connectApp(t.ctx, { name: 'Revoked soon', createdBy: 'operator' });
    // Made through the API by the app: an agent and a draft.
    const agent = await t.req('POST', '/v1/agents', { key: victim.access_token, body: { name: 'app-made' } });
    expect(agent.status, agent.text).toBe(201);
    const draft = await t.req('POST', '/v1/drafts', { key: victim.access_token, body: { agent: 'app-made', to: ['agent@local.mailagent.localhost'], subject: 'Prepared by the app', body_text: 'Ready to go out later.' } });
    expect(draft.status, draft.text).toBe(201);
    // A key and a webhook attributed to the app (made on its behalf: the API itself refuses an app
    // both), whose signing secret the app saw through a test delivery.
    const key = await insertNewKey(t.ctx, t.ctx.db, {
      workspaceId: t.boot.workspace.id, name: 'app key', mode: 'live', scopes: ['read'], agentId: null, expiresAt: null,
      createdByKeyId: victim.grant.id,
    });
    const hook = await t.req('POST', '/v1/webhooks', { body: { url: `${sink.url}/app-hook` } });
    await t.ctx.db.updateTable('webhook_endpoints').set({ created_by_key_id: victim.grant.id }).where('id', '=', hook.body.id).execute();
    expect((await t.req('POST', `/v1/webhooks/${hook.body.id}/test`, { key: victim.access_token, body: {} })).body.ok).toBe(true);

    const rv = await t.req('DELETE', `/v1/oauth/grants/${victim.grant.id}`);
    expect(rv.status, rv.text).toBe(200);
    expect(rv.body).toEqual({ id: victim.grant.id, revoked_at: expect.any(String) });
    const after = await t.req('GET', '/v1/agents', { key: victim.access_token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_access_token');
    const renew = await t.req('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'refresh_token', refresh_token: victim.refresh_token } });
    expect(renew.status).toBe(401);
    expect(renew.body.error.code).toBe('invalid_access_token');
    // Idempotent: the first revoked_at stays.
    t.clock.advance(5000);
    expect((await t.req('DELETE', `/v1/oauth/grants/${victim.grant.id}`)).body.revoked_at).toBe(rv.body.revoked_at);
    const listed = (await t.req('GET', '/v1/oauth/grants', { query: { limit: 100 } })).body.data.find((g: any) => g.id === victim.grant.id);
    expect(listed).toMatchObject({ status: 'revoked', revoked_at: rv.body.revoked_at, expires_at: null });

    // Still working: the key, the webhook (same secret), the agent, the draft.
    expect((await t.req('GET', '/v1/agents', { key: key.key })).status).toBe(200);
    sink.reset();
    expect((await t.req('POST', `/v1/webhooks/${hook.body.id}/test`, { body: {} })).body.ok).toBe(true);
    const [delivered] = await sink.waitFor(1);
    expect(strictClientAccepts(hook.body.signing_secret, delivered)).toBe(true);
    expect((await t.req('GET', `/v1/webhooks/${hook.body.id}`)).body.active).toBe(true);
    expect((await t.req('GET', '/v1/agents/app-made')).body.status).toBe('active');
    const sent = await t.req('POST', `/v1/drafts/${draft.body.id}/send`, { body: {} });
    expect(sent.status, sent.text).toBe(200);

    // Both approval and revocation are in the audit log.
    const audit = await t.req('GET', '/v1/logs', { query: { category: 'oauth_grant', limit: 100 } });
    const actions = audit.body.data.filter((e: any) => e.target_resource_id === victim.grant.id).map((e: any) => e.action);
    expect(actions.sort()).toEqual(['oauth_grant.created', 'oauth_grant.revoked']);
  });
});
