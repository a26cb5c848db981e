import { defineHandlers } from '../handler.js';
import { sendMessage } from '../../../services/send.js';
import {
  getMessage, listMessages, rescheduleMessage, cancelMessage, rawSentMessage, replyToMessage, forwardMessage, sendBatch,
} from '../../../services/messages.js';
import { appealRefusal } from '../../../services/appeals.js';
import { getReceivedRaw } from '../../../services/received.js';
import { hasPrefix } from '../../../shared/ids.js';
import { downloadAttachment } from '../../../services/attachments.js';
import { sendDownload } from '../download.js';

export const messageHandlers = defineHandlers({
  'messages.create': async ({ ctx, auth, body, announced }) => sendMessage(ctx, auth, body, { source: 'api', announced }),
  'messages.batch': async ({ ctx, auth, body, req, announced }) => sendBatch(ctx, auth, body, String(req.id), announced),
  'messages.appeal': async ({ ctx, auth, body }) => appealRefusal(ctx, auth, body),
  'messages.list': async ({ ctx, auth, query }) => listMessages(ctx, auth, query),
  'messages.get': async ({ ctx, auth, params }) => getMessage(ctx, auth, params.id),
  'messages.reschedule': async ({ ctx, auth, params, body }) => rescheduleMessage(ctx, auth, params.id, body.scheduled_at),
  'messages.reply': async ({ ctx, auth, params, body, announced }) => replyToMessage(ctx, auth, params.id, body as Record<string, unknown>, announced),
  'messages.forward': async ({ ctx, auth, params, body, announced }) => forwardMessage(ctx, auth, params.id, body as Record<string, unknown>, announced),
  'messages.cancel': async ({ ctx, auth, params }) => cancelMessage(ctx, auth, params.id),
  'messages.raw': async ({ ctx, auth, params, reply }) => {
    // rcv_ ids are the inbound area's stored originals; msg_ ids are assembled from our fields.
    const { filename, raw } = hasPrefix(params.id, 'rcv')
      ? await getReceivedRaw(ctx, auth, params.id)
      : { filename: `${params.id}.eml`, raw: await rawSentMessage(ctx, auth, params.id) };
    return sendDownload(reply, { filename, contentType: 'message/rfc822', content: raw });
  },
  'messages.attachment': async ({ ctx, auth, params, reply }) =>
    sendDownload(reply, await downloadAttachment(ctx, auth, params.id, params.attachment_id)),
});
