// Text preparation: bounded prefixes, HTML → visible text plus the text a human
// reader never sees (hidden by style, in comments), and invisible Unicode
// (zero-width, bidi controls, tag characters). Hidden text is evidence for the
// injection scan (see README "Hidden content").

/** Longest prefix of any input field that is looked at. */
export const MAX_INPUT_CHARS = 64 * 1024;
/** Longest HTML prefix that is parsed. */
export const MAX_HTML_CHARS = 128 * 1024;
/** Longest hidden-text buffer kept. */
export const MAX_HIDDEN_CHARS = 8 * 1024;

/**
 * (session 13) Most characters of a text part, and of an HTML part, that classifyInbound's
 * injection scan reads: the parse's body bound (mail/parse.ts MAX_BODY_CHARS), so every body an
 * agent can read from the daemon is scanned whole. Until session 13 only the first 64 KB of text and
 * 128 KB of HTML were read (docs/classifier.md "What is scanned").
 */
export const MAX_SCAN_CHARS = 1024 * 1024;

/**
 * A long text's whitespace runs made one character (session 13): a run holding two line ends or
 * more becomes a blank line (the sentence segmenter's paragraph break), one line end a newline,
 * anything else a space. Whitespace padding then costs no part of MAX_SCAN_CHARS ("\r\n" × 40,000
 * put an injection past the 64 KB the scan read: an outside tester's finding). Linear.
 */
export function collapseWhitespace(s: string): string {
  return s.replace(/\s+/g, (m) => {
    if (m.length === 1) return m === '\n' ? m : ' ';
    const first = m.indexOf('\n');
    if (first < 0) return ' ';
    return m.indexOf('\n', first + 1) >= 0 ? '\n\n' : '\n';
  });
}

export function bounded(s: unknown, max = MAX_INPUT_CHARS): string {
  if (typeof s !== 'string') return s == null ? '' : safeString(s);
  return s.length > max ? s.slice(0, max) : s;
}

function safeString(v: unknown): string {
  try {
    return String(v).slice(0, MAX_INPUT_CHARS);
  } catch {
    return '';
  }
}

export interface InvisibleScan {
  /** Text with zero-width, bidi and tag characters removed; tag characters decoded into `tagText`. */
  clean: string;
  zeroWidth: number;
  bidi: number;
  /** ASCII smuggled in Unicode tag characters (U+E0020–U+E007E). */
  tagText: string;
}

// U+200B..U+200D, U+2060..U+2064, U+FEFF (not at position 0), U+180E, U+00AD soft hyphen
function isZeroWidth(c: number): boolean {
  return (c >= 0x200b && c <= 0x200d) || (c >= 0x2060 && c <= 0x2064) || c === 0xfeff || c === 0x180e || c === 0x00ad;
}
// U+200E/U+200F marks, U+202A..U+202E embeddings/overrides, U+2066..U+2069 isolates, U+061C
function isBidi(c: number): boolean {
  return c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x061c;
}

// Letters a reader sees as plain Latin but that are other code points: fullwidth letters and
// digits, mathematical alphanumerics (U+1D400..1D7FF), enclosed and circled alphanumerics,
// ligatures. "Ｉｇｎｏｒｅ ａｌｌ…" must read as "Ignore all…" to the rules and the model, which only
// ever saw the plain forms. Only those characters are folded (NFKC each): fullwidth punctuation
// stays, because it carries meaning in CJK text ("902771，5分钟" is a code and a comma, not the
// number 902,771.5).
const COMPAT_FORMS = /[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A\u2460-\u24FF\uFB00-\uFB06]|\uD835[\uDC00-\uDFFF]/g;

/** The text with its compatibility letters and digits folded to the plain ones. */
export function foldCompat(s: string): string {
  COMPAT_FORMS.lastIndex = 0;
  return COMPAT_FORMS.test(s) ? s.replace(COMPAT_FORMS, (ch) => ch.normalize('NFKC')) : s;
}

/** `maxTag`: most characters of tag-character text decoded (classifyInbound: MAX_SCAN_CHARS since session 14). */
export function scanInvisible(s: string, maxTag = MAX_HIDDEN_CHARS): InvisibleScan {
  const r = scanInvisibleRaw(s, maxTag);
  const clean = foldCompat(r.clean);
  return clean === r.clean ? r : { ...r, clean };
}

function scanInvisibleRaw(s: string, maxTag: number): InvisibleScan {
  let zeroWidth = 0;
  let bidi = 0;
  const tag: string[] = [];
  let tagLen = 0;
  // Fast path: nothing above U+00AC that matters.
  let needs = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x00ad || (c >= 0x180e && (c === 0x180e || (c >= 0x200b && c <= 0x206f) || c === 0xfeff || c === 0x061c || c === 0xdb40))) {
      needs = true;
      break;
    }
  }
  if (!needs) return { clean: s, zeroWidth: 0, bidi: 0, tagText: '' };
  const out: string[] = [];
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0xdb40 && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdc7f) {
        if (i > runStart) out.push(s.slice(runStart, i));
        const ascii = lo - 0xdc00;
        if (ascii >= 0x20 && ascii <= 0x7e && tagLen < maxTag) {
          tag.push(String.fromCharCode(ascii));
          tagLen++;
        }
        i++;
        runStart = i + 1;
        continue;
      }
    }
    const zw = isZeroWidth(c);
    const bd = !zw && isBidi(c);
    if (zw || bd) {
      if (zw) zeroWidth++;
      else bidi++;
      if (i > runStart) out.push(s.slice(runStart, i));
      runStart = i + 1;
    }
  }
  if (runStart < s.length) out.push(s.slice(runStart));
  return { clean: out.join(''), zeroWidth, bidi, tagText: tag.join('') };
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™',
  hellip: '…', mdash: '—', ndash: '–', rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“', euro: '€',
  pound: '£', yen: '¥', zwnj: '\u200c', zwj: '\u200d', shy: '\u00ad', bull: '•', middot: '·', laquo: '«', raquo: '»',
};

export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (m, body: string) => {
    if (body[0] === '#') {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return ' ';
      return String.fromCodePoint(cp);
    }
    const v = NAMED_ENTITIES[body.toLowerCase()];
    return v === undefined ? m : v;
  });
}

export interface HtmlText {
  visible: string;
  /** Text a reader would not see: hidden by style/attribute, plus comment text. */
  hidden: string;
  /** Which hiding techniques carried text (e.g. "display:none", "comment"). */
  techniques: string[];
  hiddenChars: number;
  links: number;
}

const SKIP_CONTENT = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'svg', 'xml']);
const VOID = new Set(['br', 'img', 'hr', 'meta', 'link', 'input', 'area', 'base', 'col', 'embed', 'param', 'source', 'track', 'wbr']);
const BLOCK = new Set(['p', 'div', 'br', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'ul', 'ol', 'blockquote', 'section', 'article', 'header', 'footer', 'td', 'hr', 'pre']);

interface Frame {
  tag: string;
  hidden: string | null; // technique that hides this subtree, or null
  bg: string; // effective background colour
  skip: boolean;
}

const WHITE = new Set(['#fff', '#ffffff', 'white', 'rgb(255,255,255)', '#fefefe', '#fffffe', 'rgba(255,255,255,1)']);

function normColor(c: string): string {
  const v = c.replace(/\s+/g, '').replace(/!important$/, '').toLowerCase();
  if (WHITE.has(v)) return '#ffffff';
  if (v === 'black' || v === '#000' || v === '#000000' || v === 'rgb(0,0,0)') return '#000000';
  if (/^#[0-9a-f]{3}$/.test(v)) return '#' + v[1] + v[1] + v[2] + v[2] + v[3] + v[3];
  return v;
}

function styleProp(style: string, prop: string): string | null {
  // last declaration wins, like CSS
  const re = new RegExp('(?:^|;|\\s)' + prop + '\\s*:\\s*([^;]+)', 'g');
  let m: RegExpExecArray | null;
  let v: string | null = null;
  while ((m = re.exec(style)) !== null) v = m[1].trim();
  return v;
}

function hidingTechnique(attrs: string, parentBg: string): { hidden: string | null; bg: string } {
  let bg = parentBg;
  const a = attrs.toLowerCase();
  if (/(?:^|\s)hidden(?:\s|=|$)/.test(a) && !/type\s*=\s*["']?hidden/.test(a)) return { hidden: 'hidden-attribute', bg };
  const sm = /style\s*=\s*("([^"]*)"|'([^']*)')/.exec(a);
  const bgAttr = /bgcolor\s*=\s*["']?([#a-z0-9]+)/.exec(a);
  if (bgAttr) bg = normColor(bgAttr[1]);
  if (!sm) {
    const fontColor = /(?:^|\s)color\s*=\s*["']?([#a-z0-9]+)/.exec(a);
    if (fontColor && normColor(fontColor[1]) === bg) return { hidden: 'same-colour', bg };
    return { hidden: null, bg };
  }
  const st = sm[2] ?? sm[3] ?? '';
  const bgv = styleProp(st, 'background-color') ?? styleProp(st, 'background');
  if (bgv) {
    const first = firstCssToken(bgv);
    if (first && (first[0] === '#' || /^[a-z]+$/.test(first) || first.startsWith('rgb'))) bg = normColor(first);
  }
  const display = styleProp(st, 'display');
  if (display && /^none\b/.test(display)) return { hidden: 'display:none', bg };
  const vis = styleProp(st, 'visibility');
  if (vis && /^(hidden|collapse)\b/.test(vis)) return { hidden: 'visibility:hidden', bg };
  const fs = styleProp(st, 'font-size');
  if (fs) {
    const v = parseFloat(fs);
    if (v === 0 || (v < 2 && /px|pt/.test(fs))) return { hidden: 'font-size:0', bg };
  }
  const op = styleProp(st, 'opacity');
  if (op && parseFloat(op) <= 0.05) return { hidden: 'opacity:0', bg };
  const w = styleProp(st, 'width');
  const h = styleProp(st, 'height');
  const mh = styleProp(st, 'max-height');
  const mw = styleProp(st, 'max-width');
  const overflow = styleProp(st, 'overflow');
  const zero = (v: string | null) => v !== null && /^0(px|pt|em|%)?\b/.test(v);
  if ((zero(w) || zero(h) || zero(mh) || zero(mw)) && (overflow === null || /hidden/.test(overflow) || zero(mh) || zero(mw)))
    return { hidden: 'zero-size', bg };
  const pos = styleProp(st, 'left') ?? styleProp(st, 'text-indent') ?? styleProp(st, 'top');
  if (pos && /^-\d{4,}/.test(pos)) return { hidden: 'off-screen', bg };
  const clip = styleProp(st, 'clip-path') ?? styleProp(st, 'clip');
  if (clip && /(inset\(50%|rect\(0(px)?,?\s*0(px)?,?\s*0(px)?,?\s*0(px)?\))/.test(clip)) return { hidden: 'clip', bg };
  const color = styleProp(st, 'color');
  if (color && normColor(color) === bg) return { hidden: 'same-colour', bg };
  return { hidden: null, bg };
}

// Session 13 (fix13c): the helpers below replace regular expressions whose backtracking made
// htmlToText superlinear on crafted input (bench/classifier-linear.bench.ts): the comment test
// `/[a-z]{3,}.*\s.*[a-z]{3,}/i` was cubic on a comment of one long word (4,000 characters: over
// 5 s, and the message was stored as clean), `/<[^>]*>/g` quadratic on a comment of '<', and
// `/\s*\n\s*/g` quadratic on a run of whitespace without a newline (\r, U+2003). Each gives the
// same result as the expression it replaces (test/unit/classifier/linear-text.test.ts compares them).

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
/** JavaScript's `\s`. */
export function isJsSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * `/[a-z]{3,}.*\s.*[a-z]{3,}/i.test(s)` in one pass each way: some whitespace character w with a
 * run of three ASCII letters ending before it on its line (no line end between them) and one
 * starting after it on the same line (w itself may be the line end). Prose, not a template id.
 */
export function twoWords(s: string): boolean {
  const n = s.length;
  // after[i]: a run of three letters starts at or after i with no line end in between
  const after = new Uint8Array(n + 1);
  let run = 0;
  for (let i = n - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    run = isLetter(c) ? run + 1 : 0;
    after[i] = run >= 3 ? 1 : isLineEnd(c) ? 0 : after[i + 1];
  }
  run = 0;
  let before = false; // a run of three letters has ended on this line, before i
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (before && isJsSpace(c) && after[i + 1]) return true;
    if (isLineEnd(c)) before = false;
    run = isLetter(c) ? run + 1 : 0;
    if (run >= 3) before = true;
  }
  return false;
}

/** `s.replace(/<[^>]*>/g, ' ')` without rescanning: a '<' with no '>' after it ends the work. */
export function stripTags(s: string): string {
  let lt = s.indexOf('<');
  if (lt < 0) return s;
  let out = '';
  let i = 0;
  while (lt >= 0) {
    const gt = s.indexOf('>', lt + 1);
    if (gt < 0) break;
    out += s.slice(i, lt) + ' ';
    i = gt + 1;
    lt = s.indexOf('<', i);
  }
  return out + s.slice(i);
}

/**
 * The visible text's two replaces (runs of space, tab and no-break space made one space, then any
 * whitespace run around a newline made one newline; the second expression backtracked) in one linear pass: a run of
 * whitespace holding a newline becomes one newline, any other run keeps its characters with each
 * run of spaces, tabs and no-break spaces made one space.
 */
export function squeezeLines(s: string): string {
  return s.replace(/\s+/g, (m) => (m.indexOf('\n') >= 0 ? '\n' : m.length === 1 && m !== '\t' && m !== '\u00a0' ? m : m.replace(/[ \t\u00a0]+/g, ' ')));
}

/**
 * `v.split(/\s+(?![^(]*\))/)[0]`, linear: `v` up to its first whitespace that is not inside
 * parentheses (a ')' ahead before any '('). The lookahead rescanned the rest of the value at every
 * space: quadratic on a long `background` of words.
 */
export function firstCssToken(v: string): string {
  // closeAhead: the next parenthesis at or after i is ')'
  const closeAhead = new Uint8Array(v.length + 1);
  for (let i = v.length - 1; i >= 0; i--) {
    const c = v.charCodeAt(i);
    closeAhead[i] = c === 41 ? 1 : c === 40 ? 0 : closeAhead[i + 1];
  }
  for (let i = 0; i < v.length; i++) if (isJsSpace(v.charCodeAt(i)) && !closeAhead[i]) return v.slice(0, i);
  return v;
}

/**
 * One pass over the HTML: visible text, hidden text (by style, attribute, or
 * comment) and which techniques carried it. Tolerates any garbage.
 */
export function htmlToText(htmlIn: string, maxHtml = MAX_HTML_CHARS, maxHidden = MAX_HIDDEN_CHARS): HtmlText {
  const html = htmlIn.length > maxHtml ? htmlIn.slice(0, maxHtml) : htmlIn;
  const vis: string[] = [];
  const hid: string[] = [];
  let hiddenChars = 0;
  let links = 0;
  const techniques = new Set<string>();
  const stack: Frame[] = [{ tag: '#root', hidden: null, bg: '#ffffff', skip: false }];
  let top = stack[0];
  let i = 0;
  const n = html.length;
  const emitText = (raw: string) => {
    if (top.skip || raw.length === 0) return;
    const t = decodeEntities(raw);
    if (top.hidden) {
      if (/\S/.test(t) && hiddenChars < maxHidden) {
        hid.push(t);
        hiddenChars += t.length;
        techniques.add(top.hidden);
      }
    } else vis.push(t);
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      emitText(html.slice(i));
      break;
    }
    if (lt > i) emitText(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      const body = html.slice(lt + 4, end < 0 ? n : end);
      // Conditional comments carry Outlook markup, not prose.
      if (!/^\s*\[(if|endif)/i.test(body) && hiddenChars < maxHidden) {
        const txt = decodeEntities(stripTags(body)).trim();
        if (twoWords(txt)) {
          hid.push(txt);
          hiddenChars += txt.length;
          techniques.add('comment');
        }
      }
      i = end < 0 ? n : end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) {
      emitText(html.slice(lt));
      break;
    }
    const inner = html.slice(lt + 1, gt);
    i = gt + 1;
    if (inner.length === 0) continue;
    const c0 = inner.charCodeAt(0);
    if (c0 === 33 /* ! */ || c0 === 63 /* ? */) continue; // doctype, CDATA, PI
    const closing = c0 === 47; /* / */
    const m = /^\/?\s*([a-zA-Z][a-zA-Z0-9:-]*)/.exec(inner);
    if (!m) {
      emitText('<' + inner + '>');
      continue;
    }
    const tag = m[1].toLowerCase();
    if (BLOCK.has(tag) && !top.hidden && !top.skip) vis.push('\n');
    else if (tag === 'td' || tag === 'th') vis.push(' ');
    if (closing) {
      for (let k = stack.length - 1; k > 0; k--) {
        if (stack[k].tag === tag) {
          stack.length = k;
          top = stack[k - 1];
          break;
        }
      }
      continue;
    }
    if (tag === 'a' && /href\s*=/i.test(inner)) links++;
    const selfClosing = inner.charCodeAt(inner.length - 1) === 47;
    if (VOID.has(tag) || selfClosing) {
      if (tag === 'img') {
        const alt = /alt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(inner);
        if (alt) emitText(' ' + (alt[2] ?? alt[3] ?? '') + ' ');
      }
      continue;
    }
    const attrs = inner.slice(m[0].length);
    const h = attrs.length > 3 ? hidingTechnique(attrs, top.bg) : { hidden: null, bg: top.bg };
    const frame: Frame = {
      tag,
      hidden: top.hidden ?? h.hidden,
      bg: h.bg,
      skip: top.skip || SKIP_CONTENT.has(tag),
    };
    if (stack.length < 256) {
      stack.push(frame);
      top = frame;
    }
  }
  const visible = squeezeLines(vis.join('')).trim();
  const hidden = hid.join(' ').replace(/\s+/g, ' ').trim();
  return { visible, hidden, techniques: [...techniques], hiddenChars: hidden.length, links };
}

/** Strip quoted history ("On … wrote:", "> " lines, forwarded headers) to get the fresh text. */
export function freshText(text: string): string {
  const lines = text.split('\n', 400);
  const out: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t.startsWith('>')) continue;
    if (/^(on .{4,120} wrote:|-{2,}\s*original message\s*-{2,}|-{5,} forwarded message|from: .+@.+|le .{4,80} a écrit ?:|am .{4,80} schrieb .{1,80}:|el .{4,80} escribió:)$/i.test(t)) break;
    out.push(line);
  }
  return out.join('\n');
}

/** How much of an HTML part's visible text is compared with its plain part, and kept when it differs. */
export const MAX_UNSEEN_CHARS = 16 * 1024;

function wordsOf(s: string): string[] {
  return s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * The sentences of an HTML part's visible text that its plain part does not say: a
 * multipart/alternative message shows a reader (and an agent's HTML view) the HTML, so a plain
 * part that says something else is a hiding place for the scans that read the plain part. A
 * sentence counts as said when at least half of its word pairs (its word, for one-word lines) occur
 * in the plain part; html-to-text conversions differ in punctuation, links and layout, not in
 * words. Linear in both lengths (a set of the plain part's word pairs); '' when nothing is new.
 */
export function unseenSentences(htmlVisible: string, plain: string, maxKept = MAX_UNSEEN_CHARS, maxRead = MAX_INPUT_CHARS): string {
  if (!htmlVisible.trim()) return '';
  const seen = new Set<string>();
  const pw = wordsOf(plain.length > maxRead ? plain.slice(0, maxRead) : plain);
  for (let i = 0; i < pw.length; i++) {
    seen.add(pw[i]); // for one-word lines
    if (i + 1 < pw.length) seen.add(pw[i] + ' ' + pw[i + 1]);
  }
  const out: string[] = [];
  let kept = 0;
  const html = htmlVisible.length > maxRead ? htmlVisible.slice(0, maxRead) : htmlVisible;
  for (const sentence of html.split(/(?<=[.!?])\s+|\n+/)) {
    const w = wordsOf(sentence);
    if (!w.length) continue;
    let found = 0;
    const pairs = Math.max(1, w.length - 1);
    if (w.length === 1) found = seen.has(w[0]) ? 1 : 0;
    else for (let i = 0; i + 1 < w.length; i++) if (seen.has(w[i] + ' ' + w[i + 1])) found++;
    if (found * 2 >= pairs) continue;
    out.push(sentence.trim());
    kept += sentence.length + 1;
    if (kept >= maxKept) break;
  }
  return out.join('\n').slice(0, maxKept);
}
