import { defineHandlers } from '../handler.js';
import { openApiDocument } from '../../../contract/openapi.js';
import { getMe } from '../../../services/me.js';

let cachedDoc: object | undefined;

export const meHandlers = defineHandlers({
  'me.get': async ({ ctx, auth }) => getMe(ctx, auth),
  'health.get': async ({ ctx }) => ({ status: 'ok' as const, version: ctx.config.version, time: new Date(ctx.clock.now()).toISOString() }),
  'openapi.get': async ({ ctx, reply }) => {
    cachedDoc ??= openApiDocument(ctx.config.version, ctx.config.publicUrl);
    reply.type('application/json');
    return JSON.stringify(cachedDoc);
  },
});
