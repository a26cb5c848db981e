import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** A type that is safe to put in a header: `type/subtype`, parameters dropped; else octet-stream. */
function safeType(contentType: string): string {
  const t = contentType.split(';')[0].trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(t) ? t : 'application/octet-stream';
}

/**
 * RFC 6266 Content-Disposition: an ASCII `filename` fallback and the exact name as RFC 8187
 * `filename*`, so a name from mail can neither break the header nor lose its characters.
 */
export function contentDisposition(raw: string): string {
  // Control characters (C0, DEL, C1) and bidi/zero-width format characters never reach the name
  // a browser saves under, nor a terminal that prints it: each becomes "_".
  // Path separators too: a name is a name, never a path (`../../etc/passwd` → `.._.._etc_passwd`),
  // also in filename*, which a naive client may join to a directory as it is.
  const filename = raw.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff/\\]/g, '_');
  const ascii = filename.replace(/[^A-Za-z0-9_.() -]/g, '_').slice(0, 200) || 'download';
  if (ascii === filename) return `attachment; filename="${ascii}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Send bytes from mail as a download: always `attachment`, never sniffed, and inert if a browser
 * renders it anyway (an HTML or SVG attachment gets a sandboxed, script-less origin by CSP).
 */
export function sendDownload(reply: FastifyReply, d: { filename: string; contentType: string; content: Buffer | (Readable & { readonly size?: number }) }) {
  // A stream of stored pieces (a large message or attachment, db/repos/blobs.ts) knows its
  // length: declared, so a client can tell a download cut short (pieces deleted meanwhile) from
  // a complete one. fastify pipes the stream, pausing it while the socket is full.
  if (!Buffer.isBuffer(d.content) && typeof d.content.size === 'number') reply.header('content-length', d.content.size);
  return reply.code(200)
    .type(safeType(d.contentType))
    .header('content-disposition', contentDisposition(d.filename))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', 'private, no-store')
    .send(d.content);
}
