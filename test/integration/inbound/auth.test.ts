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
    expect(m.dkim_pass).toBe(false);
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
