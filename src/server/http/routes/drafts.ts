import type { FastifyReply } from 'fastify';
import { defineHandlers } from '../handler.js';
import { ApiError } from '../../../contract/errors.js';
import { createDraft, deleteDraftView, getDraftView, listDraftsPage, sendDraft, updateDraftView } from '../../../services/drafts.js';
import { takeBurstSlot, BURST_LIMIT, BURST_WINDOW_MS, type RateLimitState } from '../../../services/limits.js';
import { beginIdempotent, finishIdempotent, requestFingerprint } from '../../../services/idempotency.js';

/** Spec: send responses carry RateLimit-Policy / -Limit / -Remaining / -Reset. */
function rateLimitHeaders(reply: FastifyReply, s: RateLimitState): void {
  reply.header('ratelimit-policy', `${BURST_LIMIT};w=${BURST_WINDOW_MS / 1000}`);
  reply.header('ratelimit-limit', String(s.limit));
  reply.header('ratelimit-remaining', String(s.remaining));
  reply.header('ratelimit-reset', String(s.resetSeconds));
}

export const draftHandlers = defineHandlers({
  'drafts.create': async ({ ctx, auth, body }) => createDraft(ctx, auth, body),
  'drafts.list': async ({ ctx, auth, query }) => listDraftsPage(ctx, auth, query),
  'drafts.get': async ({ ctx, auth, params }) => getDraftView(ctx, auth, params.id),
  'drafts.update': async ({ ctx, auth, params, body }) => updateDraftView(ctx, auth, params.id, body),
  'drafts.delete': async ({ ctx, auth, params }) => deleteDraftView(ctx, auth, params.id),
  // A send route (spec: Limits → Burst; Idempotency-Key): the burst slot is taken first, then a
  // repeated key replays the stored answer instead of sending twice.
  'drafts.send': async ({ ctx, auth, params, body, req, reply }) => {
    let state: RateLimitState;
    try {
      state = takeBurstSlot(ctx, auth);
    } catch (err) {
      const s = (err as { rateLimit?: RateLimitState }).rateLimit;
      if (s) rateLimitHeaders(reply, s);
      throw err;
    }
    rateLimitHeaders(reply, state);
    const begin = await beginIdempotent(ctx, auth, req.headers['idempotency-key'], requestFingerprint('drafts.send', params, body));
    if (begin.kind === 'replay') {
      reply.code(begin.response.status).header('idempotent-replay', 'true').type('application/json');
      return begin.response.body;
    }
    try {
      const result = await sendDraft(ctx, auth, params.id, body);
      if (begin.kind === 'claimed') await finishIdempotent(ctx, begin, { status: 200, body: JSON.stringify(result), requestId: String(req.id) });
      return result;
    } catch (err) {
      if (begin.kind === 'claimed') {
        const e = err instanceof ApiError ? err : null;
        await finishIdempotent(ctx, begin, { status: e?.status ?? 500, body: JSON.stringify(e ? e.toEnvelope(String(req.id)) : {}), requestId: String(req.id) });
      }
      throw err;
    }
  },
});
