/** How deep a JSON text nests and how many items it holds, scanned without parsing it (the HTTP body parser and the MCP stdio server). */

/**
 * Deepest nesting of arrays/objects accepted in a JSON request body. No route's schema goes
 * deeper than 4 levels; 64 leaves room for free-form metadata while keeping every later
 * recursive walk (validation, the idempotency fingerprint, serialisation) far from the stack
 * limit. Documented in docs/security.md (HTTP bodies) and docs/mcp.md (stdio lines).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Array items and object members a JSON request body may hold in all (counted as the commas
 * between them). JSON.parse of an object of a million short members holds the thread for
 * seconds (measured: 1,000,000 metadata keys, 14 MB, 3 s at load 10), far under the 48 MiB body
 * cap. The largest legitimate body, a batch of 100 full sends, has ~26,000; a 48 MiB attachment
 * is one string. Documented in docs/security.md.
 */
export const MAX_JSON_ITEMS = 50_000;

/**
 * Where a JSON text passes `maxDepth` levels of arrays/objects or `maxItems` items (commas), or
 * null: a linear scan with no recursion, run before JSON.parse so `[` × 100,000 never reaches a
 * recursive walk and a million members never reach JSON.parse. Brackets and commas inside strings
 * do not count; the text need not be valid JSON (JSON.parse judges that).
 * A string is skipped with indexOf to its closing quote (one not escaped by an odd run of
 * backslashes), not character by character: a 1 MB `body_html` is one string, and the main thread
 * reads it at memchr's speed instead of a JavaScript loop's (~1 ms, and tens of ms before the loop
 * is optimised: the first large body of a process).
 */
export function jsonLimitExceeded(text: string, maxDepth: number, maxItems = Infinity): { limit: 'depth' | 'items'; at: number } | null {
  let depth = 0;
  let items = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return null; // unterminated: JSON.parse refuses it
      i = end;
    } else if (c === 0x2c) {
      if (++items > maxItems) return { limit: 'items', at: i };
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { limit: 'depth', at: i };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

/** The position where a JSON text nests past `max` levels, or null (jsonLimitExceeded on depth alone). */
export function jsonDepthExceeds(text: string, max: number): number | null {
  return jsonLimitExceeded(text, max)?.at ?? null;
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
