import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createOwnerLink, LINK_TTL, SESSION_TTL } from '../../../src/services/web-sessions.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const cookieOf = (setCookie: unknown) => /mailagent_session=([^;]*)/.exec(String(setCookie))?.[1] ?? '';

async function signIn(key: string) {
  const r = await t.app.inject({ method: 'POST', url: '/ui/session', headers: { 'content-type': 'application/json', host: 'localhost' }, payload: JSON.stringify({ api_key: key }) });
  return { status: r.statusCode, body: r.json(), cookie: cookieOf(r.headers['set-cookie']), setCookie: String(r.headers['set-cookie'] ?? '') };
}

describe('web inbox pages', () => {
  it('serves the shell and assets with a strict CSP, no framing, nosniff; unknown assets are 404', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.body).toContain('<script type="module" src="/ui/app.js"></script>');
    expect(r.body).not.toMatch(/<script>|<style>| on\w+=/);
    const js = await t.app.inject({ method: 'GET', url: '/ui/app.js' });
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    const again = await t.app.inject({ method: 'GET', url: '/ui/app.js', headers: { 'if-none-match': String(js.headers.etag) } });
    expect(again.statusCode).toBe(304);
    for (const bad of ['/ui/nope.js', '/ui/..%2Fpackage.json', '/ui/README.md']) {
      const n = await t.app.inject({ method: 'GET', url: bad });
      expect(n.statusCode, bad).toBe(404);
      expect(n.json().error.code).toBe('resource_not_found');
    }
  });
});

describe('sign-in', () => {
  it('with a key: HttpOnly SameSite=Strict cookie, CSRF token required for changes, not for reads', async () => {
    const s = await signIn(t.testKey);
    expect(s.status).toBe(200);
    expect(s.setCookie).toMatch(/HttpOnly/);
    expect(s.setCookie).toMatch(/SameSite=Strict/);
    expect(s.setCookie).toMatch(`Max-Age=${SESSION_TTL / 1000}`);
    expect(s.setCookie).not.toMatch(/Secure/);
    const cookie = `mailagent_session=${s.cookie}`;
    const me = await t.req('GET', '/v1/me', { key: null, headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.api_key.mode).toBe('test');
    const noCsrf = await t.req('POST', '/v1/test/inbound', { key: null, headers: { cookie }, body: { agent: 'agent', from: 'a@b.test' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.message).toMatch(/X-CSRF-Token/);
    const wrong = await t.req('POST', '/v1/test/inbound', { key: null, headers: { cookie, 'x-csrf-token': (s.body.csrf_token[0] === 'x' ? 'y' : 'x') + s.body.csrf_token.slice(1) }, body: { agent: 'agent', from: 'a@b.test' } });
    expect(wrong.status).toBe(403);
    const ok = await t.req('POST', '/v1/test/inbound', { key: null, headers: { cookie, 'x-csrf-token': s.body.csrf_token }, body: { agent: 'agent', from: 'a@b.test', subject: 'via cookie' } });
    expect(ok.status, ok.text).toBe(201);
    const sess = await t.app.inject({ method: 'GET', url: '/ui/session', headers: { cookie } });
    expect(sess.json().csrf_token).toBe(s.body.csrf_token);
    // Sign out needs the token too, then the cookie is dead.
    expect((await t.app.inject({ method: 'DELETE', url: '/ui/session', headers: { cookie } })).statusCode).toBe(403);
    const out = await t.app.inject({ method: 'DELETE', url: '/ui/session', headers: { cookie, 'x-csrf-token': s.body.csrf_token } });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    const after = await t.req('GET', '/v1/me', { key: null, headers: { cookie } });
    expect(after.status).toBe(401);
  });

  it('refuses a bad key, a cross-origin sign-in and a form post; revoking the key ends its sessions', async () => {
    expect((await signIn('mk_test_nope')).status).toBe(401);
    const cross = await t.app.inject({ method: 'POST', url: '/ui/session', headers: { 'content-type': 'application/json', host: 'localhost', origin: 'https://evil.test' }, payload: JSON.stringify({ api_key: t.testKey }) });
    expect(cross.statusCode).toBe(403);
    const form = await t.app.inject({ method: 'POST', url: '/ui/session', headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'localhost' }, payload: `api_key=${t.testKey}` });
    expect(form.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/ui/session', headers: { 'content-type': 'application/json' }, payload: '{}' })).json().error.code).toBe('missing_field');

    const key = await t.makeKey({ scopes: ['read'], mode: 'test', name: 'temp' });
    const s = await signIn(key);
    const cookie = `mailagent_session=${s.cookie}`;
    expect((await t.req('GET', '/v1/messages/received', { key: null, headers: { cookie } })).status).toBe(200);
    const keys = await t.req('GET', '/v1/api-keys');
    const id = keys.body.data.find((k: { name: string }) => k.name === 'temp').id;
    expect((await t.req('DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    const gone = await t.req('GET', '/v1/messages/received', { key: null, headers: { cookie } });
    expect(gone.status).toBe(401);
    expect(gone.body.error.code).toBe('revoked_api_key');
  });

  it('scopes are the key\'s: a read-only session cannot send', async () => {
    const key = await t.makeKey({ scopes: ['read'], mode: 'test', name: 'reader' });
    const s = await signIn(key);
    const r = await t.req('POST', '/v1/test/inbound', { key: null, headers: { cookie: `mailagent_session=${s.cookie}`, 'x-csrf-token': s.body.csrf_token }, body: { agent: 'agent', from: 'a@b.test' } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
  });

  it('a one-time link (POST /v1/web/sign-in-links) works once and expires after 10 minutes', async () => {
    const l = await t.req('POST', '/v1/web/sign-in-links', { key: t.testKey, headers: { host: '127.0.0.1:7420' } });
    expect(l.status).toBe(201);
    expect(l.body.url).toMatch(/^http:\/\/127\.0\.0\.1:7420\/ui\/sign-in\/mwl_[\w-]+$/);
    const path = new URL(l.body.url).pathname;
    // Opening the link (a link checker or chat preview does) spends nothing: a page with a button.
    for (let i = 0; i < 2; i++) {
      const opened = await t.app.inject({ method: 'GET', url: path });
      expect(opened.statusCode).toBe(200);
      expect(opened.headers['set-cookie']).toBeUndefined();
      expect(opened.body).toContain('<form method="post" enctype="text/plain">');
      expect(opened.body).not.toContain('<script');
    }
    // Another site's form cannot spend it (login CSRF), by Origin or by fetch metadata.
    const foreign = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain', origin: 'https://evil.example', host: '127.0.0.1:7420' }, payload: '' });
    expect(foreign.statusCode).toBe(403);
    const crossSite = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain', origin: 'null', 'sec-fetch-site': 'cross-site' }, payload: '' });
    expect(crossSite.statusCode).toBe(403);
    const first = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain', origin: 'null', host: '127.0.0.1:7420', 'sec-fetch-site': 'same-origin' }, payload: '' });
    expect(first.statusCode).toBe(303); // what Chromium sends from the link's page (Origin null: no-referrer)
    expect(first.headers.location).toBe('/');
    expect(String(first.headers['set-cookie'])).toMatch(/mailagent_session=mws_/);
    const me = await t.req('GET', '/v1/me', { key: null, headers: { cookie: `mailagent_session=${cookieOf(first.headers['set-cookie'])}` } });
    expect(me.body.api_key.mode).toBe('test');
    const second = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain' }, payload: '' });
    expect(second.statusCode).toBe(401);
    expect(second.body).toContain('used already or has expired');
    expect(second.body).not.toContain('<script');

    const late = await t.req('POST', '/v1/web/sign-in-links', { key: t.testKey });
    t.clock.advance(LINK_TTL + 1);
    expect((await t.app.inject({ method: 'POST', url: new URL(late.body.url).pathname, headers: { 'content-type': 'text/plain' }, payload: '' })).statusCode).toBe(401);
    expect((await t.req('POST', '/v1/web/sign-in-links', { key: null })).status).toBe(401);
  });

  it('the owner link made at serve start acts as the test owner key; sessions expire after 12 hours', async () => {
    const link = await createOwnerLink(t.ctx);
    expect(link).not.toBeNull();
    const r = await t.app.inject({ method: 'POST', url: `/ui/sign-in/${link!.token}`, headers: { 'content-type': 'text/plain' }, payload: '' });
    const cookie = `mailagent_session=${cookieOf(r.headers['set-cookie'])}`;
    const me = await t.req('GET', '/v1/me', { key: null, headers: { cookie } });
    expect(me.body.api_key.mode).toBe('test');
    expect(me.body.api_key.scopes.sort()).toEqual(['draft', 'manage', 'read', 'send']);
    t.clock.advance(SESSION_TTL + 1);
    expect((await t.req('GET', '/v1/me', { key: null, headers: { cookie } })).status).toBe(401);
  });

  it('sets Secure when the public URL is https', async () => {
    const t2 = await createTestApp({ publicUrl: 'https://mail.example.com' });
    try {
      const r = await t2.app.inject({ method: 'POST', url: '/ui/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ api_key: t2.testKey }) });
      expect(String(r.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await t2.close();
    }
  });

  it('behind a proxy: sign-in links point at the public URL whatever Host says, and the public origin may sign in', async () => {
    const t2 = await createTestApp({ publicUrl: 'https://mail.example.com', trustedProxies: '127.0.0.1' });
    try {
      // nginx's default passes its upstream address as Host; an attacker may send any Host.
      for (const host of ['127.0.0.1:7420', 'evil.example.com']) {
        const l = await t2.req('POST', '/v1/web/sign-in-links', { key: t2.testKey, headers: { host } });
        expect(l.status).toBe(201);
        expect(l.body.url).toMatch(/^https:\/\/mail\.example\.com\/ui\/sign-in\/mwl_/);
      }
      const viaProxy = (origin: string) => t2.app.inject({
        method: 'POST', url: '/ui/session', remoteAddress: '127.0.0.1',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:7420', origin, 'x-forwarded-proto': 'https' },
        payload: JSON.stringify({ api_key: t2.testKey }),
      });
      expect((await viaProxy('https://mail.example.com')).statusCode).toBe(200);
      expect((await viaProxy('https://evil.example.com')).statusCode).toBe(403);
      expect((await viaProxy('http://mail.example.com')).statusCode).toBe(403); // another origin: scheme differs
    } finally {
      await t2.close();
    }
  });

  it('a local daemon (loopback public URL) links to the address the caller used', async () => {
    const l = await t.req('POST', '/v1/web/sign-in-links', { key: t.testKey, headers: { host: 'localhost:7420' } });
    expect(l.body.url).toMatch(/^http:\/\/localhost:7420\/ui\/sign-in\/mwl_/);
  });

  it('a Bearer key still wins over a cookie (API clients are unaffected)', async () => {
    const r = await t.req('GET', '/v1/me', { key: t.liveKey, headers: { cookie: 'mailagent_session=mws_garbage' } });
    expect(r.status).toBe(200);
    expect(r.body.api_key.mode).toBe('live');
  });
});

describe('sign-in rate limit', () => {
  it('has its own bucket: traffic to the public pages cannot lock the owner out of the inbox; it is capped by itself', async () => {
    const t3 = await createTestApp();
    try {
      const billing = () => t3.app.inject({ method: 'GET', url: '/v1/public/billing', remoteAddress: '127.0.0.1' });
      for (let i = 0; i < 30; i++) expect((await billing()).statusCode).toBe(200);
      expect((await billing()).statusCode).toBe(429);
      const signIn3 = () => t3.app.inject({ method: 'POST', url: '/ui/session', remoteAddress: '127.0.0.1', headers: { 'content-type': 'application/json', host: 'localhost' }, payload: JSON.stringify({ api_key: t3.testKey }) });
      const first = await signIn3();
      expect(first.statusCode, first.body).toBe(200);
      // Its own cap: 30 a minute per address, then 429 naming the sign-in.
      for (let i = 1; i < 30; i++) expect((await signIn3()).statusCode).toBe(200);
      const over = await signIn3();
      expect(over.statusCode).toBe(429);
      expect(over.json().error).toMatchObject({ code: 'rate_limit_exceeded' });
      expect(over.json().error.message).toContain('web inbox sign-in');
      // A minute later both buckets are open again.
      t3.clock.advance(60_000);
      expect((await signIn3()).statusCode).toBe(200);
      expect((await billing()).statusCode).toBe(200);
    } finally {
      await t3.close();
    }
  });
});
