import { defineHandlers } from '../handler.js';
import { getReceivedMessage, listReceivedPage, markReceivedRead, receivedHtmlPage, simulateInbound } from '../../../services/received.js';
import { waitForInbound } from '../../../services/inbox-wait.js';
import { authenticateRequest } from '../web-auth.js';

export const receivedHandlers = defineHandlers({
  'received.list': async ({ ctx, auth, query }) => listReceivedPage(ctx, auth, query),
  'received.get': async ({ ctx, auth, params }) => getReceivedMessage(ctx, auth, params.id),
  'received.read': async ({ ctx, auth, params, body }) => markReceivedRead(ctx, auth, params.id, body.read ?? true),
  'received.html': async ({ ctx, auth, params, query, reply }) => {
    const page = await receivedHtmlPage(ctx, auth, params.id, query.remote_images ?? false);
    return reply.code(200).type('text/html; charset=utf-8')
      .header('content-security-policy', page.csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'private, no-store')
      .header('x-mailagent-blocked-images', String(page.blockedImages))
      // false: the HTML was too complex to sanitise within the budget; the page says so instead.
      .header('x-mailagent-html-rendered', String(page.rendered))
      .send(page.html);
  },
  'received.simulate': async ({ ctx, auth, body }) => simulateInbound(ctx, auth, body),
  'inbox.wait': async ({ ctx, auth, params, query, req, reply }) => {
    // The client going away ends the wait (and its bus listener) at once.
    const abort = new AbortController();
    const onClose = () => { if (!reply.raw.writableEnded) abort.abort(); };
    reply.raw.on('close', onClose);
    try {
      return await waitForInbound(ctx, auth, params.id, query, abort.signal, () => authenticateRequest(ctx, req));
    } finally {
      reply.raw.off('close', onClose);
    }
  },
});
