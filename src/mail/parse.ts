import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressObject, ParsedMail, SimpleParserOptions } from 'mailparser';
import { bareAddress } from './address.js';
import { extractReplyText } from './extract.js';

const require = createRequire(import.meta.url);

/**
 * mailparser (and the HTML, charset and link libraries it loads, ~5 MB of heap per thread) is
 * loaded on the first parse, not with this module: the daemon's main thread uses readHeaders,
 * headersOnly and classifierFields from here but parses only in the pool's workers, which load it
 * as they start (preloadParser). A CommonJS package, so a synchronous require does it.
 */
let mailparser: typeof import('mailparser') | null = null;
export function preloadParser(): typeof import('mailparser') {
  mailparser ??= require('mailparser') as typeof import('mailparser');
  return mailparser;
}
const simpleParser = (raw: Buffer, options: SimpleParserOptions): Promise<ParsedMail> => preloadParser().simpleParser(raw, options);

/**
 * What the inbound pipeline keeps of a message. Parsing never throws: malformed MIME yields
 * whatever could be read (the original bytes are stored beside it), and `problems` says what failed.
 */
export interface ParsedInbound {
  /** Header fields in order, unfolded (RFC 5322 §2.2.3), names as written. */
  headers: [string, string][];
  /** First occurrence of each header, lower-cased name (the classifier's view). */
  headerMap: Record<string, string>;
  from: { address: string; name: string | null } | null;
  to: string[];
  cc: string[];
  subject: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string | null;
  html: string | null;
  attachments: ParsedAttachment[];
  problems: string[];
}

export interface ParsedAttachment {
  filename: string | null;
  contentType: string;
  contentId: string | null;
  disposition: string | null;
  size: number;
  sha256: string;
  content: Buffer;
}

/** Header block limits: far above any real message, low enough that a header bomb cannot hurt. */
export const MAX_HEADER_BYTES = 1024 * 1024;
export const MAX_HEADER_FIELDS = 10_000;
/**
 * Longest text and HTML body kept in the parsed message, in characters (docs/inbound.md → Large
 * messages). Beyond it the body is cut and the message says extraction_truncated; the raw bytes
 * and attachments are kept whole. Every stored body crosses the daemon's main thread (the hand-off
 * from the pool, the row, the search index, every read): a 20 MB text body held it 300 ms.
 */
export const MAX_BODY_CHARS = 1024 * 1024;
const PARSE_TIMEOUT_MS = 30_000;

/**
 * Split the header block off the raw bytes and unfold it, tolerating bare LF and junk lines.
 * `headers` holds at most MAX_HEADER_FIELDS fields; `fields` counts them all (the SMTP listener
 * refuses a message over the cap with 552 5.3.4, docs/security.md), lines without a colon not counted.
 */
export function readHeaders(raw: Buffer): { headers: [string, string][]; headerBytes: number; fields: number } {
  const limit = Math.min(raw.length, MAX_HEADER_BYTES + 4);
  let end = -1;
  for (let i = 0; i < limit; i++) {
    if (raw[i] === 0x0a) {
      if (raw[i + 1] === 0x0a) { end = i + 1; break; }
      if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) { end = i + 1; break; }
    }
  }
  const block = raw.subarray(0, end === -1 ? limit : end).toString('utf8');
  const headers: [string, string][] = [];
  let fields = 0;
  for (const line of block.split(/\r?\n/)) {
    if (!line) continue;
    if (/^[ \t]/.test(line) && fields) {
      if (fields <= MAX_HEADER_FIELDS) headers[headers.length - 1][1] += ' ' + line.trim();
      continue;
    }
    const i = line.indexOf(':');
    if (i <= 0) continue;
    fields++;
    if (fields <= MAX_HEADER_FIELDS) headers.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
  }
  return { headers, headerBytes: end === -1 ? raw.length : end, fields };
}

function addresses(v: AddressObject | AddressObject[] | undefined): { address: string; name: string | null }[] {
  const out: { address: string; name: string | null }[] = [];
  const walk = (list: { address?: string; name?: string; group?: unknown[] }[]) => {
    for (const a of list) {
      if (a.group) walk(a.group as never);
      // Bare domain: `From: x@example.com.` is x@example.com (sender trust, --from, reputation).
      else if (a.address) out.push({ address: bareAddress(a.address.toLowerCase()), name: a.name?.trim() || null });
    }
  };
  for (const o of v === undefined ? [] : Array.isArray(v) ? v : [v]) walk(o.value ?? []);
  return out;
}

const bareId = (id: string) => id.trim().replace(/^<|>$/g, '').trim();

function idList(v: string | string[] | undefined): string[] {
  if (!v) return [];
  const all = (Array.isArray(v) ? v : [v]).flatMap((s) => s.match(/<[^<>\s]+>/g) ?? s.split(/\s+/));
  return [...new Set(all.map(bareId).filter(Boolean))].slice(0, 100);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`parse took over ${ms} ms`)), ms); timer.unref(); }),
  ]).finally(() => clearTimeout(timer));
}

export interface ParseOptions {
  /**
   * Safe mode: no HTML-to-text conversion (mailparser's pass is superlinear on deeply nested
   * unclosed tags: `<div>` × 400,000 takes 50 s) and no text-to-HTML or link detection. Linear in
   * the input; `text` is then the text/plain part when there is one, else the HTML body with its
   * tags removed (htmlToTextLinear).
   */
  safe?: boolean;
}

export async function parseMessage(raw: Buffer, opts: ParseOptions = {}): Promise<ParsedInbound> {
  const { headers } = readHeaders(raw);
  const headerMap: Record<string, string> = {};
  for (const [k, v] of headers) headerMap[k.toLowerCase()] ??= v;
  const problems: string[] = [];
  let m: ParsedMail | null = null;
  const SAFE: SimpleParserOptions = { skipImageLinks: true, skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true };
  try {
    const options: SimpleParserOptions = opts.safe ? SAFE : { skipImageLinks: true, maxHtmlLengthToParse: 2 * 1024 * 1024 };
    m = await withTimeout(simpleParser(raw, options), PARSE_TIMEOUT_MS);
  } catch (err) {
    problems.push(`MIME parse failed: ${(err as Error).message}`);
  }
  // mailparser throws when its HTML-to-text pass gives up ("Failed to parse HTML" on 20,000 nested
  // <div>s, "HTML too long for parsing" over 2 MiB): parse again without that pass, so the HTML
  // body and the attachments are kept; the text comes from a linear tag strip (htmlToTextLinear).
  let stripped = false;
  if (!m && !opts.safe) {
    try {
      m = await withTimeout(simpleParser(raw, SAFE), PARSE_TIMEOUT_MS);
      problems.push('parsed again without HTML-to-text conversion');
    } catch (err) {
      problems.push(`MIME parse failed without HTML-to-text conversion too: ${(err as Error).message}`);
    }
  }
  const from = m ? addresses(m.from)[0] ?? null : null;
  let text: string | null = m?.text ?? null;
  if (!m) {
    // Keep something readable: the body bytes after the header block (cut below like any body).
    const { headerBytes } = readHeaders(raw);
    text = raw.subarray(headerBytes, headerBytes + MAX_BODY_CHARS * 4).toString('utf8');
  }
  let html = m && typeof m.html === 'string' ? m.html : null;
  // Safe mode skips mailparser's HTML-to-text pass, which leaves an HTML-only message without text:
  // it gets the linear tag strip too (the pipeline's retry after an overrun; a full parse that
  // overran on a loaded machine, or in a worker with a small young generation, left it empty).
  if (!text && html !== null && (problems.length || opts.safe)) {
    text = htmlToTextLinear(html.slice(0, MAX_BODY_CHARS * 4));
    stripped = true;
  }
  if (stripped) problems.push('body_text is the HTML body with its tags removed (no HTML-to-text conversion)');
  if (text !== null && text.length > MAX_BODY_CHARS) {
    problems.push(`body text cut at ${MAX_BODY_CHARS} characters (it had ${text.length}); the raw message keeps every byte`);
    text = text.slice(0, MAX_BODY_CHARS);
  }
  if (html !== null && html.length > MAX_BODY_CHARS) {
    problems.push(`HTML body cut at ${MAX_BODY_CHARS} characters (it had ${html.length}); the raw message keeps every byte`);
    html = html.slice(0, MAX_BODY_CHARS);
  }
  const attachments: ParsedAttachment[] = (m?.attachments ?? []).map((a) => ({
    filename: a.filename ?? null,
    contentType: a.contentType || 'application/octet-stream',
    contentId: a.contentId ?? null,
    disposition: a.contentDisposition ?? null,
    size: a.content.length,
    sha256: createHash('sha256').update(a.content).digest('hex'),
    content: a.content,
  }));
  return assemble(headers, headerMap, m, from, text, html, attachments, problems);
}

/**
 * HTML to text without a parser: tags dropped, the common entities decoded, blank runs collapsed.
 * One pass over the input, linear whatever the nesting (a fallback for when mailparser's
 * html-to-text fails or is skipped, not a renderer).
 */
export function htmlToTextLinear(html: string): string {
  const out: string[] = [];
  let start = 0;
  let inTag = false;
  for (let i = 0; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (!inTag && c === 0x3c /* < */) {
      if (i > start) out.push(html.slice(start, i));
      out.push(' ');
      inTag = true;
    } else if (inTag && c === 0x3e /* > */) {
      inTag = false;
      start = i + 1;
    }
  }
  if (!inTag && start < html.length) out.push(html.slice(start));
  const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
  return out.join('')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e])
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ ?\n[\s]*/g, '\n')
    .trim();
}

/**
 * What can be kept of a message without parsing its body at all: the header block (bounded by
 * MAX_HEADER_BYTES, linear) and the body bytes as text. For a message whose parse was cut short.
 */
export function headersOnly(raw: Buffer, problem: string): ParsedInbound {
  const { headers, headerBytes } = readHeaders(raw);
  const headerMap: Record<string, string> = {};
  for (const [k, v] of headers) headerMap[k.toLowerCase()] ??= v;
  const text = raw.subarray(headerBytes, headerBytes + 256 * 1024).toString('utf8');
  return assemble(headers, headerMap, null, null, text, null, [], [problem]);
}

/**
 * A subject is one line: an encoded word can decode to CR, LF or another line break (issue #10
 * item 10), which would let mail forge lines in logs, headers of a reply and terminal output.
 * Each run of line breaks becomes one space; the raw message keeps its bytes.
 */
const LINE_BREAKS = /[\r\n\v\f\u0085\u2028\u2029]+/g;
function oneLine(s: string): string {
  return s.replace(LINE_BREAKS, ' ');
}

function assemble(
  headers: [string, string][], headerMap: Record<string, string>, m: ParsedMail | null,
  from: { address: string; name: string | null } | null, text: string | null, html: string | null,
  attachments: ParsedAttachment[], problems: string[],
): ParsedInbound {
  // Bounded: the pattern backtracks on a long From value with no address in it.
  const fallbackFrom = !from && headerMap.from ? /<?([^\s<>@]+@[^\s<>]+?)>?\s*$/.exec(headerMap.from.slice(0, 2000))?.[1]?.toLowerCase() : undefined;
  return withoutNul({
    headers,
    headerMap,
    from: from ?? (fallbackFrom ? { address: bareAddress(fallbackFrom), name: null } : null),
    to: m ? addresses(m.to).map((a) => a.address) : [],
    cc: m ? addresses(m.cc).map((a) => a.address) : [],
    subject: oneLine(m?.subject ?? headerMap.subject ?? '').slice(0, 998 * 4),
    messageId: m?.messageId ? bareId(m.messageId) : headerMap['message-id'] ? bareId(headerMap['message-id']) : null,
    inReplyTo: idList(m?.inReplyTo ?? headerMap['in-reply-to'])[0] ?? null,
    references: idList(m?.references ?? headerMap.references),
    text,
    html,
    attachments,
    problems,
  });
}

/**
 * U+0000 becomes U+FFFD in every string parsed from a message (RFC 5322 text has no NUL, but
 * mail carries it): PostgreSQL text cannot hold it at all (the message would fail to store, a
 * 451 on every retry), and both engines must store the same thing. The raw message and
 * attachment contents (Buffers) keep their bytes.
 */
function withoutNul<T>(v: T): T {
  if (typeof v === 'string') return (v.includes('\0') ? v.replace(/\0/g, '\uFFFD') : v) as T;
  if (Buffer.isBuffer(v) || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(withoutNul) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = withoutNul(x);
  return out as T;
}

/** A message as the inbound pipeline stores it: parsed, its reply text extracted. */
export interface PreparedInbound {
  parsed: ParsedInbound;
  /** The new text of a reply (extract.ts). */
  extracted: string;
  /** Extraction was cut short (safe mode, headers only, a body over MAX_BODY_CHARS): the flag stored with the message. */
  truncated: boolean;
}

/**
 * What the inbound classifier reads of a parsed message (the message fields of its InboundInput):
 * one definition for the pool worker, which classifies along with the parse, and for
 * services/inbound.ts. `mailFrom` (the envelope sender) stands in for a missing From.
 */
export function classifierFields(parsed: ParsedInbound, mailFrom: string): {
  from: string; fromName: string | null; subject: string; text: string; html: string | null; headers: Record<string, string>;
  attachments: AttachmentText[]; attachmentNames: string[];
} {
  return {
    from: bareAddress((parsed.from?.address ?? mailFrom ?? '').toLowerCase()), fromName: parsed.from?.name ?? null,
    subject: parsed.subject, text: parsed.text ?? '', html: parsed.html, headers: parsed.headerMap,
    attachments: attachmentTexts(parsed.attachments), attachmentNames: attachmentNames(parsed.attachments),
  };
}

/** Attachment file names the injection scan reads: how many, and how much of each (docs/classifier.md). */
export const SCANNED_ATTACHMENT_NAMES = 10;
export const SCANNED_ATTACHMENT_NAME_CHARS = 320;

/** The attachments' file names for the injection scan (sender-chosen text a model is shown). */
export function attachmentNames(attachments: readonly ParsedAttachment[]): string[] {
  const out: string[] = [];
  for (const a of attachments) {
    if (out.length >= SCANNED_ATTACHMENT_NAMES) break;
    if (a.filename) out.push(a.filename.slice(0, SCANNED_ATTACHMENT_NAME_CHARS));
  }
  return out;
}

/** Text attachments the injection scan reads: how many, and how much of each (docs/classifier.md). */
export const SCANNED_ATTACHMENTS = 3;
export const SCANNED_ATTACHMENT_CHARS = 16 * 1024;

/** An attachment's text for the injection scan: plain text, or HTML (whose hidden text counts). */
export interface AttachmentText { text: string; html: boolean }

/**
 * The text of a message's first text attachments (`text/*`, and attached messages without their
 * header block), bounded: a stranger's `notes.txt` or forwarded message is read by an agent as
 * readily as the body, and was not scanned at all (an outside tester's finding).
 */
export function attachmentTexts(attachments: readonly ParsedAttachment[]): AttachmentText[] {
  const out: AttachmentText[] = [];
  for (const a of attachments) {
    if (out.length >= SCANNED_ATTACHMENTS) break;
    const type = a.contentType.toLowerCase();
    const isMessage = type === 'message/rfc822';
    if (!type.startsWith('text/') && !isMessage) continue;
    // Decoded bytes: 4 per character at most, so this many bytes hold the characters kept.
    let text = a.content.toString('utf8', 0, Math.min(a.content.length, SCANNED_ATTACHMENT_CHARS * 4));
    if (isMessage) {
      const body = /\r?\n\r?\n/.exec(text);
      text = body ? text.slice(body.index + body[0].length) : '';
    }
    text = text.slice(0, SCANNED_ATTACHMENT_CHARS);
    if (text.trim()) out.push({ text, html: type === 'text/html' });
  }
  return out;
}

/** Parse and extract, the work the pipeline's pool runs off the main thread (src/server/pipeline). */
export async function parseAndExtract(raw: Buffer, opts: ParseOptions = {}): Promise<PreparedInbound> {
  const parsed = await parseMessage(raw, opts);
  // Any problem is a fallback or a cut (a failed parse, a tag strip, a body over MAX_BODY_CHARS):
  // docs/inbound.md promises extraction_truncated whenever one was used.
  return { parsed, extracted: extractReplyText(parsed.text), truncated: Boolean(opts.safe) || parsed.problems.length > 0 };
}

/** How the pipeline's note for a message kept as headers and body bytes only begins (server/pipeline headersOnly). */
export const PARSE_CUT_SHORT = 'extraction cut short: the parse ran';

/**
 * (session 14) The message's MIME structure was not parsed: mailparser failed in every pass (more
 * than 1,000 parts: "Max allowed child nodes exceeded"), or the pipeline's parse was cut at its
 * budget and kept the headers and body bytes only (headersOnly). Its `text` is then the body bytes
 * as they are — part headers, boundaries, encoded content — not the bodies, so the classifier cannot
 * have read the bodies whole: the caller fails the message closed (classifier/quarantine.ts
 * failClosed; docs/inbound.md "Processing pipeline"). Read back from the notes parseMessage and the
 * pipeline leave in `problems`.
 */
export function bodiesUnread(parsed: ParsedInbound): boolean {
  let failed = false;
  for (const p of parsed.problems) {
    if (p.startsWith(PARSE_CUT_SHORT)) return true;
    if (p.startsWith('MIME parse failed')) failed = true;
    else if (p === 'parsed again without HTML-to-text conversion') return false;
  }
  return failed;
}
