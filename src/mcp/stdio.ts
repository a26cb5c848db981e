import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import type { ApiCaller } from './tools.js';

/**
 * `mailagent mcp`: the server on stdin/stdout. stdout carries nothing but protocol messages (the
 * transport writes them); everything else goes to stderr. Resolves when the client closes stdin
 * or `signal` aborts (Ctrl-C).
 */
export async function serveStdio(api: ApiCaller, opts: McpServerOptions & { signal?: AbortSignal }): Promise<void> {
  const server = createMcpServer(api, opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The transport does not watch for the end of stdin; a client that goes away closes it.
  const end = () => void server.close();
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  opts.signal?.addEventListener('abort', end, { once: true });
  await closed;
  process.stdin.off('end', end);
  process.stdin.off('close', end);
}
