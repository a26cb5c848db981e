import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { createClient } from '../client/index.js';
import { refuseMessage } from './guard.js';

/**
 * One Streamable HTTP request (MCP spec: Transports → Streamable HTTP), stateless: a fresh server
 * and transport per POST, no `Mcp-Session-Id`, nothing kept between requests. Every request is
 * authenticated on its own by the caller's Bearer key (the route does that before calling here),
 * which is what makes stateless the right fit: there is no session to hijack and nothing to expire.
 * Answers are plain JSON (`enableJsonResponse`): no tool streams partial results, so an SSE stream
 * per call would only hold a socket longer.
 */
export async function handleStreamableHttp(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  fetchApi: typeof fetch,
  opts: McpServerOptions,
): Promise<void> {
  // The same check as each stdio line (guard.ts), so both transports answer a bad message alike.
  // The daemon has parsed the body already (not JSON or nested too deep: its 400 envelope); a batch
  // (an array, MCP before 2025-06-18) is left to the SDK.
  const refusal = body === undefined || Array.isArray(body) ? null : refuseMessage(body);
  if (refusal) {
    // A message that is no request is the HTTP request's fault (400, as the SDK answers its own
    // parse errors); a request with bad params is an ordinary JSON-RPC error answer (200).
    res.writeHead(refusal.error.code === ErrorCode.InvalidParams ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(refusal));
    return;
  }
  // The tools call the API through the same client as over stdio; `fetchApi` decides where that goes
  // (the daemon passes an in-process fetch, so the host part of this URL is never resolved).
  const api = createClient({ baseUrl: 'http://mailagent.internal', fetch: fetchApi });
  const server = createMcpServer(api, opts);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // The client went away (or the answer is written): drop the server, which aborts the call's signal.
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
