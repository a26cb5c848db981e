// (session 14) The text of an HTML part that a mail client does not show but that an agent reading
// `body_html` does: attribute values (title, aria-label, data-*, value, placeholder, meta content and every other attribute not in NON_TEXT or URL_ATTRS),
// script and style contents (their strings and comments, CSS `content:` among them), the contents of
// elements that are never rendered (template, noscript, title, svg, xml …), iframe srcdoc (parsed as
// HTML again, to a bounded depth), CDATA sections, processing instructions and declarations.
// text.ts htmlToText reads the rendered view (visible and hidden text, comments); this reads the rest.
// One linear pass per level (indexOf scans and character loops; no backtracking expressions).
// An outside tester's finding: "Ignore all previous instructions …" in any of these places scored
// 0.05 and reached agents through body_html (docs/classifier.md "What is scanned").

import { decodeEntities, htmlToText, scanInvisible, stripTags, MAX_SCAN_CHARS } from './text.js';
import { scanInjection, type InjectionResult, type SenderStanding } from './injection.js';
import { QUARANTINE_THRESHOLD } from './quarantine.js';

/** Elements whose contents a mail client never renders (script and style are read as code, below). */
const UNRENDERED = new Set(['template', 'noscript', 'title', 'head', 'svg', 'xml']);
/** Elements read as code: only their string literals and comments are text. */
const CODE = new Set(['script', 'style']);
/** Attributes that hold a URL: read only when the URL is `javascript:`, `mailto:` or `data:text/…` (its text). */
const URL_ATTRS = new Set(['href', 'src', 'srcset', 'action', 'formaction', 'background', 'poster', 'cite', 'longdesc', 'codebase', 'usemap', 'manifest', 'ping', 'xlink:href', 'lowsrc', 'dynsrc']);
/** Attributes of layout and identity whose values are never prose (skipped whatever they hold). */
const NON_TEXT = new Set(['class', 'id', 'width', 'height', 'align', 'valign', 'bgcolor', 'color', 'border', 'cellpadding', 'cellspacing', 'colspan', 'rowspan', 'dir', 'lang', 'xml:lang', 'type', 'rel', 'target', 'charset', 'http-equiv', 'role', 'tabindex', 'face', 'size', 'frameborder', 'scrolling', 'marginwidth', 'marginheight', 'hspace', 'vspace', 'bordercolor', 'leftmargin', 'topmargin', 'link', 'vlink', 'alink', 'text', 'sizes', 'media', 'loading', 'decoding', 'crossorigin', 'integrity', 'referrerpolicy', 'nonce', 'sandbox', 'allow', 'method', 'enctype', 'for', 'headers', 'scope', 'span', 'start', 'shape', 'coords', 'cols', 'rows', 'maxlength', 'version', 'xmlns']);

/** Most srcdoc levels parsed as HTML; deeper srcdoc values are read with their tags dropped. */
export const MAX_SRCDOC_DEPTH = 3;
/** Most characters of agent-only text kept (the HTML part's own bound). */
export const MAX_AGENT_CHARS = MAX_SCAN_CHARS;

export interface AgentText {
  /** The pieces, each on a line of its own (a sentence boundary for the scan). */
  text: string;
  /** Where text was found: attribute, script, style, unrendered, srcdoc, cdata, processing-instruction, declaration. */
  places: string[];
  /** Text was left out at MAX_AGENT_CHARS (the caller fails the message closed). */
  cut: boolean;
}

const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/**
 * Text worth reading: at least six letters, and either two words (a letter, whitespace, a letter)
 * or a script written without spaces (CJK, Thai …). Tokens, colours, ids and numbers are not.
 */
export function proseLike(s: string): boolean {
  let letters = 0;
  let words = false;
  let wide = false;
  let prevLetter = false;
  let gap = false; // whitespace after a letter
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const letter = isAsciiLetter(c) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7 && !isSpace(c) && !(c >= 0x2000 && c <= 0x206f) && !(c >= 0x3000 && c <= 0x303f));
    if (letter) {
      letters++;
      if (c >= 0x2e80) wide = true;
      if (gap) words = true;
      prevLetter = true;
      gap = false;
    } else if (isSpace(c)) {
      if (prevLetter) gap = true;
      prevLetter = false;
    } else {
      prevLetter = false;
      if (c !== 39 && c !== 45 && c !== 44 && c !== 46 && c !== 58 && c !== 33 && c !== 63) gap = false;
    }
    if (letters >= 6 && (words || wide)) return true;
  }
  return false;
}

/** A URL attribute's readable text: the body of a javascript:, mailto: or data:text URL, percent-decoded. */
function urlText(v: string): string {
  const t = v.trimStart().slice(0, 16).toLowerCase();
  if (!t.startsWith('javascript:') && !t.startsWith('mailto:') && !t.startsWith('data:text')) return '';
  let s = v.replace(/\+/g, ' ');
  try {
    s = decodeURIComponent(s);
  } catch {
    s = s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return s.replace(/[?&=]/g, ' ');
}

/**
 * String literals and comments of script or CSS code: `"…"`, `'…'`, `` `…` ``, `// …` and `/* … *\/`
 * (a heuristic lexer: a regular expression literal may be read as a string, which only reads more).
 * Linear: each character is looked at once.
 */
export function codeStrings(code: string, out: string[]): void {
  const n = code.length;
  let i = 0;
  while (i < n) {
    const c = code.charCodeAt(i);
    if (c === 34 || c === 39 || c === 96) {
      let j = i + 1;
      let piece = '';
      let from = j;
      while (j < n) {
        const d = code.charCodeAt(j);
        if (d === 92 /* \ */) {
          piece += code.slice(from, j);
          j += 2;
          from = j;
          continue;
        }
        if (d === c || ((d === 10 || d === 13) && c !== 96)) break;
        j++;
      }
      piece += code.slice(from, Math.min(j, n));
      if (proseLike(piece)) out.push(piece);
      i = j + 1;
      continue;
    }
    if (c === 47 /* / */ && i + 1 < n) {
      const d = code.charCodeAt(i + 1);
      if (d === 42 /* * */) {
        const end = code.indexOf('*/', i + 2);
        const piece = code.slice(i + 2, end < 0 ? n : end);
        if (proseLike(piece)) out.push(piece);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (d === 47) {
        let j = i + 2;
        while (j < n && code.charCodeAt(j) !== 10 && code.charCodeAt(j) !== 13) j++;
        const piece = code.slice(i + 2, j);
        if (proseLike(piece)) out.push(piece);
        i = j;
        continue;
      }
    }
    i++;
  }
}

/** The attributes of a start tag's inside (after its name), as [name, raw value] pairs. Linear. */
export function attributesOf(s: string): [string, string][] {
  const out: [string, string][] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(s.charCodeAt(i)) || s.charCodeAt(i) === 47)) i++;
    const start = i;
    while (i < n && !isSpace(s.charCodeAt(i)) && s.charCodeAt(i) !== 61 /* = */ && s.charCodeAt(i) !== 47) i++;
    if (i === start) {
      i++;
      continue;
    }
    const name = s.slice(start, i).toLowerCase();
    let j = i;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    if (j >= n || s.charCodeAt(j) !== 61) {
      out.push([name, '']);
      continue;
    }
    j++;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    const q = s.charCodeAt(j);
    if (q === 34 || q === 39) {
      const end = s.indexOf(q === 34 ? '"' : "'", j + 1);
      out.push([name, s.slice(j + 1, end < 0 ? n : end)]);
      i = end < 0 ? n : end + 1;
    } else {
      let k = j;
      while (k < n && !isSpace(s.charCodeAt(k))) k++;
      out.push([name, s.slice(j, k)]);
      i = k;
    }
  }
  return out;
}

/**
 * The end of a start tag that begins at `lt` ('<'): the first '>' outside a quoted attribute value
 * (a value may hold '>': `title="a > b"`, and a srcdoc holds whole tags when written with quotes
 * only). -1 when the tag does not end. Linear.
 */
function tagEnd(html: string, lt: number): number {
  const n = html.length;
  let q = 0;
  let eq = false; // the last non-space character was '='
  for (let i = lt + 1; i < n; i++) {
    const c = html.charCodeAt(i);
    if (q) {
      if (c === q) q = 0;
      continue;
    }
    if (c === 62) return i;
    if ((c === 34 || c === 39) && eq) {
      q = c;
      eq = false;
      continue;
    }
    if (c === 61) eq = true;
    else if (!isSpace(c)) eq = false;
  }
  return -1;
}

/** The agent-only text of an HTML part (see the top of this file); `html` is already bounded by the caller. */
export function agentOnlyText(html: string): AgentText {
  const pieces: string[] = [];
  const places = new Set<string>();
  const state = { chars: 0, cut: false };
  walk(html, 0, pieces, places, state);
  return { text: pieces.join('\n'), places: [...places], cut: state.cut };
}

function walk(html: string, depth: number, pieces: string[], places: Set<string>, state: { chars: number; cut: boolean }): void {
  const add = (place: string, raw: string) => {
    const t = raw.trim();
    if (!t || !proseLike(t)) return;
    if (state.chars + t.length > MAX_AGENT_CHARS) {
      state.cut = true;
      return;
    }
    pieces.push(t);
    state.chars += t.length + 1;
    places.add(place);
  };
  const n = html.length;
  let i = 0;
  // the innermost open element whose contents are not rendered (or are code): its name, or ''
  let inside = '';
  while (i < n && !state.cut) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      if (inside) add('unrendered', decodeEntities(html.slice(i)));
      break;
    }
    if (lt > i && inside && !CODE.has(inside)) add('unrendered', decodeEntities(html.slice(i, lt)));
    if (html.startsWith('<!--', lt)) {
      // comments are htmlToText's (hidden text); inside script or style they are code
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html.startsWith('<![CDATA[', lt)) {
      const end = html.indexOf(']]>', lt + 9);
      add('cdata', html.slice(lt + 9, end < 0 ? n : end));
      i = end < 0 ? n : end + 3;
      continue;
    }
    const c1 = html.charCodeAt(lt + 1);
    if (c1 === 63 /* ? */ || c1 === 33 /* ! */) {
      const end = html.indexOf('>', lt + 2);
      add(c1 === 63 ? 'processing-instruction' : 'declaration', decodeEntities(html.slice(lt + 2, end < 0 ? n : end).replace(/\?$/, '')));
      i = end < 0 ? n : end + 1;
      continue;
    }
    const closing = c1 === 47;
    let k = lt + (closing ? 2 : 1);
    const nameStart = k;
    while (k < n && (isAsciiLetter(html.charCodeAt(k)) || (k > nameStart && ((html.charCodeAt(k) >= 48 && html.charCodeAt(k) <= 57) || html.charCodeAt(k) === 45 || html.charCodeAt(k) === 58)))) k++;
    if (k === nameStart) {
      i = lt + 1;
      continue;
    }
    const tag = html.slice(nameStart, k).toLowerCase();
    if (closing) {
      const end = html.indexOf('>', k);
      if (tag === inside) inside = '';
      i = end < 0 ? n : end + 1;
      continue;
    }
    const end = tagEnd(html, lt);
    const inner = html.slice(k, end < 0 ? n : end);
    i = end < 0 ? n : end + 1;
    for (const [name, rawValue] of attributesOf(inner)) {
      if (!rawValue || NON_TEXT.has(name) || name.startsWith('xmlns')) continue;
      const value = decodeEntities(rawValue);
      if (name === 'srcdoc') {
        places.add('srcdoc');
        if (depth + 1 < MAX_SRCDOC_DEPTH) {
          const h = htmlToText(value);
          add('srcdoc', h.visible);
          add('srcdoc', h.hidden);
          walk(value, depth + 1, pieces, places, state);
        } else add('srcdoc', stripTags(value));
        continue;
      }
      if (name === 'style') {
        const strings: string[] = [];
        codeStrings(value, strings);
        for (const s of strings) add('style', s);
        continue;
      }
      if (name.startsWith('on')) {
        // event handlers are script
        const strings: string[] = [];
        codeStrings(value, strings);
        for (const s of strings) add('script', s);
        add('script', value);
        continue;
      }
      if (URL_ATTRS.has(name)) {
        add('attribute', urlText(value));
        continue;
      }
      // img alt is rendered text already (htmlToText)
      if (name === 'alt' && tag === 'img') continue;
      add('attribute', value);
    }
    if (CODE.has(tag)) {
      // the code runs to its end tag, whatever it holds (</script> ends it, as in a browser)
      const close = indexOfCi(html, '</' + tag, i);
      const code = html.slice(i, close < 0 ? n : close);
      const strings: string[] = [];
      codeStrings(code, strings);
      // CSS `content: "…"` is a string too; JSON-LD and other data blocks are strings and keys
      for (const s of strings) add(tag, s);
      i = close < 0 ? n : close;
      continue;
    }
    if (inside) continue;
    if (UNRENDERED.has(tag) && inner.charCodeAt(inner.length - 1) !== 47) inside = tag;
  }
}

/** `hay.toLowerCase().indexOf(needle, from)` for an ASCII lower-case needle, without copying. */
function indexOfCi(hay: string, needle: string, from: number): number {
  const first = needle.charCodeAt(0);
  for (let i = hay.indexOf(String.fromCharCode(first), from); i >= 0; i = hay.indexOf(String.fromCharCode(first), i + 1)) {
    let ok = true;
    for (let k = 1; k < needle.length && ok; k++) {
      const c = hay.charCodeAt(i + k);
      ok = (c >= 65 && c <= 90 ? c + 32 : c) === needle.charCodeAt(k);
    }
    if (ok) return i;
  }
  return -1;
}

/**
 * What the agent-only text's own scan must reach to count. Every marketing mail has titles, scripts
 * and styles: their text is scanned as text of its own, and raises the message (reporting
 * `hidden_content`: a reader of the mail does not see it) only when that scan reaches this — above
 * what one weak rule gives alone (0.45–0.55: "this easy-to-use visual tool" in a link title read as
 * `tool_invocation`, 0.52–0.58 for 19 of SpamAssassin's 187 HTML ham at 0.5). An override (0.9), the
 * stronger rules, a privileged request with the model's support, or the model alone above 0.6 count.
 */
export const AGENT_TEXT_COUNTS = 0.6;

/**
 * `inj` (the scan of a message's bodies) with the agent-only text of its HTML part scanned as hidden
 * text: when that scan reaches AGENT_TEXT_COUNTS the message takes its score, its categories (with
 * `hidden_content`) and its requested actions. Agent-only text past MAX_AGENT_CHARS fails closed.
 */
export function withAgentText(inj: InjectionResult, html: string, sender: SenderStanding): InjectionResult {
  if (!html || html.indexOf('<') < 0) return inj;
  const agent = agentOnlyText(html);
  if (!agent.text) return inj;
  const inv = scanInvisible(agent.text);
  // Read as text in view, not as hidden text: hidden text's rules weigh ×1.1 and any rule there lifts
  // it to 0.9 (a weak tool rule on a link title, "this easy-to-use visual tool", quarantined 30 of 187
  // HTML ham of SpamAssassin's that way), and any hidden text gets a floor for being there. Tag
  // characters and zero-width characters count as in any text.
  const other = scanInjection({ subject: '', visible: inv.clean, hidden: inv.tagText, hiddenTechniques: agent.places, zeroWidth: inv.zeroWidth, bidi: inv.bidi, tagChars: inv.tagText.length, sender });
  let out = inj;
  if (other.score >= AGENT_TEXT_COUNTS && other.score > inj.score) {
    const categories = [...new Set([...inj.categories, ...other.categories, 'hidden_content' as const])];
    const actions = [...inj.actions];
    const actionText = [...inj.actionText];
    other.actions.forEach((a, i) => {
      if (actions.includes(a)) return;
      actions.push(a);
      actionText.push(other.actionText[i] ?? '');
    });
    out = { ...inj, score: other.score, categories, actions, actionText, hiddenChars: inj.hiddenChars + other.hiddenChars };
  }
  if (agent.cut) out = { ...out, score: Math.max(out.score, QUARANTINE_THRESHOLD), categories: out.categories.includes('hidden_content') ? out.categories : [...out.categories, 'hidden_content'] };
  return out;
}
