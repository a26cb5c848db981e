/** How deep a JSON text nests, scanned without parsing it (the HTTP body parser and the MCP stdio server). */

/**
 * Deepest nesting of arrays/objects accepted in a JSON request body. No route's schema goes
 * deeper than 4 levels; 64 leaves room for free-form metadata while keeping every later
 * recursive walk (validation, the idempotency fingerprint, serialisation) far from the stack
 * limit. Documented in docs/security.md (HTTP bodies) and docs/mcp.md (stdio lines).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of a JSON text, or the position where it passes `max` (a linear scan with
 * no recursion, run before JSON.parse so `[` × 100,000 never reaches a recursive walk).
 * Brackets inside strings do not count; the text need not be valid JSON (JSON.parse judges that).
 * A string is skipped with indexOf to its closing quote (one not escaped by an odd run of
 * backslashes), not character by character: a 1 MB `body_html` is one string, and the main thread
 * reads it at memchr's speed instead of a JavaScript loop's (~1 ms, and tens of ms before the loop
 * is optimised: the first large body of a process).
 */
export function jsonDepthExceeds(text: string, max: number): number | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return null; // unterminated: JSON.parse refuses it
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

/** The index of the quote that closes a string whose text starts at `from`; -1: none. */
function closingQuote(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q >= 0; q = text.indexOf('"', q + 1)) {
    // Escaped when an odd number of backslashes precede it (`\\"` closes, `\\\"` does not).
    let b = q - 1;
    while (b >= from && text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q;
  }
  return -1;
}
