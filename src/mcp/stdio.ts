import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import type { ApiCaller } from './tools.js';

/**
 * `mailagent mcp`: the server on stdin/stdout. stdout carries nothing but protocol messages (the
 * transport writes them); everything else goes to stderr. Resolves when the client closes stdin
 * (answers still in progress are written before the process exits) or `signal` aborts (Ctrl-C).
 */
export async function serveStdio(api: ApiCaller, opts: McpServerOptions & { signal?: AbortSignal }): Promise<void> {
  const server = createMcpServer(api, opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // When the client closes stdin (MCP spec: stdio shutdown), calls already in progress still
  // answer: nothing else holds the event loop, so the process exits once they have. Ctrl-C
  // closes the server at once, which aborts the calls in progress.
  opts.signal?.addEventListener('abort', () => void server.close(), { once: true });
  await Promise.race([closed, new Promise<void>((resolve) => process.stdin.once('end', resolve))]);
}
