import { detectExtension } from 'nodemailer/lib/mime-funcs/mime-types';

/**
 * A download name for an attachment that came without one (an inline `cid:` image, a part with
 * no filename): its id with the extension of its content type (`att_….png`), so the browser and
 * the desktop open it with the right program; `.bin` only for a type nodemailer's table lacks.
 */
export function unnamedAttachmentName(id: string, contentType: string): string {
  return `${id}.${detectExtension(contentType.split(';')[0].trim().toLowerCase()) || 'bin'}`;
}
