import { defineHandlers } from '../handler.js';
import { allowAddress, createSuppression, getSuppression, listEntriesPage, revokeAllowEntry } from '../../../services/suppression.js';

export const suppressionHandlers = defineHandlers({
  'suppression.get': async ({ ctx, auth, query }) => getSuppression(ctx, auth, query),
  'suppression.entries': async ({ ctx, auth, query }) => listEntriesPage(ctx, auth, query),
  'suppression.create': async ({ ctx, auth, body }) => createSuppression(ctx, auth, body),
  'suppression.allow': async ({ ctx, auth, body }) => allowAddress(ctx, auth, body),
  'suppression.allow_revoke': async ({ ctx, auth, params }) => revokeAllowEntry(ctx, auth, params.id),
});
