import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { eml, RawSmtp, startSmtp, untilProcessed } from './helpers.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';

/**
 * RFC 5321 §4.5.1: `postmaster` is accepted for every domain the server takes mail for (an outside
 * tester found `RCPT TO:<postmaster@…>` refused 550). It goes to the default agent of the
 * workspace that owns the domain, and its `to` says postmaster. Real SMTP over TCP.
 */
let t: TestApp;
let smtp: SmtpListener;
const WS_DOMAIN = 'local.mailagent.localhost';

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp(t);
});
afterAll(async () => {
  await smtp.stop();
  await t.close();
});

async function deliver(rcpts: string[], subject: string): Promise<string[]> {
  const c = new RawSmtp(smtp.port);
  const replies: string[] = [await c.reply(), await c.cmd('EHLO client.test'), await c.cmd('MAIL FROM:<reporter@sender.test>')];
  for (const r of rcpts) replies.push(await c.cmd(`RCPT TO:<${r}>`));
  if (replies.slice(3).some((r) => r.startsWith('250'))) {
    replies.push(await c.cmd('DATA'));
    c.write(eml({ from: 'reporter@sender.test', to: rcpts[0], subject, body: 'Your server sent us spam from 192.0.2.1.' }) + '\r\n.');
    replies.push(await c.reply());
  }
  await c.cmd('QUIT');
  c.close();
  return replies;
}

async function received(subject: string) {
  await untilProcessed(t);
  const r = await t.req('GET', '/v1/messages/received', { query: { limit: 100 } });
  expect(r.status, r.text).toBe(200);
  return (r.body.data as { subject: string; agent_id: string; to: string }[]).filter((m) => m.subject === subject);
}

describe('postmaster (RFC 5321 §4.5.1)', () => {
  it('is accepted for the workspace domain in any case and stored for the default agent, addressed to postmaster', async () => {
    const r = await deliver([`postmaster@${WS_DOMAIN}`, `PostMaster@${WS_DOMAIN.toUpperCase()}`], 'abuse report');
    expect(r.slice(3, 5)).toEqual([expect.stringMatching(/^250/), expect.stringMatching(/^250/)]);
    expect(r.at(-1)).toMatch(/^250/);
    const got = await received('abuse report');
    expect(got).toHaveLength(1);
    expect(got[0].agent_id).toBe(t.boot.agent.id);
    expect(got[0].to).toBe(`postmaster@${WS_DOMAIN}`);
    // Loopback is a trusted network by default: message.received, as any signed mail.
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'message.received', limit: 100 } });
    expect(ev.body.data.filter((e: any) => e.data.subject === 'abuse report').map((e: any) => e.data.to)).toEqual([`postmaster@${WS_DOMAIN}`]);
  });

  it('is accepted with no domain, and for the bare agent domain and any subdomain of it (the operator\'s workspace)', async () => {
    const r = await deliver(['Postmaster', 'postmaster@mailagent.localhost', 'postmaster@nosuchworkspace.mailagent.localhost'], 'dmarc report');
    expect(r.slice(3, 6)).toEqual([expect.stringMatching(/^250/), expect.stringMatching(/^250/), expect.stringMatching(/^250/)]);
    const got = await received('dmarc report');
    expect(got.map((m) => m.agent_id)).toEqual([t.boot.agent.id]);
  });

  it('takes the other RFC 2142 role mailboxes the same way, with their own address as `to`', async () => {
    const roles = ['abuse', 'hostmaster', 'webmaster', 'security', 'noc'];
    const r = await deliver(roles.map((x) => `${x}@${WS_DOMAIN}`), 'role mail');
    expect(r.slice(3, 8)).toEqual(roles.map(() => expect.stringMatching(/^250/)));
    const got = await received('role mail');
    expect(got.map((m) => [m.agent_id, m.to])).toEqual([[t.boot.agent.id, `abuse@${WS_DOMAIN}`]]);
  });

  it('other domains stay closed (never an open relay), mailer-daemon and role names without a domain stay unknown, and an archived default agent hands over to the next', async () => {
    const r = await deliver(['postmaster@gmail.com', `mailer-daemon@${WS_DOMAIN}`, 'abuse'], 'not for us');
    expect(r[3]).toMatch(/^550 5\.7\.1 Relaying denied/);
    expect(r[4]).toMatch(/^550 5\.1\.1/);
    expect(r[5]).toMatch(/^501 /); // smtp-server: a recipient without a domain is a syntax error, Postmaster excepted
    const next = (await t.req('POST', '/v1/agents', { body: { name: 'ops' } })).body;
    expect((await t.req('DELETE', `/v1/agents/${t.boot.agent.id}`)).status).toBe(200);
    const after = await deliver([`postmaster@${WS_DOMAIN}`], 'after archive');
    expect(after[3]).toMatch(/^250/);
    expect((await received('after archive')).map((m) => m.agent_id)).toEqual([next.id]);
  });
});
