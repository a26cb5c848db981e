import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { MAX_LINE_BYTES, refuseLine, rpcError } from './guard.js';
import type { ApiCaller } from './tools.js';
import { neutralize } from '../contract/neutralize.js';
import type { ApiError } from '../contract/errors.js';

/**
 * A refusal made by the MCP server itself (the argument check) reached no daemon, so it has no
 * daemon request id: it gets its own, written with the refusal to stderr (the MCP client's server
 * log), so the id the model or user quotes points to a line, as an API request id does.
 */
function stdioRefusalId(tool: string, err: ApiError): string {
  const id = `req_mcp_${randomBytes(10).toString('hex')}`;
  process.stderr.write(`mailagent mcp: ${id}: ${tool} refused: ${err.code}: ${neutralize(err.message)}\n`);
  return id;
}

/**
 * `mailagent mcp`: the server on stdin/stdout. stdout carries nothing but protocol messages (the
 * transport writes them); everything else goes to stderr. Resolves when the client closes stdin
 * (answers still in progress are written before the process exits) or `signal` aborts (Ctrl-C).
 *
 * The SDK's StdioServerTransport reads and writes; in front of it, each line of stdin is checked
 * (guard.ts) and only well-formed messages reach it: a bad line is answered here through the same
 * transport's `send`, where the SDK would report it to `onerror` and answer nothing. A line longer
 * than MAX_LINE_BYTES is discarded as it streams (never buffered whole) and answered -32600; the
 * SDK's own read buffer, at 10 MiB, would instead close the whole session.
 */
export async function serveStdio(api: ApiCaller, opts: McpServerOptions & { signal?: AbortSignal }): Promise<void> {
  const server = createMcpServer(api, { refusalId: stdioRefusalId, ...opts });
  const lines = new PassThrough();
  const transport = new StdioServerTransport(lines, process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);

  const answer = (m: JSONRPCMessage) => void transport.send(m).catch(() => undefined);
  const take = (line: string) => {
    if (!line.trim()) return; // a blank line is no message
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    const refusal = refuseLine(text);
    if (refusal) answer(refusal);
    else lines.write(text + '\n');
  };
  const split = lineSplitter(take, () => answer(rpcError(null, ErrorCode.InvalidRequest,
    `Invalid Request: a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB was discarded unread (send attachments larger than that through POST /v1/messages).`)));
  const onData = (chunk: Buffer) => split(chunk);
  process.stdin.on('data', onData);
  process.stdin.once('error', (err) => lines.destroy(err));
  const ended = new Promise<void>((resolve) => process.stdin.once('end', () => {
    lines.end();
    resolve();
  }));
  // Ctrl-C or a transport close: stop reading stdin, so nothing holds the event loop.
  const stopReading = () => {
    process.stdin.off('data', onData);
    process.stdin.pause();
  };
  void closed.then(stopReading);

  // When the client closes stdin (MCP spec: stdio shutdown), calls already in progress still
  // answer: nothing else holds the event loop, so the process exits once they have. Ctrl-C
  // closes the server at once, which aborts the calls in progress.
  opts.signal?.addEventListener('abort', () => void server.close(), { once: true });
  await Promise.race([closed, ended]);
}

/**
 * Split a byte stream into lines (without the newline), holding at most `max` bytes of one line:
 * a longer line is dropped as it arrives and reported once, when its newline comes.
 */
export function lineSplitter(onLine: (line: string) => void, onTooLong: () => void, max = MAX_LINE_BYTES): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  return (chunk) => {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, nl);
      from = nl + 1;
      if (discarding || size + piece.length > max) {
        discarding = false;
        parts = [];
        size = 0;
        onTooLong();
        continue;
      }
      const line = parts.length ? Buffer.concat([...parts, piece]) : piece;
      parts = [];
      size = 0;
      onLine(line.toString('utf8'));
    }
    if (from < chunk.length && !discarding) {
      const rest = chunk.subarray(from);
      if (size + rest.length > max) {
        discarding = true;
        parts = [];
        size = 0;
      } else {
        // Copied: a stream may reuse the chunk's memory for the next read.
        parts.push(Buffer.from(rest));
        size += rest.length;
      }
    }
  };
}
