import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { setTxtResolver } from '../../../src/services/domains.js';

let t: TestApp;
const dns = new Map<string, string[][]>();

beforeAll(async () => {
  t = await createTestApp();
  setTxtResolver(t.ctx, async (name) => dns.get(name) ?? []);
});
afterAll(async () => { await t.close(); });

function publish(domain: any) {
  for (const r of domain.records) dns.set(r.name, [...(dns.get(r.name) ?? []), r.purpose === 'dkim' ? [r.value.slice(0, 200), r.value.slice(200)] : [r.value]]);
}

describe('domains', () => {
  let dom: any;
  it('adds a domain with the DNS records to publish', async () => {
    const r = await t.req('POST', '/v1/domains', { body: { domain: 'Example.COM.' } });
    expect(r.status, r.text).toBe(201);
    dom = r.body;
    expect(dom).toMatchObject({ object: 'domain', domain: 'example.com', status: 'pending', dkim_selector: 'mailagent' });
    expect(dom).not.toHaveProperty('verified_at');
    expect(dom.id).toMatch(/^dom_/);
    const byPurpose = Object.fromEntries(dom.records.map((x: any) => [x.purpose, x]));
    expect(byPurpose.verification).toMatchObject({ type: 'TXT', name: '_mailagent.example.com', status: 'pending' });
    expect(byPurpose.verification.value).toMatch(/^mailagent-verification=[0-9a-f]{32}$/);
    expect(byPurpose.spf).toMatchObject({ name: 'example.com' });
    expect(byPurpose.spf.value).toMatch(/^v=spf1 /);
    expect(byPurpose.dkim.name).toBe('mailagent._domainkey.example.com');
    expect(byPurpose.dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIB/);
    expect(JSON.stringify(r.body)).not.toContain('PRIVATE');
    expect((await t.req('GET', '/v1/domains')).body.data.map((d: any) => d.id)).toEqual([dom.id]);
    expect((await t.req('GET', '/v1/domains/example.com')).body.id).toBe(dom.id);
  });

  it('refuses bad, duplicate and own domains', async () => {
    expect((await t.req('POST', '/v1/domains', { body: { domain: 'example.com' } })).body.error.code).toBe('duplicate_resource');
    expect((await t.req('POST', '/v1/domains', { body: { domain: 'not a domain' } })).body.error).toMatchObject({ code: 'invalid_param_value', param: 'domain' });
    expect((await t.req('POST', '/v1/domains', { body: { domain: 'x.mailagent.localhost' } })).body.error.param).toBe('domain');
    expect((await t.req('POST', '/v1/domains', { body: {} })).body.error.code).toBe('missing_field');
    expect((await t.req('GET', '/v1/domains/dom_nope')).status).toBe(404);
  });

  it('an agent cannot use the domain before it is verified', async () => {
    const r = await t.req('POST', '/v1/agents', { body: { name: 'sales', domain: 'example.com' } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('domain_not_verified');
    expect((await t.req('POST', '/v1/agents', { body: { name: 'sales', domain: 'other.org' } })).body.error.code).toBe('domain_not_verified');
  });

  it('verify reports each record, and passes once all three are published', async () => {
    const v1 = await t.req('POST', `/v1/domains/${dom.id}/verify`);
    expect(v1.status).toBe(200);
    expect(v1.body.status).toBe('failed');
    expect(v1.body.records.map((x: any) => x.status)).toEqual(['missing', 'missing', 'missing']);
    expect(v1.body.last_error).toContain('missing');
    dns.set('mailagent._domainkey.example.com', [['v=DKIM1; k=rsa; p=AAAA']]);
    dns.set('example.com', [['v=spf1 include:_spf.example.net ~all']]);
    const v2 = await t.req('POST', `/v1/domains/${dom.id}/verify`);
    expect(v2.body.records.find((x: any) => x.purpose === 'dkim').status).toBe('mismatch');
    expect(v2.body.records.find((x: any) => x.purpose === 'spf').status).toBe('verified');
    dns.delete('mailagent._domainkey.example.com');
    publish({ records: dom.records.filter((x: any) => x.purpose !== 'spf') });
    const v3 = await t.req('POST', `/v1/domains/${dom.id}/verify`);
    expect(v3.body.status, JSON.stringify(v3.body)).toBe('verified');
    expect(v3.body.verified_at).toBeTruthy();
    expect(v3.body.last_error).toBeUndefined();
  });

  it('an agent on the verified domain has its address there and its live mail is DKIM-signed', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'sales', domain: 'example.com' } });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ email: 'sales@example.com', domain: 'example.com' });
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'sales', to: 'agent@local.mailagent.localhost', subject: 'Pricing question', body_text: 'Could you send me the pricing sheet we discussed on the call?' } });
    expect(s.status, s.text).toBe(201);
    const row = await t.ctx.db.selectFrom('received_messages').select(['raw']).where('agent_id', '=', t.boot.agent.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
    const raw = Buffer.from(row.raw!);
    expect(raw.toString()).toMatch(/DKIM-Signature: .*d=example\.com/);
    const res = await dkimVerify(raw, { resolver: async (name: string, type: string) => { if (type !== 'TXT') throw Object.assign(new Error('no'), { code: 'ENOTFOUND' }); const v = dns.get(name); if (!v) throw Object.assign(new Error('no'), { code: 'ENOTFOUND' }); return v; } });
    expect(res.results[0].status.result).toBe('pass');
    expect(res.results[0].signingDomain).toBe('example.com');
  });

  it('a live message to several people: each recipient\'s copy is DKIM-signed over its own List-Unsubscribe', async () => {
    const peer = (await t.req('POST', '/v1/agents', { body: { name: 'peer' } })).body;
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'sales', to: ['agent@local.mailagent.localhost', peer.email], subject: 'Pricing sheet', body_text: 'The pricing sheet we discussed is attached to the next message.' } });
    expect(s.status, s.text).toBe(201);
    const resolver = async (name: string, type: string) => { if (type !== 'TXT') throw Object.assign(new Error('no'), { code: 'ENOTFOUND' }); const v = dns.get(name); if (!v) throw Object.assign(new Error('no'), { code: 'ENOTFOUND' }); return v; };
    const links = new Set<string>();
    for (const agentId of [t.boot.agent.id, peer.id]) {
      const row = await t.ctx.db.selectFrom('received_messages').select(['raw']).where('agent_id', '=', agentId).orderBy('id', 'desc').executeTakeFirstOrThrow();
      const raw = Buffer.from(row.raw!);
      const res = await dkimVerify(raw, { resolver });
      expect(res.results[0].status.result).toBe('pass');
      expect((res.results[0] as unknown as { signingHeaders: { keys: string } }).signingHeaders.keys.toLowerCase()).toContain('list-unsubscribe');
      links.add(/^List-Unsubscribe: (.*)$/m.exec(raw.toString())![1]);
    }
    expect(links.size).toBe(2);
  });

  it('removal waits for the domain\'s agents; agent-bound keys are refused', async () => {
    const bound = await t.makeKey({ scopes: ['manage', 'read'], agent_id: t.boot.agent.id });
    expect((await t.req('POST', '/v1/domains', { key: bound, body: { domain: 'b.example' } })).body.error.code).toBe('insufficient_scope');
    expect((await t.req('POST', `/v1/domains/${dom.id}/verify`, { key: bound })).status).toBe(403);
    expect((await t.req('DELETE', `/v1/domains/${dom.id}`, { key: bound })).status).toBe(403);
    expect((await t.req('GET', '/v1/domains', { key: bound })).status).toBe(200);
    const busy = await t.req('DELETE', `/v1/domains/${dom.id}`);
    expect(busy.status).toBe(409);
    await t.req('DELETE', '/v1/agents/sales');
    const d = await t.req('DELETE', `/v1/domains/${dom.id}`);
    expect(d.status).toBe(200);
    expect((await t.req('GET', `/v1/domains/${dom.id}`)).status).toBe(404);
  });
});

describe('custom domains switched off', () => {
  it('answers 400 feature_not_enabled', async () => {
    const off = await createTestApp({ customDomains: false });
    try {
      for (const [m, u, body] of [['POST', '/v1/domains', { domain: 'example.org' }], ['GET', '/v1/domains', undefined], ['POST', '/v1/agents', { name: 'x', domain: 'example.org' }]] as const) {
        const r = await off.req(m, u, { body });
        expect(r.status, `${m} ${u}`).toBe(400);
        expect(r.body.error.code).toBe('feature_not_enabled');
      }
    } finally {
      await off.close();
    }
  });
});
