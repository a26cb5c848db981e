import { Errors } from '../../shared/errors.js';

// The depth scan lives in the contract: the MCP stdio server (src/mcp) applies the same cap to each line.
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '../../contract/json-depth.js';

export { MAX_JSON_DEPTH, jsonDepthExceeds };

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

