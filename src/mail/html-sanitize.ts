import { createRequire } from 'node:module';
import type SanitizeHtml from 'sanitize-html';

const require = createRequire(import.meta.url);

/**
 * sanitize-html (and htmlparser2 under it, ~2 MB of heap) loads on the first HTML view, not with
 * the daemon: most daemons never render one. CommonJS, so a synchronous require does it.
 */
let sanitizer: typeof SanitizeHtml | null = null;
const loadSanitizer = (): typeof SanitizeHtml => (sanitizer ??= require('sanitize-html') as typeof SanitizeHtml);

/**
 * Received HTML made safe to display (GET /v1/messages/received/{id}/html and the web inbox).
 * sanitize-html (htmlparser2 + an allowlist) does the work; no regexes over HTML here.
 *
 * What goes: scripts and their text, event handlers (every attribute not listed below), forms and
 * their controls, <style>/<link>/<meta>/<base>, iframes/objects, `javascript:` and every URL
 * scheme but http(s)/mailto on links, and any CSS property that can hide or move text (only
 * alignment, weight, style and decoration survive), so what is shown is what the classifier read.
 * Remote images are dropped unless asked for (a tracking pixel tells the sender the mail was
 * opened); `cid:` images of the message itself become data: URIs.
 *
 * This is the first fence; the page it goes into is the second (a sandboxed iframe, no scripts,
 * CSP `default-src 'none'`).
 */

/** HTML longer than this is cut before sanitising (CPU per request is bounded; the raw source has it all). */
export const MAX_SANITIZED_HTML = 2 * 1024 * 1024;

export interface SanitizeOptions {
  remoteImages: boolean;
  /** Content-ID (without angle brackets) → data: URI, for inline images of the message. */
  inline?: Map<string, string>;
}

export interface SanitizedHtml {
  html: string;
  /** Remote images removed (0 when remoteImages is true). */
  blockedImages: number;
  truncated: boolean;
}

const ALIGN = [/^(left|right|center|justify|start|end)$/i];
const SAFE_STYLES: SanitizeHtml.IOptions['allowedStyles'] = {
  '*': {
    'text-align': ALIGN,
    'font-weight': [/^(bold|bolder|lighter|normal|[1-9]00)$/i],
    'font-style': [/^(italic|normal|oblique)$/i],
    'text-decoration': [/^(underline|line-through|overline|none)$/i],
  },
};

/**
 * Characters that make displayed text lie about its order or hide text altogether: the Unicode
 * bidi embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069: "Trojan Source",
 * CVE-2021-42574, an "evil subject" shown as "tcejbus live") and the U+E0000 tag block (text
 * invisible to a reader but read by a model). In sanitised HTML each is shown as a visible
 * `<U+202E>` marker, the notation of the CLI (src/cli/output.ts) and of the inbox's own text
 * (src/web/app.js). Invisible spacing (zero-width space, soft hyphen, LRM/RLM) reorders nothing
 * and is common in newsletters and right-to-left mail: it stays (the Text tab marks it).
 */
const REORDERING = /[\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]/g;
const marker = (m: string) => `<U+${m.codePointAt(0)!.toString(16).toUpperCase()}>`;
/** Text nodes reach sanitize-html's textFilter escaped, and what it returns is inserted as HTML. */
const markReordering = (text: string) => text.replace(REORDERING, (m) => marker(m).replace('<', '&lt;').replace('>', '&gt;'));
/** Attribute values shown to a reader (a link's title, an image's alt); sanitize-html escapes them on output. */
function markShownAttributes(attribs: Record<string, string>): Record<string, string> {
  const out = { ...attribs };
  for (const k of ['title', 'alt']) if (out[k] !== undefined) out[k] = out[k].replace(REORDERING, marker);
  return out;
}

export function sanitizeMailHtml(input: string, opts: SanitizeOptions): SanitizedHtml {
  const truncated = input.length > MAX_SANITIZED_HTML;
  let blockedImages = 0;
  const sanitizeHtml = loadSanitizer();
  const html = sanitizeHtml(truncated ? input.slice(0, MAX_SANITIZED_HTML) : input, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'center', 'font', 'del', 'ins'],
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      table: ['width', 'border', 'cellpadding', 'cellspacing', 'align'],
      td: ['colspan', 'rowspan', 'align', 'valign', 'width'],
      th: ['colspan', 'rowspan', 'align', 'valign', 'width', 'scope'],
      col: ['span', 'width'],
      colgroup: ['span', 'width'],
      ol: ['start', 'type', 'reversed'],
      '*': ['style', 'dir', 'lang', 'align'],
    },
    allowedStyles: SAFE_STYLES,
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['data', 'http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'template', 'select', 'head', 'object', 'iframe'],
    textFilter: markReordering,
    transformTags: {
      // <bdo dir="rtl"> reverses the letters it holds, as U+202E does: shown in their real order.
      bdo: () => ({ tagName: 'span', attribs: {} }),
      // Links leave the sandbox in a new browsing context, without a referrer or an opener.
      a: (tagName, attribs) => ({ tagName, attribs: { ...markShownAttributes(attribs), target: '_blank', rel: 'noopener noreferrer' } }),
      img: (tagName, attribs) => {
        const src = (attribs.src ?? '').trim();
        const out = markShownAttributes(attribs);
        if (/^cid:/i.test(src)) {
          const data = opts.inline?.get(decodeURIComponent(src.slice(4)).replace(/^<|>$/g, ''));
          if (data) out.src = data;
          else delete out.src;
        } else if (/^https?:/i.test(src) && !opts.remoteImages) {
          blockedImages++;
          delete out.src;
          out.alt = `[remote image blocked${out.alt ? `: ${out.alt}` : ''}]`;
        } else if (/^data:/i.test(src) ? !/^data:image\/(png|gif|jpeg|webp);/i.test(src) : !/^https?:/i.test(src)) {
          // data:image/svg+xml can carry script, other data: is not an image, and a relative URL
          // would point into this server.
          delete out.src;
        }
        return { tagName, attribs: out };
      },
    },
  });
  return { html, blockedImages, truncated };
}

/**
 * The page served for a sanitised body. Its own CSP repeats the sandbox, so the page stays inert
 * even when opened outside the inbox's iframe: no script, no form, no plugin, no fetch; images
 * only inline (or from the web when remote images were asked for); never framed by another site.
 */
export function mailHtmlPage(body: SanitizedHtml, remoteImages: boolean): { html: string; csp: string } {
  const csp = [
    "default-src 'none'",
    `img-src data:${remoteImages ? ' https: http:' : ''}`,
    "style-src 'unsafe-inline'",
    "font-src data:",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
  const note = body.truncated ? '<p class="ma-note">This HTML was cut at 2 MiB for display; the raw source has all of it.</p>' : '';
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">`
    + `<meta name="color-scheme" content="light">`
    + `<style>body{margin:12px;font:14px/1.5 system-ui,sans-serif;color:#111;background:#fff;word-wrap:break-word}`
    + `img{max-width:100%;height:auto}.ma-note{color:#664;font-size:12px}</style></head>`
    + `<body>${body.html}${note}</body></html>`;
  return { html, csp };
}
