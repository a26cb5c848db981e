import { defineHandlers } from '../handler.js';
import { listGrantsPage, refreshAccessToken, revokeGrant } from '../../../services/connected-apps.js';

export const oauthHandlers = defineHandlers({
  'oauth_grants.list': async ({ ctx, auth, query }) => listGrantsPage(ctx, auth, query),
  'oauth_grants.revoke': async ({ ctx, auth, params }) => revokeGrant(ctx, auth, params.id),
  // RFC 6749 §5.1: token answers are never cached.
  'oauth.token': async ({ ctx, body, reply }) => {
    reply.header('cache-control', 'no-store');
    return refreshAccessToken(ctx, body);
  },
});
