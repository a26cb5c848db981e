import { defineHandlers } from '../handler.js';
import { createDraft, deleteDraftView, getDraftView, listDraftsPage, sendDraft, updateDraftView } from '../../../services/drafts.js';

export const draftHandlers = defineHandlers({
  'drafts.create': async ({ ctx, auth, body }) => createDraft(ctx, auth, body),
  'drafts.list': async ({ ctx, auth, query }) => listDraftsPage(ctx, auth, query),
  'drafts.get': async ({ ctx, auth, params }) => getDraftView(ctx, auth, params.id),
  'drafts.update': async ({ ctx, auth, params, body }) => updateDraftView(ctx, auth, params.id, body),
  'drafts.delete': async ({ ctx, auth, params }) => deleteDraftView(ctx, auth, params.id),
  // A send route (RouteDef.send): burst limit, RateLimit-* and Idempotency-Key are applied around it.
  'drafts.send': async ({ ctx, auth, params, body, announced }) => sendDraft(ctx, auth, params.id, body, announced),
});
