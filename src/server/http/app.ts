import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyError } from 'fastify';
import { ApiError } from '../../contract/errors.js';
import { omitAbsent } from '../../contract/common.js';
import { routes, type RouteId } from '../../contract/routes.js';
import type { RouteDef } from '../../contract/route.js';
import { Errors } from '../../shared/errors.js';
import { monotonicPart } from '../../shared/ids.js';
import type { AppContext, AuthContext, WriteAnnouncement } from '../../services/context.js';
import { recordRequest } from '../../services/request-log.js';
import { authorize, requireUnbound } from '../../services/auth.js';
import { authenticateRequest, authenticateRequestCached } from './web-auth.js';
import { registerWebInbox } from './routes/web.js';
import { closeEventStreams } from '../../services/event-stream.js';
import { billingPageUrl } from '../../services/usage.js';
import { noteAuthFailure } from '../../services/auth-failures.js';
import { compileValidator, validationToApiError, warmValidators } from './validation.js';
import { allHandlers } from './routes/index.js';
import type { Handler } from './handler.js';
import { runSendRoute } from './send-route.js';
import { BodyBudget, BodyWorker, admitBody, bodyTooLarge, jsonBodyParser, releaseBody } from './body-worker.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerOpsRoutes } from './ops-routes.js';
import { DiskGuard, type DiskState, type Ops } from '../ops/index.js';
import { clientErrorHandler } from './client-error.js';
import { forSerializer } from './serializer-schema.js';
import { RouteSuggester } from './route-suggest.js';
import { redactUrl, requestForLog } from './log-redact.js';
import { DEFAULT_LIMITS } from '../config.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
// Bodies the API refuses before reading them: forms, and text/plain (fastify would hand the route
// a string, and the caller would read "must be a JSON object" of a valid JSON text).
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

/** The HTTP app, as the daemon holds it (fastify stays inside server/http: DESIGN.md dependency rule). */
export type HttpApp = FastifyInstance;

export interface BuildAppOptions {
  /** pino options, or false for silence (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Trust X-Forwarded-For (behind a reverse proxy). */
  /** Reverse proxies (CIDRs) whose X-Forwarded-* headers are believed; none by default (config trustedProxies). */
  trustProxy?: readonly string[];
  /** Metrics, readiness and the low-disk guard (server/ops); absent in most app-level tests. */
  ops?: Ops;
  /** fastify's two lines per request (default on); the daemon keeps them for --log-level debug. */
  requestLogging?: boolean;
  /** Bytes of request bodies read or parsed at once, all requests (config httpMaxBufferedBodyBytes; body-worker.ts). */
  maxBufferedBodyBytes?: number;
}

/**
 * Routes whose large base64 attachments are decoded off the main thread (body-lift.ts): the sends'
 * own bodies, read by services/send.ts, and a draft's create and edit, read by services/drafts.ts
 * (which stores those attachments as blobs).
 */
const LIFTED_ROUTES = new Set(['messages.create', 'messages.batch', 'messages.reply', 'messages.forward', 'drafts.create', 'drafts.update']);

const V1 = '/v1';
/** Where an authenticated API route's onRequest notes its path template for onResponse. */
const ROUTE = Symbol('route');
type RoutedRequest = FastifyRequest & { auth?: AuthContext; [ROUTE]?: string };
const API_V1_ALIAS = /^\/api\/v1(\/|\?|$)/;

/** fastify path (`/agents/:id`) → a matcher, for telling 405 from 404. */
function pathMatcher(path: string): RegExp {
  return new RegExp('^' + path.replace(/:[^/]+/g, '[^/]+') + '/?$');
}

/** The validators each app's routes left to compile on their first request (server/http/validation.ts). */
const coldValidators = new WeakMap<FastifyInstance, (() => void)[]>();

/**
 * Compile an app's route validators in the background, one per turn of the event loop, so that no
 * route's first request pays for it (the daemon calls it once it listens; validation.ts
 * warmValidators).
 */
export function warmUpApp(app: FastifyInstance, afterMs?: number): { done: Promise<number>; stop(): void } {
  return warmValidators(coldValidators.get(app) ?? [], afterMs);
}

/** Build the HTTP app on a context; no listen (the daemon and the tests decide that). */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Request lines (debug) and error lines carry the URL with its secrets redacted (log-redact.ts).
    logger: opts.logger
      ? { ...(opts.logger === true ? {} : opts.logger), serializers: { ...((opts.logger as { serializers?: object }).serializers), req: requestForLog } }
      : false,
    logController: new LogController({ disableRequestLogging: opts.requestLogging === false }),
    // Only the configured proxies' X-Forwarded-* headers are believed (req.ip, req.protocol).
    trustProxy: opts.trustProxy?.length ? [...opts.trustProxy] : false,
    genReqId: () => `req_${monotonicPart(Date.now())}`,
    requestIdHeader: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Our own onRequest hook answers 503 during shutdown, with the envelope (fastify's own 503 has none).
    return503OnClosing: false,
    // Parser failures (before any route or hook) still get the envelope and X-Request-Id.
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // compat.md: the hosted SDKs call /api/v1/...; both prefixes serve the same routes.
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      return API_V1_ALIAS.test(url) ? url.slice('/api'.length) : url;
    },
    // Failures fastify answers before any hook runs (a path that is not valid percent-encoding, a
    // path segment over maxParamLength) still get the envelope and X-Request-Id.
    frameworkErrors: (error, req, reply) => {
      const err = error.code === 'FST_ERR_BAD_URL'
        ? Errors.invalidParam('path', 'The request path is not valid URL encoding.')
        : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? Errors.invalidParam('path', 'A path segment is longer than 500 characters.')
          : Errors.internal();
      const r = reply as unknown as FastifyReply;
      r.header('x-request-id', req.id).code(err.status).type('application/json').send(err.toEnvelope(String(req.id)));
    },
  });

  let closing = false;
  // Large JSON bodies: admitted against one budget, parsed off the main thread (body-worker.ts).
  const bodyWorker = new BodyWorker(ctx.log);
  const bodyBudget = new BodyBudget(opts.maxBufferedBodyBytes ?? DEFAULT_LIMITS.httpMaxBufferedBodyBytes);
  app.addHook('preClose', async () => {
    closing = true;
    closeEventStreams(ctx); // open SSE streams would otherwise hold server.close() forever
  });
  app.addHook('onClose', async () => bodyWorker.close());

  const cold: (() => void)[] = [];
  coldValidators.set(app, cold);
  app.setValidatorCompiler(({ schema, httpPart }) => compileValidator(schema as object, httpPart, cold));

  const ops = opts.ops;
  if (ops) registerOpsRoutes(app, ops);

  // The hooks every request runs are synchronous and callback-style: an async hook costs a
  // promise and a microtask turn per request.

  // Every response carries the request id (spec: X-Request-Id equals error.request_id).
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (closing) {
      reply.header('connection', 'close');
      return done(Errors.serviceUnavailable('The daemon is shutting down; retry in a moment.'));
    }
    done();
  });

  // Metrics, and the request log (GET /v1/logs?category=request): every authenticated request,
  // once answered.
  app.addHook('onResponse', (req, reply, done) => {
    // An API route's own onRequest noted its path template (`routeOf`); fastify's routeOptions
    // getter builds a dozen-field object per call.
    const route = (req as RoutedRequest)[ROUTE] ?? req.routeOptions.url;
    releaseBody(req);
    const ms = reply.elapsedTime;
    const status = reply.statusCode;
    ops?.metrics.http(req.method, route ?? 'unmatched', status, ms / 1000);
    const auth = (req as RoutedRequest).auth;
    if (auth) recordRequest(ctx, { auth, method: req.method, url: req.url, route: route ?? null, status, requestId: String(req.id), clientAddress: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, durationMs: ms });
    done();
  });

  // Real clients send Content-Type: application/json with an empty body on GET/DELETE and on
  // body-less POSTs (compat.md): empty means {}. Malformed JSON is a 400 with the envelope.
  app.removeContentTypeParser('application/json');
  // HTML forms and RFC 8058 one-click unsubscribe POSTs (urlencoded or multipart; only simple fields are read).
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string' }, (req, body, done) => {
    const text = String(body);
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/x-www-form-urlencoded')) return done(null, Object.fromEntries(new URLSearchParams(text)));
    const fields: Record<string, string> = {};
    for (const m of text.matchAll(/name="([^"]+)"\r?\n\r?\n([^\r\n]*)/g)) fields[m[1]] = m[2];
    done(null, fields);
  });
  // A declared body over the route's cap (413) or past the body budget (429) is refused before it
  // is read (body-worker.ts admitBody).
  app.addHook('preParsing', admitBody(bodyBudget, DEFAULT_BODY_LIMIT));
  // Bytes that are not UTF-8 (RFC 8259 §8.1) are refused rather than stored as U+FFFD; nesting
  // past MAX_JSON_DEPTH and too many items are refused before JSON.parse (json-body.ts); a body
  // over 1 MiB is parsed on the body worker's thread (body-worker.ts).
  app.addContentTypeParser('application/json', jsonBodyParser(bodyWorker, bodyBudget, DEFAULT_BODY_LIMIT,
    (req) => LIFTED_ROUTES.has((req.routeOptions.config as { routeId?: string } | undefined)?.routeId ?? '')));

  app.setErrorHandler((error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, req, ctx);
    const routeId = (req.routeOptions.config as { routeId?: string } | undefined)?.routeId;
    if (ops && routeId && (routes as Record<string, RouteDef>)[routeId]?.send && apiError.code !== 'service_unavailable') ops.metrics.refused('api', apiError.code);
    for (const [k, v] of Object.entries(apiError.extra.headers ?? {})) reply.header(k, v);
    const envelope = apiError.toEnvelope(String(req.id));
    // A 402's upgrade_url is this daemon's own billing page, so a client can follow it.
    if (envelope.error.upgrade_url !== undefined) envelope.error.upgrade_url = billingPageUrl(ctx);
    reply.code(apiError.status).type('application/json').send(envelope);
  });

  const matchers: { re: RegExp; method: string }[] = [];
  const suggester = new RouteSuggester();
  const routeOpts: RouteOps = { ops };
  for (const [id, def] of Object.entries(routes) as [RouteId, RouteDef][]) {
    const handler = (allHandlers as Record<string, Handler<RouteDef> | undefined>)[id];
    if (!handler) throw new Error(`route ${id} has no handler`);
    // Registered once under /v1; /api/v1 is rewritten onto it (see rewriteUrl), which halves the
    // validators and serialisers compiled at start.
    for (const prefix of [V1]) {
      matchers.push({ re: pathMatcher(prefix + def.path), method: def.method });
      // fastify answers HEAD on every GET route (exposeHeadRoutes), so Allow names it too.
      if (def.method === 'GET') matchers.push({ re: pathMatcher(prefix + def.path), method: 'HEAD' });
      suggester.add(def.method, prefix + def.path);
      registerRoute(app, ctx, id, def, prefix, handler, routeOpts);
    }
  }

  // The MCP server over Streamable HTTP (docs/mcp.md): not an API route, so not in the contract's table.
  registerMcpRoutes(app, ctx);
  // The web inbox at / (pages and assets; it calls the API above like any client).
  registerWebInbox(app, ctx);

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allowed = [...new Set(matchers.filter((m) => m.re.test(path)).map((m) => m.method))];
    const err = allowed.length && !allowed.includes(req.method)
      ? Errors.methodNotAllowed(req.method, path, allowed)
      : Errors.routeNotFound(req.method, path, suggester.suggest(req.method === 'HEAD' ? 'GET' : req.method, path));
    if (allowed.length) reply.header('allow', allowed.join(', '));
    reply.code(err.status).send(err.toEnvelope(String(req.id)));
  });

  return app;
}

interface RouteOps {
  ops?: Ops;
}

function registerRoute(app: FastifyInstance, ctx: AppContext, id: string, def: RouteDef, prefix: string, handler: Handler<RouteDef>, ro: RouteOps) {
  const schema: Record<string, unknown> = {};
  if (def.params) schema.params = def.params;
  if (def.query) schema.querystring = def.query;
  if (def.body) schema.body = def.body;
  if (def.response) schema.response = { [def.status]: forSerializer(def.response) };
  const action = def.summary.charAt(0).toLowerCase() + def.summary.slice(1);
  // A refused key: a burst of 401s from one address is logged and slowed (services/auth-failures.ts).
  const refuseAuth = async (req: FastifyRequest, err: unknown): Promise<never> => {
    if (err instanceof ApiError && err.status === 401) {
      const delayMs = noteAuthFailure(ctx, req.ip, err.code);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    }
    throw err;
  };
  // What follows authentication; a promise only where a send checks the disk.
  const url = prefix + def.path;
  const admit = (req: FastifyRequest, auth: AuthContext): Promise<void> | void => {
    (req as RoutedRequest)[ROUTE] = url;
    authorize(auth, def.scope, action);
    if (def.unboundOnly) requireUnbound(auth, def.unboundOnly);
    (req as FastifyRequest & { auth?: unknown }).auth = auth;
    // Form bodies exist for public pages (one-click unsubscribe, RFC 8058); the API itself
    // speaks JSON (spec: bodies are application/json), so a form sent to it is refused (after
    // the key is checked: a 401/403 wins; before the body is read).
    const type = req.headers['content-type'];
    const refused = type === undefined ? null : FORM_TYPES.exec(type);
    // text/plain with no body (a GET or DELETE some client labels so) names no body to refuse.
    if (refused && (!/^text/i.test(refused[1]) || req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0)) {
      throw Errors.invalidField('Content-Type', `Content-Type ${type} is not supported here; send application/json.`);
    }
    // The low-disk guard: a send is refused whole (and retried by the client) rather than
    // failing half-written when the disk fills (issue #16; 503 is the spec's status for it).
    // The simulator stores mail as SMTP does, so it is refused where SMTP answers 452.
    if ((def.send || def.stores) && ro.ops) {
      const ops = ro.ops;
      const refuseLowDisk = (disk: DiskState): void => {
        if (!disk.ok) {
          ops.metrics.refused('api', 'low_disk');
          throw Errors.serviceUnavailable(`The server is low on disk space (${DiskGuard.describe(disk)}); nothing was ${def.send ? 'sent' : 'stored'}. Retry later.`, 300);
        }
      };
      // Read at most every couple of seconds: between two reads the answer is at hand (no promise).
      const known = ops.disk.current();
      if (known) return refuseLowDisk(known);
      return ops.disk.check().then(refuseLowDisk);
    }
  };
  app.route({
    method: def.method,
    url,
    schema,
    bodyLimit: def.bodyLimit ?? DEFAULT_BODY_LIMIT,
    config: { routeId: id },
    // The optional-field rule, applied once for every route (contract/common.ts → Opt): a field
    // with no value is left out rather than sent as null, unless its schema says null.
    preSerialization: def.response
      ? (_req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void) => done(null, reply.statusCode < 300 ? omitAbsent(def.response, payload) : payload)
      : undefined,
    // Authentication and authorisation come first (onRequest, before the body is read or
    // validated): a caller without a valid key learns nothing about a route's schema, and a
    // 401/403 wins over a 400 or 413.
    //
    // Callback style with a synchronous path: a key read in the last second (services/auth.ts
    // key cache) is checked without a promise, and a route that is not a send needs nothing
    // asynchronous after it, so most requests pass this hook without one.
    onRequest: def.scope === 'public' ? undefined : (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      let auth: AuthContext | null;
      try {
        auth = authenticateRequestCached(ctx, req);
      } catch (err) {
        void refuseAuth(req, err).then(done, done);
        return;
      }
      if (!auth) {
        authenticateRequest(ctx, req).then((a) => admit(req, a), (err) => refuseAuth(req, err)).then(() => done(), done);
        return;
      }
      let admitted: Promise<void> | void;
      try {
        admitted = admit(req, auth);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (admitted) admitted.then(() => done(), done);
      else done();
    },
    // An absent body on a route with a body schema is treated as {} so `required` names the field.
    // A JSON `null` is a body, and not an object: it gets the same 400 as `[]` or `"text"`.
    preValidation: def.body
      ? (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
        if (req.body === undefined) req.body = {};
        done();
      }
      : undefined,
    // Not an async function: a handler that has its answer at hand (GET /v1/me from the caches)
    // returns it, and fastify sends it without a promise.
    handler: (req, reply) => {
      const run = (announced?: WriteAnnouncement) => handler({
        ctx,
        auth: ((req as FastifyRequest & { auth?: unknown }).auth ?? null) as never,
        params: req.params as never,
        query: req.query as never,
        body: req.body as never,
        req,
        reply,
        announced,
      });
      const finish = (result: unknown) => {
        if (reply.sent) return reply;
        if (reply.statusCode === 200 && def.status !== 200) reply.code(def.status);
        return result;
      };
      // Send routes: burst limit, RateLimit-* headers and Idempotency-Key (server/http/send-route.ts).
      const result = def.send ? runSendRoute(ctx, id, def, req, reply, (announced) => Promise.resolve(run(announced))) : run();
      if (result instanceof Promise) return result.then(finish);
      if (reply.sent || result === undefined) return Promise.resolve(result).then(finish);
      return finish(result);
    },
  });
}

function toApiError(error: FastifyError | ApiError, req: FastifyRequest, ctx: AppContext): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError & { validation?: unknown; validationContext?: string };
  if (fe.validation) {
    // The route's schema and the value let the message quote the schema's own wording and sizes.
    const part = fe.validationContext ?? 'body';
    const data = part === 'body' ? req.body : part === 'querystring' ? req.query : part === 'params' ? req.params : undefined;
    const schema = (req.routeOptions.schema as Record<string, unknown> | undefined)?.[part];
    return validationToApiError(fe.validation as never, part, { schema, data });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge(req, Number(req.routeOptions?.bodyLimit ?? DEFAULT_BODY_LIMIT));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return Errors.invalidField('Content-Type', `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json.`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return Errors.invalidJson(fe.message);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Errors.invalidField('Content-Length', 'The Content-Length header does not match the body.');
  }
  if (fe.statusCode === 400) return Errors.invalidField('body', fe.message);
  // Anything else is ours: log the cause, never echo it.
  // ctx.log is the daemon's logger (fastify's, when logging is on), also when the app's own is off.
  ctx.log.error({ err: error, request_id: req.id, method: req.method, url: redactUrl(req.url) }, 'unhandled error');
  return Errors.internal();
}
