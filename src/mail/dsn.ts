import { readHeaders, type ParsedInbound } from './parse.js';

/**
 * Delivery reports about mail we sent: delivery-status notifications (RFC 3464, inside an
 * RFC 6522 multipart/report), the common non-standard bounces (qmail, Exim, old Gmail: a plain
 * notice from MAILER-DAEMON with the original quoted), and abuse feedback reports (RFC 5965 ARF).
 *
 * mailparser folds `message/delivery-status` and `message/feedback-report` parts into the text
 * body, so the report parts are read here from the raw bytes with a small MIME walker. Nothing in
 * this file throws on bad input: an unreadable report is simply not a report.
 */

export type ReportAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

export interface ReportRecipient {
  /** Original-Recipient (RFC 3464 §2.3.1) or, for ARF, Original-Rcpt-To; lower-cased. */
  originalRecipient: string | null;
  /** Final-Recipient (RFC 3464 §2.3.2); lower-cased. */
  finalRecipient: string | null;
  action: ReportAction | null;
  /** Enhanced status code `class.subject.detail` (RFC 3463), e.g. `5.1.1`. */
  status: string | null;
  diagnosticCode: string | null;
  remoteMta: string | null;
}

export interface MailReport {
  /** `delivery-status`: a bounce, delay or success notice; `feedback`: an ARF report. */
  type: 'delivery-status' | 'feedback';
  /** `rfc3464` / `rfc5965`, or `non-standard` (recognised from its sender, subject and text). */
  format: 'rfc3464' | 'rfc5965' | 'non-standard';
  reportingMta: string | null;
  /** ARF Feedback-Type (RFC 5965 §3.1), lower-cased; null for delivery reports. */
  feedbackType: string | null;
  /** ARF User-Agent (which feedback loop sent it). */
  userAgent: string | null;
  recipients: ReportRecipient[];
  /** Every address named in a non-standard notice (the caller keeps those it mailed). */
  mentionedAddresses: string[];
  /** Candidate Message-IDs of the original, best first: the returned copy's, then In-Reply-To/References. */
  originalMessageIds: string[];
  /** To/Cc of the returned copy (an ARF report without Original-Rcpt-To). */
  originalRecipients: string[];
  /**
   * Envelope senders the report says the original had, lower-case: ARF Original-Mail-From
   * (RFC 5965 §3.2), then the Return-Path the receiving MTA wrote on the returned copy (RFC 5321
   * §4.4). Our signed return path there ties a complaint to one recipient (services/feedback.ts).
   */
  originalMailFrom: string[];
}

// ---- A minimal MIME walker (RFC 2045/2046) over raw bytes.

interface MimePart {
  headers: [string, string][];
  type: string;
  params: Record<string, string>;
  body: Buffer;
  parts: MimePart[];
}

const MAX_DEPTH = 4;
const MAX_PARTS = 64;
const MAX_REPORT_BYTES = 256 * 1024;

function header(headers: [string, string][], name: string): string | undefined {
  return headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

/** `type/subtype; a=b; c="d"` → lower-cased type and parameters (RFC 2045 §5.1). */
export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  if (!value) return { type: 'text/plain', params: {} };
  const [first, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  const re = /([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/g;
  for (const m of rest.join(';').matchAll(re)) {
    params[m[1].toLowerCase()] = m[2].startsWith('"') ? m[2].slice(1, -1).replace(/\\(.)/g, '$1') : m[2];
  }
  return { type: first.trim().toLowerCase() || 'text/plain', params };
}

function decodeQuotedPrintable(b: Buffer): Buffer {
  const s = b.toString('latin1').replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(s.charCodeAt(i) & 0xff);
  }
  return Buffer.from(out);
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === 'base64') return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (e === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const text = body.toString('latin1');
  const delim = '--' + boundary;
  const parts: Buffer[] = [];
  let pos = 0;
  let start = -1;
  for (;;) {
    const i = text.indexOf(delim, pos);
    if (i === -1) break;
    const atLineStart = i === 0 || text[i - 1] === '\n';
    const lineEnd = text.indexOf('\n', i);
    if (!atLineStart) { pos = i + delim.length; continue; }
    if (start !== -1) {
      // The CRLF before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
      let end = i;
      if (text[end - 1] === '\n') end--;
      if (text[end - 1] === '\r') end--;
      parts.push(body.subarray(start, Math.max(start, end)));
      if (parts.length >= MAX_PARTS) return parts;
    }
    if (text.startsWith(delim + '--', i)) return parts;
    if (lineEnd === -1) return parts;
    start = lineEnd + 1;
    pos = start;
  }
  return parts;
}

function parsePart(raw: Buffer, depth: number): MimePart {
  // A part that starts with a blank line has no header fields at all (RFC 2046 §5.1.1).
  let hs: [string, string][] = [];
  let bodyStart: number;
  if (raw[0] === 0x0a) bodyStart = 1;
  else if (raw[0] === 0x0d && raw[1] === 0x0a) bodyStart = 2;
  else {
    const r = readHeaders(raw);
    hs = r.headers;
    bodyStart = r.headerBytes >= raw.length ? raw.length : r.headerBytes + (raw[r.headerBytes] === 0x0d ? 2 : 1);
  }
  const { type, params } = parseContentType(header(hs, 'content-type'));
  const rawBody = raw.subarray(bodyStart);
  const part: MimePart = { headers: hs, type, params, body: rawBody, parts: [] };
  if (type.startsWith('multipart/') && params.boundary && depth < MAX_DEPTH) {
    part.parts = splitMultipart(rawBody, params.boundary).map((p) => parsePart(p, depth + 1));
  } else {
    part.body = decodeBody(rawBody, header(hs, 'content-transfer-encoding'));
  }
  return part;
}

function* walk(p: MimePart): Generator<MimePart> {
  yield p;
  for (const c of p.parts) yield* walk(c);
}

// ---- Field groups (RFC 3464 §2.1, RFC 5965 §3.1): header-style fields, groups split by blank lines.

type FieldGroup = Map<string, string[]>;

function fieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let cur: FieldGroup = new Map();
  let last: string | null = null;
  for (const line of text.slice(0, MAX_REPORT_BYTES).split(/\r?\n/)) {
    if (!line.trim()) {
      if (cur.size) groups.push(cur);
      cur = new Map();
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      const vals = cur.get(last)!;
      vals[vals.length - 1] += ' ' + line.trim();
      continue;
    }
    const i = line.indexOf(':');
    if (i <= 0) continue;
    last = line.slice(0, i).trim().toLowerCase();
    cur.set(last, [...(cur.get(last) ?? []), line.slice(i + 1).trim()]);
  }
  if (cur.size) groups.push(cur);
  return groups;
}

const first = (g: FieldGroup, name: string) => g.get(name)?.[0] ?? null;

/** `dns; mx.example.org` → `mx.example.org` (RFC 3464 §2.2.2: mta-name-type ; mta-name). */
function mtaName(v: string | null): string | null {
  return v ? v.replace(/^[a-z0-9-]+;\s*/i, '').trim() || null : null;
}

/** `rfc822; bob@example.com` → `bob@example.com` (RFC 3464 §2.3.1: address-type ; address). */
function typedAddress(v: string | null): string | null {
  if (!v) return null;
  const s = (v.includes(';') ? v.slice(v.indexOf(';') + 1) : v).trim().replace(/^<|>$/g, '').trim().toLowerCase();
  return /^[^\s@<>]+@[^\s@<>]+$/.test(s) ? s : null;
}

const STATUS_RE = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;

function statusCode(v: string | null): string | null {
  const m = v ? STATUS_RE.exec(v) : null;
  return m ? `${m[1]}.${m[2]}.${m[3]}` : null;
}

function action(v: string | null): ReportAction | null {
  const a = (v ?? '').trim().toLowerCase();
  return (['failed', 'delayed', 'delivered', 'relayed', 'expanded'] as const).find((x) => a === x) ?? null;
}

function messageIds(v: string | undefined | null): string[] {
  if (!v) return [];
  return (v.match(/<[^<>\s]+>/g) ?? v.trim().split(/\s+/)).map((s) => s.replace(/^<|>$/g, '').trim()).filter(Boolean);
}

const ADDRESS_RE = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g;

function addressesIn(v: string | undefined | null): string[] {
  return [...new Set((v ?? '').match(ADDRESS_RE)?.map((a) => a.toLowerCase()) ?? [])];
}

/** What the returned copy of the original (or its header block) tells us. */
function originalFrom(headersRaw: Buffer | null): { ids: string[]; recipients: string[]; returnPath: string[] } {
  if (!headersRaw || !headersRaw.length) return { ids: [], recipients: [], returnPath: [] };
  const { headers } = readHeaders(headersRaw);
  const get = (n: string) => headers.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v).join(', ');
  return { ids: messageIds(header(headers, 'message-id')), recipients: addressesIn(`${get('to')}, ${get('cc')}`), returnPath: addressesIn(get('return-path')) };
}

// ---- Recognition.

const DAEMON_RE = /^(mailer-daemon|mailer_daemon|mailerdaemon|mail-daemon|postmaster|mdaemon|bounce|bounces)(\+[^@]*)?@/i;
const BOUNCE_SUBJECT_RE = /undeliver(ed|able)|returned mail|returned to sender|delivery status notification|delivery (has )?failed|delivery failure|failure notice|mail delivery (failed|failure|system)|could not be delivered|(message|mail|delivery) (is )?delayed|delayed (mail|message|delivery)|warning: could not send|non-?delivery report|message not delivered/i;
const DELAY_RE = /\b(delay(ed)?|still being retried|will (continue to )?(re)?try|retry(ing)? (again|for)|not yet been delivered|temporar(y|ily))\b/i;
const PERMANENT_RE = /permanent(ly)?\s+(error|failure|fatal)|failed permanently|permanent error|user unknown|no such user|mailbox unavailable|does not exist|address rejected/i;
/** Where a non-standard bounce starts quoting the original (qmail, Exim, Sendmail, Gmail). */
const QUOTE_MARKER_RE = /^[ \t]*(-{2,}[^\n]*(below this line|copy of the message|original message|returned message|undelivered message|message headers)[^\n]*|-{3,} ?original message ?-{3,})[ \t]*$/im;

/**
 * Is this message a delivery or feedback report? Cheap for ordinary mail: only the top-level
 * Content-Type, From and Subject are looked at before anything is walked.
 */
export function readReport(raw: Buffer, parsed: ParsedInbound, mailFrom = ''): MailReport | null {
  try {
    return read(raw, parsed, mailFrom);
  } catch {
    return null;
  }
}

function read(raw: Buffer, parsed: ParsedInbound, mailFrom: string): MailReport | null {
  const top = parseContentType(parsed.headerMap['content-type']);
  const reportType = top.type === 'multipart/report' ? (top.params['report-type'] ?? '').toLowerCase() : '';
  const replyIds = [...(parsed.inReplyTo ? [parsed.inReplyTo] : []), ...[...parsed.references].reverse()];
  if (reportType === 'delivery-status' || reportType === 'global-delivery-status' || reportType === 'feedback-report') {
    const tree = parsePart(raw.length > 8 * 1024 * 1024 ? raw.subarray(0, 8 * 1024 * 1024) : raw, 0);
    const parts = [...walk(tree)];
    const orig = originalPart(parts);
    const o = originalFrom(orig);
    const base = { originalMessageIds: [...new Set([...o.ids, ...replyIds])], originalRecipients: o.recipients, mentionedAddresses: [], originalMailFrom: o.returnPath };
    if (reportType === 'feedback-report') {
      const fb = parts.find((p) => p.type === 'message/feedback-report');
      if (!fb) return null;
      const g = fieldGroups(fb.body.toString('utf8'))[0] ?? new Map();
      const rcpts = (g.get('original-rcpt-to') ?? []).map(typedAddress).filter((a): a is string => a !== null);
      const mailFrom = (g.get('original-mail-from') ?? []).map(typedAddress).filter((a): a is string => a !== null);
      return {
        ...base, originalMailFrom: [...new Set([...mailFrom, ...o.returnPath])], type: 'feedback', format: 'rfc5965', reportingMta: mtaName(first(g, 'reporting-mta')),
        feedbackType: (first(g, 'feedback-type') ?? '').trim().toLowerCase() || null, userAgent: first(g, 'user-agent'),
        recipients: rcpts.map((r) => ({ originalRecipient: r, finalRecipient: null, action: null, status: null, diagnosticCode: null, remoteMta: null })),
      };
    }
    const ds = parts.find((p) => p.type === 'message/delivery-status' || p.type === 'message/global-delivery-status');
    if (!ds) return null;
    const [perMessage, ...perRecipient] = fieldGroups(ds.body.toString('utf8'));
    // Gmail names the original in the per-message fields too (X-Original-Message-ID).
    const xOriginal = perMessage ? messageIds(first(perMessage, 'x-original-message-id')) : [];
    const recipients: ReportRecipient[] = perRecipient
      .map((g) => ({
        originalRecipient: typedAddress(first(g, 'original-recipient')),
        finalRecipient: typedAddress(first(g, 'final-recipient')),
        action: action(first(g, 'action')),
        status: statusCode(first(g, 'status')),
        diagnosticCode: first(g, 'diagnostic-code')?.slice(0, 1000) ?? null,
        remoteMta: mtaName(first(g, 'remote-mta')),
      }))
      .filter((r) => r.originalRecipient || r.finalRecipient);
    if (!recipients.length) return null;
    return {
      ...base, originalMessageIds: [...new Set([...o.ids, ...xOriginal, ...replyIds])],
      type: 'delivery-status', format: 'rfc3464', reportingMta: perMessage ? mtaName(first(perMessage, 'reporting-mta')) : null,
      feedbackType: null, userAgent: null, recipients,
    };
  }
  return nonStandard(raw, parsed, mailFrom, replyIds);
}

function originalPart(parts: MimePart[]): Buffer | null {
  const p = parts.find((x) => x.type === 'message/rfc822' || x.type === 'message/global')
    ?? parts.find((x) => x.type === 'text/rfc822-headers' || x.type === 'message/rfc822-headers' || x.type === 'message/global-headers');
  return p ? p.body : null;
}

/**
 * A bounce that is not an RFC 3464 report: sent by a mailer daemon (or with the null sender) under
 * a bounce-like subject, naming the failed address in prose and quoting the original below a marker.
 */
function nonStandard(raw: Buffer, parsed: ParsedInbound, mailFrom: string, replyIds: string[]): MailReport | null {
  const from = parsed.from?.address ?? '';
  const daemon = DAEMON_RE.test(from);
  const nullSender = mailFrom === '' || mailFrom === '<>' || parsed.headerMap['return-path']?.trim() === '<>';
  const bounceSubject = BOUNCE_SUBJECT_RE.test(parsed.subject);
  if (!(bounceSubject && (daemon || nullSender))) return null;

  const text = (parsed.text ?? '').slice(0, MAX_REPORT_BYTES);
  const marker = QUOTE_MARKER_RE.exec(text);
  const notice = marker ? text.slice(0, marker.index) : text;
  let quoted: Buffer | null = marker ? Buffer.from(text.slice(marker.index + marker[0].length).replace(/^\s*\n/, '')) : null;
  const attached = parsed.attachments.find((a) => a.contentType === 'message/rfc822' || a.contentType === 'text/rfc822-headers');
  if (attached) quoted = attached.content;
  const o = originalFrom(quoted);

  const status = statusCode(notice) ?? (() => {
    const smtp = /\b([45])\d\d[ -]/.exec(notice);
    if (smtp) return `${smtp[1]}.0.0`;
    if (PERMANENT_RE.test(notice)) return '5.0.0';
    return null;
  })();
  const delayed = (DELAY_RE.test(parsed.subject) || (status?.startsWith('4') ?? false) || DELAY_RE.test(notice)) && !PERMANENT_RE.test(notice) && !status?.startsWith('5');
  const diagLine = notice.split(/\r?\n/).map((l) => l.trim()).find((l) => STATUS_RE.test(l) || /\b[45]\d\d[ -]/.test(l)) ?? null;
  const ignore = new Set([from, mailFrom.toLowerCase(), ...parsed.to]);
  const mentioned = addressesIn(notice).filter((a) => !ignore.has(a) && !DAEMON_RE.test(a));
  const line = (a: string | null): ReportRecipient => ({
    originalRecipient: null, finalRecipient: a, action: delayed ? 'delayed' : 'failed', status, diagnosticCode: diagLine?.slice(0, 1000) ?? null, remoteMta: null,
  });
  return {
    type: 'delivery-status', format: 'non-standard', reportingMta: from.split('@')[1] ?? null, feedbackType: null, userAgent: null,
    // A notice that names no address still says what happened: at a signed return path that is
    // enough to know whom it is about (services/feedback.ts), so it keeps one line without one.
    recipients: mentioned.length ? mentioned.map(line) : [line(null)],
    mentionedAddresses: mentioned,
    originalMessageIds: [...new Set([...o.ids, ...replyIds])],
    originalRecipients: o.recipients,
    originalMailFrom: o.returnPath,
  };
}
