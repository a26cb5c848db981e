import { defineHandlers } from '../handler.js';
import { openApiDocument } from '../../../contract/openapi.js';
import { getMe, getMeCached } from '../../../services/me.js';

/** One document per context: two apps in one process (tests) may have different public URLs. */
const docs = new WeakMap<object, string>();

export const meHandlers = defineHandlers({
  'me.get': ({ ctx, auth }) => getMeCached(ctx, auth) ?? getMe(ctx, auth),
  'health.get': async ({ ctx }) => ({ status: 'ok' as const, version: ctx.config.version, time: new Date(ctx.clock.now()).toISOString() }),
  'openapi.get': async ({ ctx, reply }) => {
    let doc = docs.get(ctx);
    if (!doc) docs.set(ctx, (doc = JSON.stringify(openApiDocument(ctx.config.version, ctx.config.publicUrl))));
    reply.type('application/json');
    return doc;
  },
});
