import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defineHandlers } from '../handler.js';
import type { AppContext } from '../../../services/context.js';
import {
  createSignInLink, endSession, redeemSignInLink, signInWithKey, authenticateSession, csrfMatches, SESSION_TTL,
} from '../../../services/web-sessions.js';
import { takePublicSlot } from '../../../services/unsubscribe.js';
import { ApiError } from '../../../contract/errors.js';
import { isLoopbackUrl } from '../../../contract/loopback.js';
import { Errors } from '../../../shared/errors.js';
import { clearSessionCookie, CSRF_HEADER, readCookie, SESSION_COOKIE, setSessionCookie } from '../web-auth.js';

/**
 * The web inbox (docs/web.md): static assets from src/web (copied to dist/web by the build), and
 * the sign-in endpoints that turn a key or a one-time link into the session cookie. Everything
 * else the page does goes through the public /v1 API.
 */

/** Every page and asset: scripts and styles only from this origin, nothing inline, never framed. */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset { body: Buffer; type: string; etag: string }

/** src/web next to src/server (and dist/web next to dist/server): read once, served from memory. */
function loadAssets(): Map<string, Asset> {
  const dir = fileURLToPath(new URL('../../../web/', import.meta.url));
  const out = new Map<string, Asset>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf('.'));
    if (!TYPES[ext] || name.endsWith('.md')) continue;
    const body = readFileSync(dir + name);
    out.set(name, { body, type: TYPES[ext], etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return out;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', UI_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin');
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small page for the sign-in link's answer (no script: a meta refresh moves on to the inbox). */
function notice(title: string, text: string, refresh: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `${refresh ? '<meta http-equiv="refresh" content="0;url=/">' : ''}<title>${esc(title)}</title>`
    + `<link rel="stylesheet" href="/ui/style.css"></head><body class="notice"><main><h1>${esc(title)}</h1><p>${esc(text)}</p>`
    + `<p><a href="/">Open the inbox</a></p></main></body></html>`;
}

function sendError(req: FastifyRequest, reply: FastifyReply, err: ApiError) {
  return reply.code(err.status).type('application/json').send(err.toEnvelope(String(req.id)));
}

/**
 * The sign-in link's page: one button, whose POST (text/plain, no fields: fastify's own parser, so
 * an empty form needs no form parser) spends the link. No script, as everywhere (UI_CSP).
 */
function confirmPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<title>Sign in to mailagent</title><link rel="stylesheet" href="/ui/style.css"></head><body class="notice"><main><h1>Sign in to mailagent</h1>`
    + `<p>This one-time link signs this browser in to the web inbox.</p>`
    + `<form method="post" enctype="text/plain"><button type="submit" id="sign-in">Sign in</button></form></main></body></html>`;
}

/**
 * The link's POST comes from its own page. Fetch metadata decides when the browser sends it (every
 * current one does): the page's `Referrer-Policy: no-referrer` makes a form's `Origin` `null`, so
 * Origin alone would refuse our own button. Without it, Origin must be absent or name our host.
 */
function fromOwnPage(req: FastifyRequest, publicUrl: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  return sameOrigin(req, publicUrl);
}

/**
 * A sign-in POST must come from a page of this origin (login CSRF): Origin, when sent, names the
 * host the request reached, or the configured public URL's origin (a reverse proxy that does not
 * pass `Host` through — nginx's default — hands us its upstream address instead).
 */
function sameOrigin(req: FastifyRequest, publicUrl: string): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    const o = new URL(origin);
    return o.host === req.headers.host || o.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

/**
 * Where a sign-in link points. A configured public URL that is not loopback is where browsers
 * reach this daemon (behind a proxy, the request's `Host` is the proxy's upstream address), and a
 * `Host` header cannot redirect it. On a local daemon (loopback public URL, the default) the
 * address the caller used is one its browser can reach too (localhost vs 127.0.0.1, a LAN name).
 */
export function signInBase(publicUrl: string, req: { protocol: string; headers: { host?: string } }): string {
  if (!isLoopbackUrl(publicUrl) || !req.headers.host) return publicUrl;
  return `${req.protocol}://${req.headers.host}`;
}

export function registerWebInbox(app: FastifyInstance, ctx: AppContext): void {
  const assets = loadAssets();
  const serve = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const a = assets.get(name);
    if (!a) return sendError(req, reply, Errors.routeNotFound(req.method, req.url.split('?')[0]));
    securityHeaders(reply).header('etag', a.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
    return reply.type(a.type).send(a.body);
  };

  app.get('/', serve('index.html'));
  app.get('/ui/:file', async (req, reply) => serve((req.params as { file: string }).file)(req, reply));

  // The one-time link from `mailagent ui` or `serve`. Opening it (GET) spends nothing: it shows a
  // button, and the button's POST spends it — a link checker, a chat preview or a mail scanner that
  // fetches the URL no longer burns the link (an outside tester's finding).
  app.get('/ui/sign-in/:token', async (_req, reply) => {
    securityHeaders(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return reply.code(200).send(confirmPage());
  });

  app.post('/ui/sign-in/:token', async (req, reply) => {
    securityHeaders(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
    try {
      takePublicSlot(ctx, req.ip, 'sign-in');
      // Login CSRF: another site's form must not sign this browser in with the attacker's link.
      if (!fromOwnPage(req, ctx.config.publicUrl)) throw Errors.insufficientScope('Sign-in links are accepted only from the sign-in page itself; open the link again.');
      const s = await redeemSignInLink(ctx, (req.params as { token: string }).token);
      setSessionCookie(ctx, req, reply, s.token, SESSION_TTL / 1000);
      return reply.code(303).header('location', '/').send(notice('Signed in', 'Opening the inbox…', true));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return reply.code(err.status).send(notice('Sign-in link not valid', err.message, false));
    }
  });

  // Sign in with an API key (JSON only: a cross-site form cannot send it without a preflight).
  app.post('/ui/session', async (req, reply) => {
    securityHeaders(reply).header('cache-control', 'no-store');
    takePublicSlot(ctx, req.ip, 'sign-in');
    if (!sameOrigin(req, ctx.config.publicUrl)) throw Errors.insufficientScope('Sign-in is accepted only from the web inbox\'s own page.');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      throw Errors.invalidField('Content-Type', 'Send the key as JSON: {"api_key": "mk_..."}.');
    }
    const key = (req.body as { api_key?: unknown } | undefined)?.api_key;
    if (typeof key !== 'string' || !key.trim()) throw Errors.missingField('api_key');
    if (key.length > 200) throw Errors.invalidParam('api_key', 'An API key is at most 200 characters.');
    const s = await signInWithKey(ctx, key);
    setSessionCookie(ctx, req, reply, s.token, SESSION_TTL / 1000);
    return { object: 'web_session', csrf_token: s.csrfToken, expires_at: s.expiresAt };
  });

  // The page asks for its session's anti-CSRF token (readable only by this origin).
  app.get('/ui/session', async (req, reply) => {
    securityHeaders(reply).header('cache-control', 'no-store');
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (!token) throw Errors.missingAuthorization();
    const { csrfToken } = await authenticateSession(ctx, token);
    return { object: 'web_session', csrf_token: csrfToken };
  });

  app.delete('/ui/session', async (req, reply) => {
    securityHeaders(reply).header('cache-control', 'no-store');
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (token) {
      const s = await authenticateSession(ctx, token).catch(() => null);
      if (s && !csrfMatches(s.csrfToken, req.headers[CSRF_HEADER] as string | undefined)) {
        throw Errors.insufficientScope('Signing out needs the session\'s X-CSRF-Token header.');
      }
      await endSession(ctx, token);
    }
    clearSessionCookie(ctx, req, reply);
    return { object: 'web_session', signed_out: true };
  });
}

export const webHandlers = defineHandlers({
  'web.link': async ({ ctx, auth, req }) => {
    const link = await createSignInLink(ctx, auth);
    return { object: 'web_sign_in_link' as const, url: signInUrl(signInBase(ctx.config.publicUrl, req), link.token), expires_at: link.expiresAt };
  },
});

/** The URL of a sign-in link token on a base URL (`serve` prints the owner's). */
export function signInUrl(base: string, token: string): string {
  return `${base.replace(/\/$/, '')}/ui/sign-in/${token}`;
}
