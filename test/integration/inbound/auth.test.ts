import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dkimSign } from 'mailauth';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { eml, fakeResolver, startSmtp, transport } from './helpers.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { createDnsResolver } from '../../../src/mail/auth.js';

let t: TestApp;
let smtp: SmtpListener;
const dns = fakeResolver();
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pub = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
dns.records['TXT s1._domainkey.signed.test'] = [[`v=DKIM1; k=rsa; p=${pub}`]];
dns.records['TXT spf-ok.test'] = [['v=spf1 ip4:127.0.0.1 -all']];
dns.records['TXT _dmarc.spf-ok.test'] = [['v=DMARC1; p=reject']];
dns.records['TXT _dmarc.signed.test'] = [['v=DMARC1; p=reject']];
// signed.test authorises no IP: SPF fails for mail from here (so DKIM decides).
dns.records['TXT signed.test'] = [['v=spf1 -all']];

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp(t, { resolver: dns.resolver });
});
afterAll(async () => {
  await smtp.stop();
  await t.close();
});

async function deliver(raw: string | Buffer, from: string) {
  const info = await transport(smtp.port).sendMail({ envelope: { from, to: ['agent@local.mailagent.localhost'] }, raw });
  const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
  const m = await t.req('GET', `/v1/messages/received/${id}`);
  const ev = await t.ctx.db.selectFrom('events').select('type').where('type', 'not like', 'thread.%').where('payload', 'like', `%"source_message_id":"${id}"%`).executeTakeFirstOrThrow();
  return { m: m.body, type: ev.type };
}

describe('SPF, DKIM and DMARC (mailauth, offline resolver)', () => {
  it('SPF pass for an authorised IP', async () => {
    const { m, type } = await deliver(eml({ from: 'a@spf-ok.test' }), 'a@spf-ok.test');
    expect(m.spf_pass).toBe(true);
    expect(m.dkim_pass).toBeNull(); // no signature: DKIM `none`, not failed
    expect(m.dmarc).toBe('pass');
    expect(type).toBe('message.received');
  });

  it('DKIM pass for a correctly signed message, fail once a signed header is altered', async () => {
    const msg = eml({ from: 'b@signed.test', subject: 'Signed' });
    const signed = await dkimSign(msg, { signatureData: [{ signingDomain: 'signed.test', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }] } as never);
    const ok = await deliver(signed.signatures + msg, 'b@signed.test');
    expect(ok.m.dkim_pass).toBe(true);
    expect(ok.m.spf_pass).toBe(false);
    expect(ok.m.dmarc).toBe('pass');
    expect(ok.type).toBe('message.received');
    const bad = await deliver(signed.signatures + msg.replace('Subject: Signed', 'Subject: Tampered'), 'b@signed.test');
    expect(bad.m.dkim_pass).toBe(false);
    expect(bad.m.dmarc).toBe('fail');
    expect(bad.type).toBe('message.received.unauthenticated');
  });

  it('SPF none (no record) and no DKIM signature are not failures: message.received, not unauthenticated', async () => {
    const { m, type } = await deliver(eml({ from: 'dev@no-spf.test' }), 'dev@no-spf.test');
    expect([m.spf_pass, m.dkim_pass]).toEqual([null, null]);
    expect(type).toBe('message.received');
  });

  it('a temporary DNS error is not a failure either', async () => {
    const flaky = fakeResolver();
    const base = flaky.resolver;
    const s2 = await startSmtp(t, { resolver: async (name: string, rr: string) => (name.includes('flaky') ? Promise.reject(Object.assign(new Error('SERVFAIL'), { code: 'ESERVFAIL' })) : base(name, rr)) });
    try {
      const info = await transport(s2.port).sendMail({ envelope: { from: 'x@flaky.test', to: ['agent@local.mailagent.localhost'] }, raw: eml({ from: 'x@flaky.test' }) });
      const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
      const m = (await t.req('GET', `/v1/messages/received/${id}`)).body;
      expect(m.spf_pass).toBeNull();
      expect(m.dkim_pass).toBeNull();
    } finally {
      await s2.stop();
    }
  });

  it('trusted networks (loopback by default at the daemon): authenticated without DNS, and the stored copy says so', async () => {
    const { DEFAULT_TRUSTED_NETWORKS } = await import('../../../src/mail/auth.js');
    const before = dns.calls.length;
    const s2 = await startSmtp(t, { resolver: dns.resolver, trustedNetworks: DEFAULT_TRUSTED_NETWORKS });
    try {
      const info = await transport(s2.port).sendMail({ envelope: { from: 'app@my-app.test', to: ['agent@local.mailagent.localhost'] }, raw: eml({ from: 'app@my-app.test' }) });
      const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
      const m = (await t.req('GET', `/v1/messages/received/${id}`)).body;
      // Counts as authenticated (message.received below) but was not checked: the API says so.
      expect([m.spf_pass, m.dkim_pass]).toEqual([null, null]);
      expect(m.trusted_network).toBe('127.0.0.0/8');
      const ar = m.headers.find((h: { name: string }) => h.name.toLowerCase() === 'authentication-results');
      expect(ar.value).toMatch(/x-trusted-network=pass .*127\.0\.0\.1 is in trusted network 127\.0\.0\.0\/8/);
      expect(dns.calls.length).toBe(before); // no DNS lookups for trusted mail
      const ev = await t.ctx.db.selectFrom('events').select('type').where('type', 'not like', 'thread.%').where('payload', 'like', `%"source_message_id":"${id}"%`).executeTakeFirstOrThrow();
      expect(ev.type).toBe('message.received');
    } finally {
      await s2.stop();
    }
  });

  it('--trusted-networks: a CIDR list, "none" for none; a bad entry fails at boot naming the field', async () => {
    const { loadConfig, ConfigError } = await import('../../../src/server/config.js');
    expect(loadConfig({ dataDir: '/tmp/x-trust' }, {}).trustedNetworks).toEqual(['127.0.0.0/8', '::1/128']);
    expect(loadConfig({ dataDir: '/tmp/x-trust', trustedNetworks: '10.0.0.0/8, 192.168.1.0/24' }, {}).trustedNetworks).toEqual(['10.0.0.0/8', '192.168.1.0/24']);
    expect(loadConfig({ dataDir: '/tmp/x-trust' }, { MAILAGENT_TRUSTED_NETWORKS: 'none' }).trustedNetworks).toEqual([]);
    expect(() => loadConfig({ dataDir: '/tmp/x-trust', trustedNetworks: '10.0.0.0/33' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ dataDir: '/tmp/x-trust', trustedNetworks: 'localhost' }, {})).toThrow(/trustedNetworks/);
  });

  it('the daemon resolver answers reserved names locally and bounds slow lookups', async () => {
    let called = 0;
    const r = createDnsResolver({ timeoutMs: 50, base: async () => { called++; return new Promise(() => {}); } });
    await expect(r('sender.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(r('foo.localhost', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(called).toBe(0);
    await expect(r('slow.example.org', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(called).toBe(1);
  });
});
