import type { Readable } from 'node:stream';
import { receivedAttachmentDownload } from '../db/repos/received.js';
import { sentAttachmentDownload } from '../db/repos/messages.js';
import { unnamedAttachmentName } from '../mail/file-name.js';
import { Errors } from '../shared/errors.js';
import { hasPrefix } from '../shared/ids.js';
import type { AppContext, AuthContext } from './context.js';
import { loadVisible } from './received.js';
import { visibleMessage } from './messages.js';

export interface AttachmentDownload {
  filename: string;
  contentType: string;
  /** A Buffer, or a stream of the stored pieces for a large attachment, sent or received (never joined). */
  content: Buffer | Readable;
}

/**
 * GET /v1/messages/{id}/attachments/{attachment_id}, for sent (msg_) and received (rcv_) mail.
 * The message is loaded with the same visibility rule as the message itself (an agent-bound key
 * gets 404 for another agent's), and the attachment must belong to that message.
 */
export async function downloadAttachment(ctx: AppContext, auth: AuthContext, messageId: string, attachmentId: string): Promise<AttachmentDownload> {
  if (hasPrefix(messageId, 'rcv')) {
    const m = await loadVisible(ctx, auth, messageId);
    const a = await receivedAttachmentDownload(ctx.db, m.id, attachmentId);
    if (!a) throw Errors.notFound('attachment', attachmentId);
    return { filename: a.filename ?? unnamedAttachmentName(a.id, a.content_type), contentType: a.content_type, content: a.download };
  }
  const m = await visibleMessage(ctx, auth, messageId);
  const a = await sentAttachmentDownload(ctx.db, m.id, attachmentId);
  if (!a) throw Errors.notFound('attachment', attachmentId);
  return { filename: a.filename, contentType: a.content_type, content: a.download };
}
