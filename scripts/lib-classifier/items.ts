// Turning examples into model inputs exactly the way src/classifier reads
// them at run time (same lower-casing, windows, prefixes).
import type { Example } from './data.js';

export const SPAM_CHARS = 6000; // = DOC_CHARS in src/classifier/index.ts
export const COLD_CHARS = 6000; // = DOC_CHARS

export function docText(ex: Example): string {
  return ((ex.subject ? ex.subject + '\n' : '') + ex.text).toLowerCase();
}
