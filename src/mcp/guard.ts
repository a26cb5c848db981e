import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema, PingRequestSchema,
  type JSONRPCErrorResponse, type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '../contract/json-depth.js';

/**
 * Bad messages are answered, never dropped (JSON-RPC 2.0 §5.1), on both transports by this one
 * check, run in front of the SDK: the SDK's stdio transport reports a line it cannot read only to
 * `onerror` (without the line, so without its id) and answers nothing, so a client waiting on that id
 * hangs; and the SDK's request handlers read a request that fails its schema (`"arguments": "str"`)
 * as an internal error (-32603) whose message is a zod issue dump. Here:
 *
 * - not JSON → -32700 Parse error, `id: null`;
 * - JSON but not one JSON-RPC message (a batch, no `jsonrpc: "2.0"`, a bad id), or nested deeper than
 *   MAX_JSON_DEPTH → -32600 Invalid Request, with the message's id when it has a readable one;
 * - a request of a method this server handles whose params do not fit → -32602 Invalid params, with
 *   a sentence naming the field.
 *
 * Everything else goes to the SDK unchanged (an unknown method is its -32601).
 */

/** A stdio line longer than this is discarded unread and answered -32600 (the HTTP body cap, MCP_BODY_LIMIT, is the same 8 MiB). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
export { MAX_JSON_DEPTH };

/** The requests this server handles: each one's params are checked before the SDK sees them. */
const REQUESTS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Issue[] } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};
interface Issue { code: string; path: PropertyKey[]; message: string; expected?: string; keys?: string[] }

export function rpcError(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // JSON-RPC 2.0 §5: the id is null when it could not be read; the SDK's type has no null.
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message } };
}

/** The message's id when it has one the protocol allows (a string or an integer, as the SDK reads it), else null. */
function idOf(raw: unknown): RequestId | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' || Number.isInteger(id) ? (id as RequestId) : null;
}

const A: Record<string, string> = { record: 'a JSON object', object: 'a JSON object', string: 'a string', number: 'a number', int: 'an integer', boolean: 'true or false', array: 'an array' };
function kindOf(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
function at(raw: unknown, path: PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}
/** One zod issue as a sentence: "`params.arguments` must be a JSON object (got a string)". */
function sentence(raw: unknown, issue: Issue): string {
  const field = issue.path.map(String).join('.') || 'the message';
  const got = kindOf(at(raw, issue.path));
  if (issue.code === 'invalid_type' && issue.expected) {
    return got === 'missing' ? `\`${field}\` is missing (${A[issue.expected] ?? issue.expected})` : `\`${field}\` must be ${A[issue.expected] ?? issue.expected} (got ${got})`;
  }
  if (issue.code === 'unrecognized_keys' && issue.keys) return `\`${field}\` has unknown field(s) ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
  return `\`${field}\`: ${issue.message}`;
}

/** What makes a value no JSON-RPC 2.0 message, as precisely as a glance can tell. */
function whyNotJsonRpc(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `the message must be a JSON object (got ${kindOf(raw)})`;
  const m = raw as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return '`jsonrpc` must be "2.0"';
  if ('id' in m && !(typeof m.id === 'string' || Number.isInteger(m.id))) return `\`id\` must be a string or an integer (got ${kindOf(m.id)})`;
  if ('method' in m && typeof m.method !== 'string') return `\`method\` must be a string (got ${kindOf(m.method)})`;
  if ('params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) return `\`params\` must be a JSON object (got ${kindOf(m.params)})`;
  return 'not a JSON-RPC 2.0 message';
}

/**
 * The refusal for a parsed message, or null when it may go to the SDK. Shared by both transports
 * (stdio.ts per line, http.ts per POST body).
 */
export function refuseMessage(raw: unknown): JSONRPCErrorResponse | null {
  const id = idOf(raw);
  if (Array.isArray(raw)) return rpcError(null, ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches (arrays) are not supported; send one message at a time.');
  if (!JSONRPCMessageSchema.safeParse(raw).success) {
    return rpcError(id, ErrorCode.InvalidRequest, `Invalid Request: ${whyNotJsonRpc(raw)}. A request is {"jsonrpc": "2.0", "id": <string or integer>, "method": "...", "params": {...}}; a notification has no id.`);
  }
  const method = (raw as { method?: unknown }).method;
  const schema = typeof method === 'string' && id !== null ? REQUESTS[method] : undefined;
  if (!schema) return null;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return null;
  const issues = (parsed.error?.issues ?? []).slice(0, 3).map((i) => sentence(raw, i));
  return rpcError(id, ErrorCode.InvalidParams, `Invalid params for ${method}: ${issues.join('; ')}.`);
}

/** The refusal for one stdio line (without its newline), or null when the SDK may read it. */
export function refuseLine(line: string): JSONRPCErrorResponse | null {
  const tooDeep = jsonDepthExceeds(line, MAX_JSON_DEPTH);
  let raw: unknown;
  try {
    // V8's JSON.parse does not recurse, so even a too-deep line can be read for its id (the line is
    // at most MAX_LINE_BYTES); nothing else walks it.
    raw = JSON.parse(line);
  } catch (err) {
    if (tooDeep === null) return rpcError(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(err as Error).message}). Send one JSON-RPC message per line.`);
  }
  if (tooDeep !== null) {
    return rpcError(idOf(raw), ErrorCode.InvalidRequest, `Invalid Request: the message nests arrays/objects more than ${MAX_JSON_DEPTH} levels deep (at character ${tooDeep}); flatten it.`);
  }
  return refuseMessage(raw);
}
