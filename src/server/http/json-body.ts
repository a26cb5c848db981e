import { Errors } from '../../shared/errors.js';

/**
 * Deepest nesting of arrays/objects accepted in a JSON request body. No route's schema goes
 * deeper than 4 levels; 64 leaves room for free-form metadata while keeping every later
 * recursive walk (validation, the idempotency fingerprint, serialisation) far from the stack
 * limit. Documented in docs/security.md.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of a JSON text, or the position where it passes `max` (a linear scan with
 * no recursion, run before JSON.parse so `[` × 100,000 never reaches a recursive walk).
 * Brackets inside strings do not count; the text need not be valid JSON (JSON.parse judges that).
 */
export function jsonDepthExceeds(text: string, max: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

/** Parse a JSON request body: empty means absent; too deep or malformed is a 400 envelope. */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (!text.trim()) return undefined;
  const at = jsonDepthExceeds(text, maxDepth);
  if (at !== null) {
    throw Errors.invalidField('body', `The request body nests arrays/objects more than ${maxDepth} levels deep (at character ${at}); flatten it.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Errors.invalidJson((err as Error).message);
  }
}

