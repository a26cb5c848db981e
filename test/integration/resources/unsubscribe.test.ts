import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { findSuppression } from '../../../src/services/suppression.js';
import { unsubscribeToken, PUBLIC_RATE_LIMIT } from '../../../src/services/unsubscribe.js';

let t: TestApp;
let other: { id: string; email: string };

beforeAll(async () => {
  t = await createTestApp({ publicUrl: 'https://mail.example.net' });
  other = (await t.req('POST', '/v1/agents', { body: { name: 'other' } })).body;
});
afterAll(async () => { await t.close(); });

async function lastRawTo(agentId: string): Promise<string> {
  const row = await t.ctx.db.selectFrom('received_messages').select('raw').where('agent_id', '=', agentId).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return Buffer.from(row.raw!).toString('utf8');
}
const unfold = (raw: string) => raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');

describe('List-Unsubscribe on live sends', () => {
  it('a single-recipient live send carries a signed one-click link (RFC 8058)', async () => {
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: other.email, subject: 'Weekly update', body_text: 'Here is what happened on the project this week.' } });
    expect(s.status, s.text).toBe(201);
    const head = unfold(await lastRawTo(other.id));
    const m = /^List-Unsubscribe: <(https:\/\/mail\.example\.net\/v1\/unsubscribe\/([^>]+))>$/m.exec(head);
    expect(m, head).toBeTruthy();
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    const token = m![2];

    // GET shows a confirmation page and changes nothing (link scanners follow links).
    const page = await t.req('GET', `/v1/unsubscribe/${token}`, { key: null });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain(other.email);
    expect(page.text).toContain('<form method="post">');
    // Not framable by another site (a hidden frame over a decoy button: clickjacking), no scripts.
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(await findSuppression(t.ctx, t.boot.workspace.id, t.boot.agent.id, other.email)).toBeNull();

    // The one-click POST a mailbox provider sends.
    const post = await t.req('POST', `/v1/unsubscribe/${token}`, { key: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.status, post.text).toBe(200);
    expect(await findSuppression(t.ctx, t.boot.workspace.id, t.boot.agent.id, other.email)).toMatchObject({ type: 'unsubscribe', scope: 'agent' });
    // Only for that agent.
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, other.email)).toBeNull();
    const again = await t.req('POST', `/v1/unsubscribe/${token}`, { key: null, rawBody: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(again.status).toBe(200);
    const ev = await t.req('GET', '/v1/events', { query: { event_type: 'suppression.added' } });
    expect(ev.body.data.filter((e: any) => e.data.address === other.email)).toHaveLength(1);
    // The next send to that address is refused.
    const refused = await t.req('POST', '/v1/messages', { body: { agent: 'agent', to: other.email, subject: 'Another update', body_text: 'More news from the project.' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('recipient_suppressed');
  });

  it('a message to several people: each recipient\'s copy has a one-click link that unsubscribes only them (Bcc included)', async () => {
    const fourth = (await t.req('POST', '/v1/agents', { body: { name: 'fourth' } })).body;
    const fifth = (await t.req('POST', '/v1/agents', { body: { name: 'fifth' } })).body;
    const secret = (await t.req('POST', '/v1/agents', { body: { name: 'secret' } })).body;
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'other', to: [fourth.email, fifth.email], bcc: [secret.email], subject: 'Team dinner', body_text: 'Dinner is at seven on Friday in the usual place.' } });
    expect(s.status, s.text).toBe(201);
    const tokens: Record<string, string> = {};
    for (const a of [fourth, fifth, secret]) {
      const raw = await lastRawTo(a.id);
      const head = unfold(raw);
      const m = /^List-Unsubscribe: <https:\/\/mail\.example\.net\/v1\/unsubscribe\/([^>]+)>$/m.exec(head);
      expect(m, head).toBeTruthy();
      expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      tokens[a.email] = m![1];
      // Each copy names its own recipient (its one link); the Bcc address is in no other copy.
      expect(Buffer.from(m![1].split('.')[0], 'base64url').toString()).toBe(`1|${other.id}|${a.email}`);
      if (a !== secret) expect(raw).not.toContain(secret.email);
    }
    // The page of fifth's link names fifth only; its one-click POST suppresses fifth only.
    const page = await t.req('GET', `/v1/unsubscribe/${tokens[fifth.email]}`, { key: null });
    expect(page.text).toContain(fifth.email);
    for (const a of [fourth.email, secret.email]) expect(page.text).not.toContain(a);
    const post = await t.req('POST', `/v1/unsubscribe/${tokens[fifth.email]}`, { key: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.status, post.text).toBe(200);
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, fifth.email)).toMatchObject({ type: 'unsubscribe', scope: 'agent' });
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, fourth.email)).toBeNull();
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, secret.email)).toBeNull();
    // An address typed into a per-recipient link's form changes nothing: the link names its recipient.
    const typed = await t.req('POST', `/v1/unsubscribe/${tokens[fourth.email]}`, { key: null, rawBody: `address=${encodeURIComponent(secret.email)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(typed.status).toBe(200);
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, secret.email)).toBeNull();
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, fourth.email)).toMatchObject({ type: 'unsubscribe' });
  });

  it('a message link from mail sent before per-recipient copies: its page lists no address and answers alike for any typed address', async () => {
    const third = (await t.req('POST', '/v1/agents', { body: { name: 'third' } })).body;
    const hidden = (await t.req('POST', '/v1/agents', { body: { name: 'hidden' } })).body;
    const s = await t.req('POST', '/v1/messages', { body: { agent: 'other', to: [t.boot.agent.email, third.email], bcc: [hidden.email], subject: 'Team lunch', body_text: 'Lunch is at noon on Friday in the usual place.' } });
    expect(s.status, s.text).toBe(201);
    // Such mail carried a link naming the message (`msg:<id>`) in every copy.
    const token = await unsubscribeToken(t.ctx, other.id, `msg:${s.body.id}`);
    const page = await t.req('GET', `/api/v1/unsubscribe/${token}`, { key: null });
    expect(page.status).toBe(200);
    for (const a of [hidden.email, third.email, t.boot.agent.email]) expect(page.text).not.toContain(a);
    expect(page.text).toMatch(/<input type="email" name="address"/);
    const post = (address: string) => t.req('POST', `/v1/unsubscribe/${token}`, { key: null, rawBody: `address=${encodeURIComponent(address)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const none = await t.req('POST', `/v1/unsubscribe/${token}`, { key: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(none.body.error).toMatchObject({ code: 'missing_field', param: 'address' });
    // An address the message did not go to: the same answer as one it did (no oracle of who got
    // it), and nothing suppressed.
    const wrong = await post('someone@else.com');
    expect(wrong.status, wrong.text).toBe(200);
    expect(wrong.text).toContain('If this message was sent to <b>someone@else.com</b>');
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, 'someone@else.com')).toBeNull();
    const ok = await post(third.email.toUpperCase());
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text.replace(third.email, 'X')).toBe(wrong.text.replace('someone@else.com', 'X'));
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, third.email)).toMatchObject({ type: 'unsubscribe' });
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, t.boot.agent.email)).toBeNull();
    expect((await post(hidden.email)).status).toBe(200);
    expect(await findSuppression(t.ctx, t.boot.workspace.id, other.id, hidden.email)).toMatchObject({ type: 'unsubscribe' });
  });
});

describe('forged and unknown links; rate limit', () => {
  it('a forged or altered token is 404 and suppresses nothing', async () => {
    const good = await unsubscribeToken(t.ctx, t.boot.agent.id, 'victim@example.com');
    const [payload, sig] = good.split('.');
    const forgedPayload = Buffer.from(`1|${t.boot.agent.id}|ceo@example.com`).toString('base64url');
    for (const tok of [`${forgedPayload}.${sig}`, `${payload}.${'A'.repeat(24)}`, 'garbage', `${payload}.${sig}x`]) {
      const r = await t.req('POST', `/v1/unsubscribe/${tok}`, { key: null, body: {} });
      expect(r.status, tok).toBe(404);
    }
    expect(await findSuppression(t.ctx, t.boot.workspace.id, t.boot.agent.id, 'ceo@example.com')).toBeNull();
    const real = await t.req('POST', `/v1/unsubscribe/${good}`, { key: null, body: {} });
    expect(real.status).toBe(200);
  });

  it('public routes are rate-limited per client address', async () => {
    t.clock.advance(120_000);
    const tok = await unsubscribeToken(t.ctx, t.boot.agent.id, 'x@example.com');
    let last;
    for (let i = 0; i < PUBLIC_RATE_LIMIT; i++) last = await t.req('GET', `/v1/unsubscribe/${tok}`, { key: null });
    expect(last!.status).toBe(200);
    const over = await t.req('GET', `/v1/unsubscribe/${tok}`, { key: null });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limit_exceeded');
    expect(over.headers['retry-after']).toBeTruthy();
    // Another address is not affected.
    const other = await t.app.inject({ method: 'GET', url: `/v1/unsubscribe/${tok}`, remoteAddress: '10.0.0.9' });
    expect(other.statusCode).toBe(200);
    t.clock.advance(61_000);
    expect((await t.req('GET', `/v1/unsubscribe/${tok}`, { key: null })).status).toBe(200);
  });

  it('behind a trusted proxy (trustedProxies) the limit is per forwarded client; an untrusted X-Forwarded-For is ignored', async () => {
    const proxied = await createTestApp({ trustedProxies: '127.0.0.1' });
    try {
      const tok = await unsubscribeToken(proxied.ctx, proxied.boot.agent.id, 'y@example.com');
      const from = (client: string, remoteAddress = '127.0.0.1') =>
        proxied.app.inject({ method: 'GET', url: `/v1/unsubscribe/${tok}`, remoteAddress, headers: { 'x-forwarded-for': client } });
      for (let i = 0; i < PUBLIC_RATE_LIMIT; i++) expect((await from('198.51.100.7')).statusCode).toBe(200);
      expect((await from('198.51.100.7')).statusCode).toBe(429);
      // Another client behind the same proxy is not blocked by the first.
      expect((await from('198.51.100.8')).statusCode).toBe(200);
      // A client that is not the proxy cannot choose its address with the header.
      for (let i = 0; i < PUBLIC_RATE_LIMIT; i++) await from(`203.0.113.${i}`, '192.0.2.50');
      expect((await from('203.0.113.200', '192.0.2.50')).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('the billing page explains the self-hosted tier; only a portal session shows it and links back', async () => {
    const r = await t.req('GET', '/v1/public/billing', { key: null, query: { return_url: 'https://app.example.com/' } });
    expect(r.status).toBe(200);
    expect(r.text).toContain('mailagent admin tier');
    expect(r.text).not.toContain('href="https://app.example.com/"');
    const p = await t.req('POST', '/v1/billing/portal', { body: { return_url: 'https://app.example.com/' } });
    const session = new URL(p.body.url).searchParams.get('session')!;
    const ok = await t.req('GET', '/v1/public/billing', { key: null, query: { session } });
    expect(ok.text).toContain('href="https://app.example.com/"');
    expect(ok.text).toContain('<b>free</b>');
    // An hour later the link shows nothing about the workspace.
    t.clock.advance(60 * 60 * 1000 + 1);
    const old = await t.req('GET', '/v1/public/billing', { key: null, query: { session } });
    expect(old.text).toContain('expired');
    expect(old.text).not.toContain('app.example.com');
  });
});
