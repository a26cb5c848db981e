import { defineHandlers } from '../handler.js';
import { listEventsPage, getEventById } from '../../../services/event-queries.js';
import { admitStream, planStream, runStream } from '../../../services/event-stream.js';
import { redeliverEvent } from '../../../services/webhooks.js';
import { authenticateRequest } from '../web-auth.js';

export const eventHandlers = defineHandlers({
  'events.list': async ({ ctx, auth, query }) => listEventsPage(ctx, auth, query),
  'events.get': async ({ ctx, auth, params }) => getEventById(ctx, auth, params.id),
  'events.redeliver': async ({ ctx, auth, params, body }) => redeliverEvent(ctx, auth, params.id, body),

  // compat.md: server-sent events. Everything that can fail is checked before the hijack, so a
  // bad request still gets the JSON error envelope; after it we own the socket.
  'events.stream': async ({ ctx, auth, query, req, reply }) => {
    const lastEventId = req.headers['last-event-id'];
    const plan = await planStream(ctx, auth, query, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
    // The stream ends when this request would no longer be let in (a revoked or expired key, an
    // ended web session): the same check the request passed, run again before events go out.
    plan.recheck = () => authenticateRequest(ctx, req);
    // The caps (429 per key, 503 in total), checked synchronously with the registration below.
    admitStream(ctx, plan.keyId);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // reverse proxies must not buffer the stream
      'x-request-id': String(req.id),
    });
    res.flushHeaders();
    req.raw.socket.setNoDelay(true);
    req.raw.socket.setTimeout(0);
    const sub = runStream(ctx, plan, {
      write: (chunk) => res.write(chunk),
      buffered: () => res.writableLength,
      waitDrain: () => new Promise((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.once('drain', done);
        res.once('close', done);
      }),
      end: () => res.end(),
      destroy: () => res.destroy(),
    });
    res.on('close', () => sub.close());
    return reply;
  },
});
