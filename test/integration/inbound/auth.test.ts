import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dkimSign } from 'mailauth';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { eml, fakeResolver, startSmtp, transport } from './helpers.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { authenticateInRounds, createDnsResolver, MAX_AUTH_ROUNDS } from '../../../src/mail/auth.js';
import { createPipeline, type Pipeline } from '../../../src/server/pipeline/index.js';

/**
 * The stored message: a read after a `250` waits a bounded time for processing (docs/inbound.md),
 * which a loaded machine can overrun with DNS rounds in the pool; ask again until it is there.
 */
async function stored(app: TestApp, id: string) {
  for (let i = 0; ; i++) {
    const res = await app.req('GET', `/v1/messages/received/${id}`);
    if (res.status !== 404 || i >= 60) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
}

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
  const m = await stored(t, id);
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
      const m = (await stored(t, id)).body;
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
      const m = (await stored(t, id)).body;
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

/**
 * The daemon's way (issue #13): the check runs in the pipeline's workers, in rounds; the DNS
 * questions between rounds are asked on the main thread through the listener's (injected) resolver,
 * so a worker never waits for the network and the main thread never loads mailauth.
 */
describe('SPF, DKIM and DMARC in the pipeline workers, DNS asked between rounds', () => {
  let t2: TestApp;
  let s2: SmtpListener;
  let pipeline: Pipeline;
  const dns2 = fakeResolver();
  dns2.records['TXT s1._domainkey.chain.test'] = [[`v=DKIM1; k=rsa; p=${pub}`]];
  // SPF three levels deep: each level is found only once the one naming it is answered.
  dns2.records['TXT chain.test'] = [['v=spf1 include:l1.chain.test -all']];
  dns2.records['TXT l1.chain.test'] = [['v=spf1 include:l2.chain.test -all']];
  dns2.records['TXT l2.chain.test'] = [['v=spf1 ip4:127.0.0.1 -all']];
  dns2.records['TXT _dmarc.chain.test'] = [['v=DMARC1; p=reject']];

  beforeAll(async () => {
    t2 = await createTestApp();
    pipeline = createPipeline({ workers: 1, budgetMs: 5_000, log: t2.ctx.log });
    await pipeline.ready();
    t2.ctx.work = pipeline.work;
    s2 = await startSmtp(t2, { resolver: dns2.resolver });
  });
  afterAll(async () => {
    await s2?.stop();
    await pipeline?.close();
    await t2?.close();
  });

  const signedChain = async (subject: string) => {
    const msg = eml({ from: 'c@chain.test', subject });
    const signed = await dkimSign(msg, { signatureData: [{ signingDomain: 'chain.test', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }] } as never);
    return signed.signatures + msg;
  };
  const deliver2 = async (raw: string) => {
    const info = await transport(s2.port).sendMail({ envelope: { from: 'c@chain.test', to: ['agent@local.mailagent.localhost'] }, raw });
    const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
    return (await stored(t2, id)).body;
  };

  it('SPF through a chain of includes, DKIM and DMARC pass; each name asked once; a second message from the domain takes one round', async () => {
    const jobs0 = pipeline.stats().jobs;
    const m = await deliver2(await signedChain('chain one'));
    expect([m.spf_pass, m.dkim_pass, m.dmarc]).toEqual([true, true, 'pass']);
    const ar = m.headers.find((h: { name: string }) => h.name.toLowerCase() === 'authentication-results');
    expect(ar).toBeUndefined(); // mailauth's header is not added to the stored copy (as before)
    const asked = dns2.calls.filter((c) => c.includes('chain.test'));
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked).toEqual(expect.arrayContaining(['TXT s1._domainkey.chain.test', 'TXT chain.test', 'TXT l1.chain.test', 'TXT l2.chain.test', 'TXT _dmarc.chain.test']));
    // Rounds: one per SPF level at least (+ the parse job), all in the pool.
    const firstJobs = pipeline.stats().jobs - jobs0;
    expect(firstJobs).toBeGreaterThanOrEqual(4);
    const jobs1 = pipeline.stats().jobs;
    const m2 = await deliver2(await signedChain('chain two'));
    expect([m2.spf_pass, m2.dkim_pass, m2.dmarc]).toEqual([true, true, 'pass']);
    // The names the domain needed last time were answered before the first round: one round + the parse.
    expect(pipeline.stats().jobs - jobs1).toBe(2);
  });

  it('a large signed message (its rounds share one copy of the bytes) passes DKIM', async () => {
    const body = Array.from({ length: 4000 }, (_, i) => `line ${i} of a long signed message, long enough to be shared`).join('\r\n');
    const msg = eml({ from: 'c@chain.test', subject: 'big signed', body });
    expect(msg.length).toBeGreaterThan(200_000);
    const signed = await dkimSign(msg, { signatureData: [{ signingDomain: 'chain.test', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }] } as never);
    const m = await deliver2(signed.signatures + msg);
    expect([m.spf_pass, m.dkim_pass, m.dmarc]).toEqual([true, true, 'pass']);
  });

  it('a tampered signature fails in the workers too (unauthenticated when SPF fails as well)', async () => {
    dns2.records['TXT nospf.chain2.test'] = [['v=spf1 -all']];
    dns2.records['TXT s1._domainkey.chain2.test'] = [[`v=DKIM1; k=rsa; p=${pub}`]];
    const msg = eml({ from: 'd@chain2.test', subject: 'Signed' });
    const signed = await dkimSign(msg, { signatureData: [{ signingDomain: 'chain2.test', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }] } as never);
    dns2.records['TXT chain2.test'] = [['v=spf1 -all']];
    const info = await transport(s2.port).sendMail({ envelope: { from: 'd@chain2.test', to: ['agent@local.mailagent.localhost'] }, raw: signed.signatures + msg.replace('Subject: Signed', 'Subject: Tampered') });
    const id = /rcv_[0-9a-z]+/.exec(info.response)![0];
    const m = (await stored(t2, id)).body;
    expect([m.spf_pass, m.dkim_pass]).toEqual([false, false]);
    const ev = await t2.ctx.db.selectFrom('events').select('type').where('type', 'not like', 'thread.%').where('payload', 'like', `%"source_message_id":"${id}"%`).executeTakeFirstOrThrow();
    expect(ev.type).toBe('message.received.unauthenticated');
  });
});

describe('authenticateInRounds', () => {
  it('gives up as "not checked" past its rounds or its time, never throws', async () => {
    const input = { raw: Buffer.from('Subject: x\r\n\r\nhi\r\n'), ip: '192.0.2.1', helo: 'h', mailFrom: 'a@rounds.test', mta: 'mx', resolver: fakeResolver().resolver };
    let rounds = 0;
    // A round that always wants one more name: stops after MAX_AUTH_ROUNDS.
    const endless = await authenticateInRounds(input, async () => ({ need: [{ name: `n${rounds++}.rounds.test`, rrtype: 'TXT' }] }));
    expect(endless).toEqual({ spf: null, dkim: null, dmarc: null, header: null });
    expect(rounds).toBe(MAX_AUTH_ROUNDS);
    // A resolver that never answers: the whole check ends at timeoutMs.
    const t0 = Date.now();
    const stuck = await authenticateInRounds({ ...input, timeoutMs: 200, resolver: () => new Promise(() => {}) }, async () => ({ need: [{ name: 'slow.rounds.test', rrtype: 'TXT' }] }));
    expect(stuck.spf).toBeNull();
    expect(Date.now() - t0).toBeLessThan(2_000);
    // A runner that throws (a closed pool is the caller's business, but anything else): not checked.
    expect(await authenticateInRounds(input, async () => { throw new Error('boom'); })).toEqual({ spf: null, dkim: null, dmarc: null, header: null });
  });
});
