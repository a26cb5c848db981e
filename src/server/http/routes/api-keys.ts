import { defineHandlers } from '../handler.js';
import { createApiKey, listApiKeysPage, revokeApiKey } from '../../../services/api-keys.js';

export const apiKeyHandlers = defineHandlers({
  'api_keys.create': async ({ ctx, auth, body }) => createApiKey(ctx, auth, body),
  'api_keys.list': async ({ ctx, auth, query }) => listApiKeysPage(ctx, auth, query),
  'api_keys.revoke': async ({ ctx, auth, params }) => revokeApiKey(ctx, auth, params.id),
});
