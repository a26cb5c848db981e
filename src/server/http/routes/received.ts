import { defineHandlers } from '../handler.js';
import { getReceivedMessage, listReceivedPage, simulateInbound } from '../../../services/received.js';
import { waitForInbound } from '../../../services/inbox-wait.js';

export const receivedHandlers = defineHandlers({
  'received.list': async ({ ctx, auth, query }) => listReceivedPage(ctx, auth, query),
  'received.get': async ({ ctx, auth, params }) => getReceivedMessage(ctx, auth, params.id),
  'received.simulate': async ({ ctx, auth, body }) => simulateInbound(ctx, auth, body),
  'inbox.wait': async ({ ctx, auth, params, query, reply }) => {
    // The client going away ends the wait (and its bus listener) at once.
    const abort = new AbortController();
    const onClose = () => { if (!reply.raw.writableEnded) abort.abort(); };
    reply.raw.on('close', onClose);
    try {
      return await waitForInbound(ctx, auth, params.id, query, abort.signal);
    } finally {
      reply.raw.off('close', onClose);
    }
  },
});
