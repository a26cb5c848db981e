import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { createClient } from '../client/index.js';

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
