import { detectExtension } from 'nodemailer/lib/mime-funcs/mime-types';

/**
 * A download name for an attachment that came without one (an inline `cid:` image, a part with
 * no filename): its id with the extension of its content type (`att_….png`), so the browser and
 * the desktop open it with the right program; `.bin` only for a type nodemailer's table lacks.
 */
export function unnamedAttachmentName(id: string, contentType: string): string {
  return `${id}.${detectExtension(contentType.split(';')[0].trim().toLowerCase()) || 'bin'}`;
}

/**
 * What a received attachment's file name is stored, listed and shown as: every character a send's
 * `filename` may not hold (contract/common.ts NO_CONTROL_CHARS: C0 controls with CR and LF, DEL,
 * C1, the bidi embedding/override/isolate controls) becomes `_`, a CRLF pair one `_`. A name
 * decoded from MIME (RFC 2047 encoded words, RFC 2231 parameters) can hold any of them; the wire
 * (the raw message, GET …/raw) keeps the name as it came.
 */
export function receivedFileName(name: string): string {
  return name.replace(/\r\n|[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '_');
}
