import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import DKIM from 'nodemailer/lib/dkim';
import type { DKIMOptions } from 'nodemailer/lib/dkim';
import { headerSafe, type Mailbox } from './address.js';

export interface MimeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface BuildMimeInput {
  from: Mailbox;
  to: Mailbox[];
  cc?: Mailbox[];
  /** Written as a header only with keepBcc (the sender's own copy, GET /raw); never on the wire. */
  bcc?: Mailbox[];
  keepBcc?: boolean;
  replyTo?: Mailbox[];
  subject: string;
  text?: string | null;
  html?: string | null;
  attachments?: MimeAttachment[];
  /** RFC 5322 Message-ID with angle brackets. */
  messageId: string;
  inReplyTo?: string | null;
  references?: string[];
  date: Date;
  /** Further headers (List-Unsubscribe of RFC 8058, X-… tags). Values are made header-safe. */
  extraHeaders?: Record<string, string>;
  /** DKIM signing (custom domains). */
  dkim?: DKIMOptions | null;
}

/** Bytes handed to nodemailer in one piece up to this size; larger ones in pieces of it (inTurns). */
export const TURN_BYTES = 256 * 1024;

/**
 * Large bytes as a stream of TURN_BYTES pieces, one per turn of the event loop (issue #13): given
 * a Buffer, nodemailer base64-encodes and folds a whole attachment, and its SMTP client dot-stuffs
 * a whole message, in one synchronous step each — 100–300 ms of the main thread for 25 MB. Piece
 * by piece, each step is about a millisecond and I/O is served between them.
 */
export function inTurns(bytes: Buffer): Buffer | Readable {
  if (bytes.length <= TURN_BYTES) return bytes;
  return Readable.from((async function* pieces() {
    for (let at = 0; at < bytes.length; at += TURN_BYTES) {
      if (at) await new Promise<void>((resolve) => setImmediate(resolve));
      yield bytes.subarray(at, at + TURN_BYTES);
    }
  })(), { objectMode: false });
}

/**
 * Line breaks of a body as CRLF (RFC 5322 §2.3: CR and LF only together). nodemailer copies a
 * body's bare LFs into the message; the SMTP client turns them into CRLF on the wire, so the
 * stored copy (GET /raw) and a DKIM body hash would otherwise differ from what was relayed.
 */
const crlf = (s: string): string => s.replace(/\r\n|\r|\n/g, '\r\n');

const mb = (m: Mailbox) => ({ name: m.name ? headerSafe(m.name) : '', address: m.address });
const msgId = (id: string) => `<${headerSafe(id).replace(/[<>\s]/g, '')}>`;

/**
 * Build the outgoing RFC 822 message. Every value that lands in a header went through the
 * address validator or headerSafe(), so no CR/LF from a request can start a new header.
 */
export async function buildMime(input: BuildMimeInput): Promise<Buffer> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.extraHeaders ?? {})) {
    if (/^[!-9;-~]+$/.test(k)) headers[k] = headerSafe(v);
  }
  const composer = new MailComposer({
    from: mb(input.from),
    to: input.to.map(mb),
    cc: input.cc?.length ? input.cc.map(mb) : undefined,
    bcc: input.keepBcc && input.bcc?.length ? input.bcc.map(mb) : undefined,
    replyTo: input.replyTo?.length ? input.replyTo.map(mb) : undefined,
    subject: headerSafe(input.subject),
    text: typeof input.text === 'string' ? crlf(input.text) : undefined,
    html: typeof input.html === 'string' ? crlf(input.html) : undefined,
    attachments: (input.attachments ?? []).map((a) => {
      // Large ones piece by piece (base64-encoded in steps): inTurns. A stream cannot be inspected
      // for quoted-printable vs base64 (nodemailer would pick quoted-printable for text/*): base64.
      const content = inTurns(a.content);
      return {
        filename: headerSafe(a.filename),
        contentType: headerSafe(a.contentType),
        content,
        ...(Buffer.isBuffer(content) ? {} : { contentTransferEncoding: 'base64' as const }),
      };
    }),
    messageId: msgId(input.messageId),
    inReplyTo: input.inReplyTo ? msgId(input.inReplyTo) : undefined,
    references: input.references?.length ? input.references.map(msgId) : undefined,
    date: input.date,
    headers,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const node = composer.compile();
  if (input.keepBcc) node.keepBcc = true;
  const raw = await node.build();
  return input.dkim ? dkimSign(raw, input.dkim) : raw;
}

async function dkimSign(raw: Buffer, dkim: DKIMOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of new DKIM(dkim).sign(raw)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * One copy of a built (unsigned) message with further header fields in front, then DKIM-signed:
 * the per-recipient List-Unsubscribe of a message to several people costs a header and a
 * signature per copy, not a MIME build (RFC 5322 §3.6: header fields may come in any order).
 * Names and values are made header-safe as buildMime's are.
 */
export async function withHeaders(raw: Buffer, extra: Record<string, string>, dkim?: DKIMOptions | null): Promise<Buffer> {
  const lines = Object.entries(extra).filter(([k]) => /^[!-9;-~]+$/.test(k)).map(([k, v]) => `${k}: ${headerSafe(v)}\r\n`).join('');
  const copy = Buffer.concat([Buffer.from(lines, 'utf8'), raw]);
  return dkim ? dkimSign(copy, dkim) : copy;
}
