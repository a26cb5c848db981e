import { Type } from 'typebox';
import { route } from './route.js';

/** Unsubscribe tokens are signed (base64url payload "." base64url HMAC). */
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1200 }) });

/** Public routes (spec: Other endpoints → public): no key; rate-limited per client address. */
export const publicRoutes = {
  'unsubscribe.page': route({
    method: 'GET', path: '/unsubscribe/:token', scope: 'public', summary: 'Unsubscribe confirmation page (RFC 2369 link target)',
    params: TokenParams, status: 200, response: null, produces: 'text/html',
  }),
  'unsubscribe.confirm': route({
    method: 'POST', path: '/unsubscribe/:token', scope: 'public', summary: 'Unsubscribe (RFC 8058 one-click POST, or the page\'s form)',
    params: TokenParams, status: 200, response: null, produces: 'text/html', bodyLimit: 64 * 1024,
  }),
  'billing.page': route({
    method: 'GET', path: '/public/billing', scope: 'public', summary: 'Billing page of a self-hosted instance (no billing provider)',
    // `session`: the signed link POST /v1/billing/portal makes; `return_url` is no longer read
    // from the query (it travels inside the session), kept here so old links still load.
    query: Type.Object({
      session: Type.Optional(Type.String({ maxLength: 4000 })),
      return_url: Type.Optional(Type.String({ maxLength: 2000 })),
    }, { additionalProperties: true }),
    status: 200, response: null, produces: 'text/html',
  }),
};
