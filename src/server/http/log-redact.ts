import type { FastifyRequest } from 'fastify';

/**
 * Secrets that travel in a request's URL, kept out of the daemon's log (`--log-level debug`
 * writes one line per request with its URL): the path segment after `/unsubscribe/` (a signed
 * unsubscribe token: whoever holds it unsubscribes that recipient) and after `/sign-in/` (a
 * one-time web sign-in link), and the value of any query parameter whose name says it is a
 * secret (`token`, `access_token`, `key`, `api_key`, `secret`, `signature`, `sig`, `password`,
 * `code`). The rest of the URL is kept: the route and ids still say what was asked.
 */
const SECRET_SEGMENT = /(\/(?:unsubscribe|sign-in)\/)[^/?#]+/gi;
const SECRET_QUERY = /([?&](?:token|access_token|key|api_key|apikey|secret|signature|sig|password|code)=)[^&#]*/gi;

export const REDACTED = '[redacted]';

export function redactUrl(url: string): string {
  return url.replace(SECRET_SEGMENT, `$1${REDACTED}`).replace(SECRET_QUERY, `$1${REDACTED}`);
}

/** fastify's own `req` log serializer (lib/logger-pino.js) with the URL redacted. */
export function requestForLog(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}
