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
  if (!mailparser) {
    guardHtmlToText();
    mailparser = require('mailparser') as typeof import('mailparser');
  }
  return mailparser;
}

/**
 * mailparser converts an HTML body without a text part with html-to-text, whose time is superlinear
 * on some markup (session 14, bench/classifier-html.bench.ts): many inline elements glued into one
 * word (`<td>x</td>` × 100,000: each piece is appended to the word and the word re-split for the
 * 80-column wrap — 2 MiB took 90 s), deep nesting (a recursion per level: thousands of unclosed
 * `<div>`s overflow the stack, after which the message is parsed a second time), and a cost per
 * element that makes 2 MiB of small elements take seconds. The pool's budget cut such a parse and
 * parsed again without the conversion; each message held a worker for the whole budget. The
 * conversion is now given only markup whose cost a linear pre-scan bounds (`htmlTextCost`); past
 * those bounds the text is the linear tag strip (htmlToTextLinear), as after a cut, and parseMessage
 * says so. mailparser takes `htmlToText` from html-to-text's exports when it loads, so the guard is
 * put in place before mailparser is required.
 */
function guardHtmlToText(): void {
  // Test-only: MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT=1 leaves html-to-text unguarded in this thread,
  // so the pool's tests still have a full parse that overruns its budget (test/unit/server/pipeline.test.ts).
  if (process.env.MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT === '1') return;
  const h2t = createRequire(require.resolve('mailparser'))('html-to-text') as { htmlToText: (html: string, options?: unknown) => string; [guarded]?: true };
  if (h2t[guarded]) return;
  const convert = h2t.htmlToText;
  h2t.htmlToText = (html: string, options?: unknown) => (typeof html === 'string' && htmlTooCostly(html) ? htmlToTextLinear(html) : convert(html, options));
  h2t[guarded] = true;
}
const guarded = Symbol('mailagent html-to-text guard');

/** Most start tags, nesting depth and glued-word work (below) of HTML given to html-to-text. */
export const HTML_TEXT_LIMITS = { tags: 50_000, depth: 1_000, glued: 50_000_000 };

const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements an HTML parser closes when the next one opens (`<p>` × n does not nest). */
const SELF_CLOSING_SIBLINGS = new Set(['p', 'li', 'td', 'th', 'tr', 'option', 'dt', 'dd']);

/**
 * One linear pass over HTML: start tags; nesting depth (start tags of elements that contain others
 * minus end tags); and glued-word work — the sum, over text pieces that continue a word of more
 * than 80 characters begun in an earlier piece (no whitespace between them, only tags), of that
 * word's length: what html-to-text spends re-splitting it. Approximate (tags inside comments,
 * scripts and attribute values are not told apart) and never smaller for the shapes above.
 */
export function htmlTextCost(html: string): { tags: number; depth: number; glued: number } {
  let tags = 0;
  let depth = 0;
  let maxDepth = 0;
  let glued = 0;
  let word = 0; // length of the current run of non-whitespace text, across tags
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      if (word > 80 && !isSpace(html.charCodeAt(i))) glued += word;
      for (let k = i; k < end; k++) word = isSpace(html.charCodeAt(k)) ? 0 : word + 1;
    }
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close < 0 ? n : close + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break;
    const c = html.charCodeAt(lt + 1);
    const closing = c === 47; /* / */
    const at = closing ? lt + 2 : lt + 1;
    let e = at;
    while (e < gt && isTagNameChar(html.charCodeAt(e))) e++;
    if (e > at) {
      const name = html.slice(at, Math.min(e, at + 16)).toLowerCase();
      if (closing) {
        if (depth > 0 && !SELF_CLOSING_SIBLINGS.has(name)) depth--;
      } else {
        tags++;
        if (!VOID_TAGS.has(name) && !SELF_CLOSING_SIBLINGS.has(name) && html.charCodeAt(gt - 1) !== 47 && ++depth > maxDepth) maxDepth = depth;
      }
    }
    i = gt + 1;
  }
  return { tags, depth: maxDepth, glued };
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
const isTagNameChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 58;

/** The HTML is past one of HTML_TEXT_LIMITS: its text is the linear tag strip, not html-to-text's. */
export function htmlTooCostly(html: string): boolean {
  const c = htmlTextCost(html);
  return c.tags > HTML_TEXT_LIMITS.tags || c.depth > HTML_TEXT_LIMITS.depth || c.glued > HTML_TEXT_LIMITS.glued;
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
  else if (html !== null && !opts.safe && m && htmlTooCostly(html)) problems.push('any text made from the HTML body is the HTML with its tags removed (its markup is past the bounds of HTML-to-text conversion)');
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
  attachments: AttachmentText[]; attachmentNames: string[]; bodiesCut: boolean;
} {
  return {
    from: bareAddress((parsed.from?.address ?? mailFrom ?? '').toLowerCase()), fromName: parsed.from?.name ?? null,
    subject: parsed.subject, text: parsed.text ?? '', html: parsed.html, headers: parsed.headerMap,
    attachments: attachmentTexts(parsed.attachments), attachmentNames: attachmentNames(parsed.attachments),
    // (session 14) a body cut at MAX_BODY_CHARS: the classifier reads what is stored, and fails the
    // message closed for what is not (until then such a message was scored on its first MiB alone)
    bodiesCut: bodiesWereCut(parsed),
  };
}

/** parseMessage's note for a body cut at MAX_BODY_CHARS. */
const BODY_CUT = /^(?:body text|HTML body) cut at \d+ characters/;
/** A body of the message was cut at MAX_BODY_CHARS: the classifier fails it closed (InboundInput.bodiesCut). */
export function bodiesWereCut(parsed: ParsedInbound): boolean {
  return parsed.problems.some((p) => BODY_CUT.test(p));
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
