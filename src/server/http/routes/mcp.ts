import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ApiError } from '../../../contract/errors.js';
import { Errors, INVALID_JSON } from '../../../shared/errors.js';
import type { AppContext } from '../../../services/context.js';
import { authenticate } from '../../../services/auth.js';

/**
 * The MCP server over Streamable HTTP at `/mcp` (docs/mcp.md). Caps, per daemon:
 * - a request body of at most MCP_BODY_LIMIT (413 body_too_large past it; attachments sent
 *   through a tool count against it),
 * - MCP_MAX_CONCURRENT requests in progress at once, MCP_MAX_CONCURRENT_PER_KEY of them per key
 *   (429 rate_limit_exceeded past either; a mails.wait_for_message call holds one for up to 55 s),
 * - no sessions (stateless transport), so nothing else is held between requests.
 */
export const MCP_PATH = '/mcp';
export const MCP_BODY_LIMIT = 8 * 1024 * 1024;
export const MCP_MAX_CONCURRENT = 64;
export const MCP_MAX_CONCURRENT_PER_KEY = 8;

type InjectApp = Pick<FastifyInstance, 'inject'>;

/**
 * A `fetch` that runs the request through the same fastify app in-process (`inject`), with the
 * MCP caller's own Authorization header: every tool call is a REST call — same auth, scopes,
 * agent binding, validation, limits, request log and error envelope — without a loopback socket.
 * An aborted call stops waiting for the answer; the route itself then runs to its own end (a
 * long-poll ends at its timeout, at most 60 s), since inject cannot cancel a request.
 */
export function injectFetch(app: InjectApp, authorization: string, remoteAddress: string | undefined): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined), authorization, 'user-agent': 'mailagent-mcp' };
    const signal = init.signal ?? undefined;
    const aborted = () => Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
    if (signal?.aborted) throw aborted();
    const res = await new Promise<Awaited<ReturnType<InjectApp['inject']>>>((resolve, reject) => {
      const onAbort = () => reject(aborted());
      signal?.addEventListener('abort', onAbort, { once: true });
      app.inject({ method: method as 'GET', url: url.pathname + url.search, headers, payload: init.body as string | undefined, remoteAddress })
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
    const h = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) h.append(k, String(item));
    }
    const empty = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: h });
  };
}

export function registerMcpRoutes(app: FastifyInstance, ctx: AppContext): void {
  let inFlight = 0;
  const perKey = new Map<string, number>();
  const open = new Set<ServerResponse>();
  // Shutdown: end the MCP requests still in progress (a wait would otherwise hold the drain).
  app.addHook('preClose', async () => {
    for (const res of open) res.destroy();
  });

  app.post(MCP_PATH, {
    bodyLimit: MCP_BODY_LIMIT,
    // A body that is not JSON is JSON-RPC's Parse error (-32700, JSON-RPC 2.0 §5.1; the MCP
    // Streamable HTTP transport answers it with HTTP 400), not the REST envelope. Anything else
    // goes on to the API's error handler (thrown from here, Fastify hands it to the parent's).
    errorHandler: (err: FastifyError | ApiError, req, reply) => {
      const unparsable = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
        (err instanceof ApiError && err.message.startsWith(INVALID_JSON));
      if (unparsable) {
        const why = err.message.startsWith(INVALID_JSON) ? err.message.slice(INVALID_JSON.length).trim() : err.message;
        reply.code(400).header('x-request-id', String(req.id)).type('application/json')
          .send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: the request body is not valid JSON (${why}).` } });
        return;
      }
      throw err;
    },
    // Refuse without a valid key before the body is read (like every API route), with the envelope.
    onRequest: async (req, reply) => {
      try {
        (req as FastifyRequest & { mcpKey?: string }).mcpKey = (await authenticate(ctx, req.headers.authorization)).keyId;
      } catch (err) {
        // RFC 6750 §3: a 401 names the scheme the resource expects.
        if (err instanceof ApiError && err.status === 401) reply.header('www-authenticate', 'Bearer realm="mailagent"');
        throw err;
      }
    },
  }, async (req, reply) => {
    const keyId = (req as FastifyRequest & { mcpKey?: string }).mcpKey ?? '';
    const mine = perKey.get(keyId) ?? 0;
    if (inFlight >= MCP_MAX_CONCURRENT || mine >= MCP_MAX_CONCURRENT_PER_KEY) {
      const which = inFlight >= MCP_MAX_CONCURRENT ? `the daemon's ${MCP_MAX_CONCURRENT}` : `this key's ${MCP_MAX_CONCURRENT_PER_KEY}`;
      throw Errors.limit('rate_limit_exceeded', `Too many MCP requests in progress (${which} at once); retry when one has finished.`, { resetsAt: null, retryAfterSeconds: 1 });
    }
    inFlight++;
    perKey.set(keyId, mine + 1);
    const res = reply.raw;
    open.add(res);
    res.once('close', () => {
      inFlight--;
      const n = (perKey.get(keyId) ?? 1) - 1;
      if (n <= 0) perKey.delete(keyId);
      else perKey.set(keyId, n);
      open.delete(res);
    });
    // The transport writes the answer itself on the raw response.
    reply.hijack();
    res.setHeader('x-request-id', String(req.id));
    // Loaded on the first MCP request: the SDK stays out of the daemon's start-up.
    const { handleStreamableHttp } = await import('../../../mcp/http.js');
    try {
      await handleStreamableHttp(req.raw, res, req.body, injectFetch(app, String(req.headers.authorization), req.ip), {
        version: ctx.config.version,
        refusalId: () => String(req.id),
        log: (message, err) => ctx.log.error({ err, request_id: req.id }, `mcp: ${message}`),
      });
    } catch (err) {
      ctx.log.error({ err, request_id: req.id }, 'mcp: transport failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(Errors.internal().toEnvelope(String(req.id))));
      else res.end();
    }
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE). MCP spec:
  // Streamable HTTP → a server without a GET stream answers 405.
  const notHere = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    reply.header('allow', 'POST');
    const err = Errors.methodNotAllowed(req.method, MCP_PATH, ['POST']);
    return reply.code(err.status).send(err.toEnvelope(String(req.id)));
  };
  app.get(MCP_PATH, notHere);
  app.delete(MCP_PATH, notHere);
}
