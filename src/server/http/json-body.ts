import { isUtf8 } from 'node:buffer';
import { Errors } from '../../shared/errors.js';

// The scan lives in the contract: the MCP stdio server (src/mcp) applies the same depth cap to each line.
import { MAX_JSON_DEPTH, MAX_JSON_ITEMS, jsonDepthExceeds, jsonLimitExceeded } from '../../contract/json-depth.js';

export { MAX_JSON_DEPTH, MAX_JSON_ITEMS, jsonDepthExceeds, jsonLimitExceeded };

/**
 * The `charset` parameter of a JSON Content-Type, when it names anything but UTF-8, is a 400:
 * JSON is UTF-8 (RFC 8259 §8.1), and decoding `charset=latin1` bytes as UTF-8 would store other
 * text than the client meant. Absent, `utf-8` and `utf8` (any case, quoted or not) pass.
 */
export function checkJsonCharset(contentType: string | undefined): void {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  if (!m || /^utf-?8$/i.test(m[2])) return;
  throw Errors.invalidField('Content-Type', `charset=${m[2]} is not supported: JSON bodies are UTF-8 (RFC 8259); send the text UTF-8 encoded with Content-Type: application/json (or application/json; charset=utf-8).`);
}

/** A JSON body's text; bytes that are not UTF-8 are a 400 (at simdutf's speed: ~10 ms for 48 MB). */
export function jsonBodyText(body: Buffer): string {
  if (!isUtf8(body)) throw Errors.invalidJson('its bytes are not UTF-8 (RFC 8259 requires it); send the text UTF-8 encoded');
  return body.toString('utf8');
}

/** A JSON body's bytes → its value (jsonBodyText, then parseJsonBody); the body worker's whole job on a small body. */
export function parseJsonBytes(body: Buffer): unknown {
  return parseJsonBody(jsonBodyText(body));
}

/** Parse a JSON request body: empty means absent; too deep, too many items or malformed is a 400 envelope. */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH, maxItems = MAX_JSON_ITEMS): unknown {
  if (!text.trim()) return undefined;
  const over = jsonLimitExceeded(text, maxDepth, maxItems);
  if (over?.limit === 'depth') {
    throw Errors.invalidField('body', `The request body nests arrays/objects more than ${maxDepth} levels deep (at character ${over.at}); flatten it.`);
  }
  if (over) {
    throw Errors.invalidField('body', `The request body holds more than ${maxItems.toLocaleString('en-US')} array items and object members in all (at character ${over.at}); send fewer values (metadata takes at most 50 keys) or split the request.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Errors.invalidJson((err as Error).message);
  }
}
