import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, AuthContext } from '../../services/context.js';
import { authenticate, authenticateCached } from '../../services/auth.js';
import { authenticateSession, csrfMatches } from '../../services/web-sessions.js';
import { Errors } from '../../shared/errors.js';

/** The web inbox's session cookie (docs/web.md#sign-in). */
export const SESSION_COOKIE = 'mailagent_session';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** One cookie's value from the Cookie header (RFC 6265 syntax; the value is our base64url token). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Who is calling: the Bearer key when there is an Authorization header (every API client);
 * otherwise the web inbox's session cookie. A cookie is sent by the browser on its own, so a
 * state change authenticated by it must also carry the session's token in X-CSRF-Token, which
 * only a page of this origin can read (GET /ui/session). SameSite=Strict is the second fence.
 */
/**
 * authenticateRequest() answered without a promise when it can be (services/auth.ts
 * authenticateCached: a Bearer key read in the last second, or a refusal that needs no database);
 * null when only authenticateRequest() can tell (a session cookie, a key not cached).
 */
export function authenticateRequestCached(ctx: AppContext, req: FastifyRequest): AuthContext | null {
  const authorization = req.headers.authorization;
  if (!authorization && readCookie(req.headers.cookie, SESSION_COOKIE)) return null;
  return authenticateCached(ctx, authorization);
}

export async function authenticateRequest(ctx: AppContext, req: FastifyRequest): Promise<AuthContext> {
  const cookie = req.headers.authorization ? undefined : readCookie(req.headers.cookie, SESSION_COOKIE);
  if (!cookie) return authenticate(ctx, req.headers.authorization);
  const { auth, csrfToken } = await authenticateSession(ctx, cookie);
  if (!SAFE_METHODS.has(req.method) && !csrfMatches(csrfToken, header(req, CSRF_HEADER))) {
    throw Errors.insufficientScope('A change made with the web inbox\'s session cookie must carry the session\'s X-CSRF-Token header; reload the page.');
  }
  return auth;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Served over TLS (directly, or behind a proxy the operator trusts, or a public URL on https). */
export function isSecure(ctx: AppContext, req: FastifyRequest): boolean {
  return req.protocol === 'https' || ctx.config.publicUrl.startsWith('https:');
}

export function setSessionCookie(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  const attrs = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (isSecure(ctx, req)) attrs.push('Secure');
  reply.header('set-cookie', attrs.join('; '));
}

export function clearSessionCookie(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): void {
  setSessionCookie(ctx, req, reply, '', 0);
}
