// Shared by train-classifier.ts and eval-classifier.ts: locating ../shared/data,
// reading the corpora (tar.gz via node:zlib + a 512-byte-header tar reader,
// RFC 822/MIME bodies), deduplication, and THE deterministic train/eval split.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { htmlToText } from '../../src/classifier/text.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dataDir = path.resolve(repoRoot, '../shared/data');
export const ownDataDir = path.resolve(repoRoot, 'scripts/classifier-data');

export function requireDataDir(): string {
  if (!existsSync(dataDir)) {
    process.stderr.write(
      `error: training data not found at ${dataDir}\n` +
        `The public corpora must sit beside the repository in ../shared/data (see the data README). ` +
        `They are never copied into this repository.\n`,
    );
    process.exit(2);
  }
  return dataDir;
}

// ---------- split ----------
/** Percentage of each source held out for evaluation. */
export const EVAL_PERCENT = 20;
const SPLIT_SEED = 'mailagent-clf-split-v1';

export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** Normalised content key for deduplication (case, whitespace, digits folded). */
export function dedupKey(text: string): string {
  return text.toLowerCase().replace(/\d/g, '0').replace(/[^\p{L}\p{N}]+/gu, ' ').trim().slice(0, 2000);
}

/**
 * THE split. `group` is the unit that must not straddle train and eval
 * (a template family, a conversation, or the deduplicated content itself),
 * so near-identical texts land on the same side.
 */
export function isEval(group: string): boolean {
  return fnv1a(SPLIT_SEED + '\u0000' + group) % 100 < EVAL_PERCENT;
}

export interface Example {
  text: string;
  label: number;
  source: string;
  group: string;
  subject?: string;
  meta?: Record<string, unknown>;
}

/** Deduplicate across all sources (first occurrence wins) and split. */
export function dedupAndSplit(all: Example[]): { train: Example[]; evalSet: Example[]; dropped: number } {
  const seen = new Map<string, number>();
  const train: Example[] = [];
  const evalSet: Example[] = [];
  let dropped = 0;
  for (const ex of all) {
    const k = dedupKey((ex.subject ?? '') + ' ' + ex.text);
    if (k.length === 0) {
      dropped++;
      continue;
    }
    const prev = seen.get(k);
    if (prev !== undefined) {
      dropped++;
      continue;
    }
    seen.set(k, ex.label);
    (isEval(ex.group) ? evalSet : train).push(ex);
  }
  return { train, evalSet, dropped };
}

// ---------- tar.gz ----------
export interface TarEntry {
  name: string;
  data: Buffer;
}

export function readTarGz(file: string): TarEntry[] {
  const buf = gunzipSync(readFileSync(file));
  const out: TarEntry[] = [];
  let off = 0;
  let longName: string | null = null;
  while (off + 512 <= buf.length) {
    const hdr = buf.subarray(off, off + 512);
    if (hdr.every((b) => b === 0)) break;
    const str = (a: number, b: number) => hdr.subarray(a, b).toString('latin1').replace(/\0.*$/s, '');
    let name = str(0, 100);
    const prefix = str(345, 500);
    if (prefix && hdr[257] === 0x75 /* ustar */) name = prefix + '/' + name;
    const size = parseInt(str(124, 136).trim() || '0', 8);
    const type = String.fromCharCode(hdr[156] || 48);
    const dataStart = off + 512;
    const data = buf.subarray(dataStart, dataStart + size);
    if (type === 'L') longName = data.toString('latin1').replace(/\0.*$/s, '');
    else if (type === '0' || type === '\0') {
      out.push({ name: longName ?? name, data: Buffer.from(data) });
      longName = null;
    } else longName = null;
    off = dataStart + Math.ceil(size / 512) * 512;
  }
  return out;
}

// ---------- RFC 822 / MIME ----------
export interface ParsedMail {
  headers: Record<string, string>;
  subject: string;
  from: string;
  text: string;
  html: string;
}

function splitHeadBody(raw: string): [string, string] {
  const m = /\r?\n\r?\n/.exec(raw);
  if (!m) return [raw, ''];
  return [raw.slice(0, m.index), raw.slice(m.index + m[0].length)];
}

function parseHeaders(head: string): Record<string, string> {
  const h: Record<string, string> = {};
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    if (!(k in h)) h[k] = line.slice(i + 1).trim();
  }
  return h;
}

function decodeQP(s: string): Buffer {
  const t = s.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 61 && /^[0-9A-Fa-f]{2}$/.test(t.slice(i + 1, i + 3))) {
      bytes.push(parseInt(t.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c & 0xff);
  }
  return Buffer.from(bytes);
}

function decodeBody(body: string, cte: string, charset: string): string {
  let buf: Buffer;
  const enc = cte.toLowerCase();
  if (enc.includes('base64')) buf = Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  else if (enc.includes('quoted-printable')) buf = decodeQP(body);
  else buf = Buffer.from(body, 'latin1');
  const cs = charset.toLowerCase();
  try {
    if (cs.includes('utf-8') || cs.includes('utf8')) return buf.toString('utf8');
  } catch {
    /* fall through */
  }
  return buf.toString('latin1');
}

/** Decode =?charset?B/Q?...?= encoded words in headers. */
export function decodeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, cs: string, enc: string, data: string) => {
    try {
      const buf = enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQP(data.replace(/_/g, ' '));
      return /utf-?8/i.test(cs) ? buf.toString('utf8') : buf.toString('latin1');
    } catch {
      return data;
    }
  });
}

function walk(raw: string, acc: { text: string[]; html: string[] }, depth: number): void {
  if (depth > 6) return;
  const [head, body] = splitHeadBody(raw);
  const h = parseHeaders(head);
  const ct = (h['content-type'] ?? 'text/plain').toLowerCase();
  const charset = /charset="?([^";\s]+)/i.exec(h['content-type'] ?? '')?.[1] ?? 'latin1';
  const cte = h['content-transfer-encoding'] ?? '7bit';
  if (ct.startsWith('multipart/')) {
    const b = /boundary="?([^";]+)"?/i.exec(h['content-type'] ?? '')?.[1];
    if (!b) return;
    const parts = body.split('--' + b);
    for (let i = 1; i < parts.length; i++) {
      const p = parts[i];
      if (p.startsWith('--')) break;
      walk(p.replace(/^\r?\n/, ''), acc, depth + 1);
    }
    return;
  }
  if (ct.startsWith('text/html')) acc.html.push(decodeBody(body, cte, charset));
  else if (ct.startsWith('text/') || !h['content-type']) acc.text.push(decodeBody(body, cte, charset));
  else if (ct.startsWith('message/rfc822')) walk(body, acc, depth + 1);
}

export function parseMail(raw: string): ParsedMail {
  const [head] = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const acc = { text: [] as string[], html: [] as string[] };
  walk(raw, acc, 0);
  const html = acc.html.join('\n');
  let text = acc.text.join('\n');
  if (!text.trim() && html) text = htmlToText(html).visible;
  return { headers, subject: decodeWords(headers['subject'] ?? ''), from: decodeWords(headers['from'] ?? ''), text, html };
}

// ---------- small readers ----------
export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** RFC 4180 CSV (quoted fields may span lines). */
export function readCsv(file: string): Record<string, string>[] {
  const s = readFileSync(file, 'utf8');
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let q = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i++;
        } else q = false;
      } else field += c;
    } else if (c === '"') q = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  const [hdr, ...rest] = rows;
  return rest.filter((r) => r.length === hdr.length).map((r) => Object.fromEntries(hdr.map((k, i) => [k, r[i]])));
}

export function p(...parts: string[]): string {
  return path.join(dataDir, ...parts);
}
