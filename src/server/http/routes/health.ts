import { defineHandlers } from '../handler.js';
import { openApiDocument } from '../../../contract/openapi.js';
import { getMe, getMeCached } from '../../../services/me.js';
import { omitAbsent } from '../../../contract/common.js';
import { routes } from '../../../contract/routes.js';

/** GET /v1/me's JSON per cached answer (the route's own serialiser, run once per answer). */
const meJson = new WeakMap<object, string>();

/** One document per context: two apps in one process (tests) may have different public URLs. */
const docs = new WeakMap<object, string>();

export const meHandlers = defineHandlers({
  // The cached answer is the same object while it is current (services/me.ts getMeCached): its
  // JSON is kept beside it, and fastify sends a string with a JSON type as it is (no
  // preSerialization, no serialiser), so a client polling /v1/me costs neither per request.
  'me.get': ({ ctx, auth, reply }) => {
    const me = getMeCached(ctx, auth);
    if (!me) return getMe(ctx, auth);
    let json = meJson.get(me);
    if (json === undefined) meJson.set(me, (json = reply.serialize(omitAbsent(routes['me.get'].response, me)) as string));
    reply.type('application/json; charset=utf-8');
    return json;
  },
  'health.get': async ({ ctx }) => ({ status: 'ok' as const, version: ctx.config.version, time: new Date(ctx.clock.now()).toISOString() }),
  'openapi.get': async ({ ctx, reply }) => {
    let doc = docs.get(ctx);
    if (!doc) docs.set(ctx, (doc = JSON.stringify(openApiDocument(ctx.config.version, ctx.config.publicUrl))));
    reply.type('application/json');
    return doc;
  },
});
