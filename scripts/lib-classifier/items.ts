// Turning examples into model inputs exactly the way src/classifier reads
// them at run time (same lower-casing, windows, prefixes).
import { htmlToText, scanInvisible } from '../../src/classifier/text.js';
import { windows } from '../../src/classifier/injection.js';
import type { Example } from './data.js';
import type { TrainItem } from './lr.js';

export const SPAM_CHARS = 6000; // = DOC_CHARS in src/classifier/index.ts
export const COLD_CHARS = 6000; // = DOC_CHARS

export function docText(ex: Example): string {
  return ((ex.subject ? ex.subject + '\n' : '') + ex.text).toLowerCase();
}

/** Injection model items: ~1,000-char windows, as scanned at run time. */
export function injectionItems(ex: Example): TrainItem[] {
  const items: TrainItem[] = [];
  const meta = ex.meta ?? {};
  const html = typeof meta.html === 'string' ? meta.html : '';
  if (html) {
    const h = htmlToText(html);
    if (h.hidden) items.push({ text: h.hidden.toLowerCase(), label: ex.label });
    for (const [a, b] of windows(docText(ex)).slice(0, 4)) items.push({ text: docText(ex).slice(a, b), label: ex.label && !h.hidden ? ex.label : 0 });
    return items;
  }
  const t = scanInvisible(docText(ex)).clean;
  const attack = typeof meta.attack === 'string' ? meta.attack.toLowerCase() : '';
  if (ex.label === 1 && attack) {
    const i = t.indexOf(attack);
    if (i >= 0) {
      const a = Math.max(0, t.lastIndexOf(' ', Math.max(0, i - 350)));
      const b = Math.min(t.length, i + attack.length + 350);
      items.push({ text: t.slice(a, b), label: 1 });
      return items;
    }
  }
  const ws = windows(t);
  const keep = ex.label === 1 ? 3 : 6;
  for (const [a, b] of ws.slice(0, keep)) items.push({ text: t.slice(a, b), label: ex.label });
  return items;
}
