import { ApiError, type ErrorEnvelope } from '../contract/errors.js';
import { routes, type RouteId, type Routes } from '../contract/routes.js';
import type { BodyOf, ParamsOf, QueryOf, ResponseOf, RouteDef } from '../contract/route.js';

/**
 * Typed fetch client for the mailagent API (JSON routes + server-sent events).
 * Everything it knows about routes comes from the contract's route table.
 */

export interface ClientOptions {
  /** Origin of the daemon (`http://127.0.0.1:7420`), optionally ending in `/v1` or `/api/v1`. */
  baseUrl: string;
  apiKey?: string | null;
  fetch?: typeof globalThis.fetch;
  /** Sent as User-Agent. */
  userAgent?: string;
}

/** An ApiError rebuilt from the envelope keeps the request id so it can be quoted back. */
export type RemoteApiError = ApiError & { requestId: string | null };

/** The daemon could not be reached at all (nothing was answered). */
export class ConnectionError extends Error {
  constructor(readonly url: string, readonly reason: string, options?: { cause?: unknown }) {
    super(`could not connect to ${url} (${reason}); is \`mailagent serve\` running? Check --base-url or MAILAGENT_BASE_URL.`, options);
    this.name = 'ConnectionError';
  }
}

type Field<K extends string, T> = [T] extends [undefined]
  ? { [P in K]?: undefined }
  : {} extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

export type CallInput<R extends RouteDef> = Field<'params', ParamsOf<R>> &
  // Queries are all-optional by convention (ListQuery), so `query` may always be left out.
  { query?: [QueryOf<R>] extends [undefined] ? undefined : Partial<QueryOf<R>> } &
  Field<'body', BodyOf<R>> & {
    headers?: Record<string, string>;
    signal?: AbortSignal;
  };

type CallArgs<R extends RouteDef> = {} extends CallInput<R> ? [input?: CallInput<R>] : [input: CallInput<R>];

export interface RawResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
  text: string;
}

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface StreamOptions {
  lastEventId?: string | null;
  signal?: AbortSignal;
  /** Called once the daemon has answered 2xx, before any event (for "Ready!" / reconnected lines). */
  onOpen?: (res: { status: number; headers: Headers }) => void;
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

export interface Client {
  readonly baseUrl: string;
  call<K extends RouteId>(id: K, ...args: CallArgs<Routes[K]>): Promise<ResponseOf<Routes[K]>>;
  raw(method: string, path: string, body?: unknown, opts?: { query?: Record<string, QueryValue>; headers?: Record<string, string>; signal?: AbortSignal }): Promise<RawResponse>;
  /** As raw(), but the answer unread: the caller streams its body (`mailagent api` on an event stream). */
  rawResponse(method: string, path: string, body?: unknown, opts?: { query?: Record<string, QueryValue>; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  /** The body of an answer from rawResponse(), parsed as raw() does. */
  readBody(res: Response): Promise<{ body: unknown; text: string }>;
  stream(path: string, query?: Record<string, QueryValue>, opts?: StreamOptions): AsyncGenerator<SseMessage>;
  /** GET a non-JSON resource byte-exact (raw .eml); a non-2xx answer throws like call(). */
  bytes(path: string, opts?: { signal?: AbortSignal }): Promise<Uint8Array>;
}

/** `http://h:p`, `http://h:p/v1` and `http://h:p/api/v1` all mean the same daemon. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new TypeError(`"${baseUrl}" is not a URL (expected something like http://127.0.0.1:7420)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`"${baseUrl}" must start with http:// or https://`);
  const path = u.pathname.replace(/\/+$/, '');
  const prefix = /\/(api\/)?v1$/.test(path) ? path : `${path}/v1`;
  return { origin: u.origin, prefix };
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
    else qs.append(k, String(v));
  }
  const s = qs.toString();
  return s ? `?${s}` : '';
}

function fillPath(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const v = params?.[name];
    if (v === undefined || v === null || v === '') throw new TypeError(`missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(v));
  });
}

function isEnvelope(b: unknown): b is ErrorEnvelope {
  const e = (b as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return !!e && typeof e.code === 'string' && typeof e.message === 'string';
}

/** Rebuild the server's error; a non-envelope answer (a proxy's 502 page) becomes api_error. */
export function errorFromResponse(status: number, body: unknown, text: string, headerRequestId: string | null): RemoteApiError {
  if (isEnvelope(body)) {
    const err = ApiError.fromEnvelope(status, body);
    return Object.assign(err, { requestId: body.error.request_id ?? headerRequestId });
  }
  const snippet = text.trim().slice(0, 200) || `HTTP ${status}`;
  const err = new ApiError(status, status === 401 ? 'authentication_error' : status === 403 ? 'permission_error' : 'api_error',
    status === 404 ? 'resource_not_found' : 'internal_error', `unexpected answer (HTTP ${status}): ${snippet}`);
  return Object.assign(err, { requestId: headerRequestId });
}

function connectionReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  if (err.name === 'AbortError') return null;
  const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  const code = cause?.code ?? cause?.errors?.find((e) => e.code)?.code;
  if (code) return code;
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return cause?.message ?? 'fetch failed';
  return null;
}

export function createClient(opts: ClientOptions): Client {
  const { origin, prefix } = splitBaseUrl(opts.baseUrl);
  const doFetch = opts.fetch ?? globalThis.fetch;
  const baseUrl = origin + prefix;

  const headersFor = (extra?: Record<string, string>, hasBody = false): Record<string, string> => ({
    accept: 'application/json',
    ...(opts.userAgent ? { 'user-agent': opts.userAgent } : {}),
    ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
    ...(hasBody ? { 'content-type': 'application/json' } : {}),
    ...extra,
  });

  async function send(method: string, url: string, init: RequestInit): Promise<Response> {
    try {
      return await doFetch(url, { ...init, method });
    } catch (err) {
      const reason = connectionReason(err);
      if (reason) throw new ConnectionError(origin, reason, { cause: err });
      throw err;
    }
  }

  async function readBody(res: Response): Promise<{ body: unknown; text: string }> {
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    if (/json/i.test(type) && text.length > 0) {
      try {
        return { body: JSON.parse(text), text };
      } catch {
        return { body: text, text };
      }
    }
    return { body: text, text };
  }

  /**
   * The URL of a path given by a user (`mailagent api`): `/v1/x` and `/api/v1/x` are taken
   * literally (like `gh api`), a bare `/x` goes under the base prefix. Query parameters are merged
   * into the path's own (`/v1/agents?limit=1` with `status=all` is `?limit=1&status=all`), and a
   * `#fragment` (never sent) is dropped, not left to swallow them.
   */
  function urlOf(path: string, query?: Record<string, QueryValue>): string {
    const p = path.startsWith('/') ? path : `/${path}`;
    const u = new URL(/^\/(api\/)?v1(\/|$|\?|#)/.test(p) ? origin + p : baseUrl + p);
    u.hash = '';
    const extra = new URLSearchParams(buildQuery(query));
    for (const [k, v] of extra) u.searchParams.append(k, v);
    return u.toString();
  }

  async function rawResponse(
    method: string,
    path: string,
    body?: unknown,
    o: { query?: Record<string, QueryValue>; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const hasBody = body !== undefined;
    return send(method.toUpperCase(), urlOf(path, o.query), {
      headers: headersFor(o.headers, hasBody),
      body: hasBody ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
      signal: o.signal,
    });
  }

  async function raw(
    method: string,
    path: string,
    body?: unknown,
    o: { query?: Record<string, QueryValue>; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<RawResponse> {
    const res = await rawResponse(method, path, body, o);
    const { body: parsed, text } = await readBody(res);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async function call(id: RouteId, input: CallInput<RouteDef> = {} as CallInput<RouteDef>): Promise<unknown> {
    const r = (routes as Record<string, RouteDef>)[id];
    if (!r) throw new TypeError(`unknown route id "${id}"`);
    const url = baseUrl + fillPath(r.path, input.params as Record<string, unknown> | undefined) +
      buildQuery(input.query as Record<string, QueryValue> | undefined);
    const hasBody = input.body !== undefined;
    const res = await send(r.method, url, {
      headers: headersFor(input.headers, hasBody),
      body: hasBody ? JSON.stringify(input.body) : undefined,
      signal: input.signal,
    });
    const { body, text } = await readBody(res);
    if (res.status < 200 || res.status > 299) throw errorFromResponse(res.status, body, text, res.headers.get('x-request-id'));
    return r.response === null && r.produces && !/json/.test(r.produces) ? text : body;
  }

  async function* stream(path: string, query?: Record<string, QueryValue>, o: StreamOptions = {}): AsyncGenerator<SseMessage> {
    const p = path.startsWith('/') ? path : `/${path}`;
    const url = (/^\/(api\/)?v1\//.test(p) ? origin + p : baseUrl + p) + buildQuery(query);
    const res = await send('GET', url, {
      headers: headersFor({ accept: 'text/event-stream', ...(o.lastEventId ? { 'last-event-id': o.lastEventId } : {}) }),
      signal: o.signal,
    });
    if (res.status < 200 || res.status > 299) {
      const { body, text } = await readBody(res);
      throw errorFromResponse(res.status, body, text, res.headers.get('x-request-id'));
    }
    o.onOpen?.({ status: res.status, headers: res.headers });
    if (!res.body) return;
    const parser = new SseParser();
    // An event not closed by a blank line before the end is discarded (WHATWG §9.2.6).
    for await (const text of textChunks(res.body, o.signal)) yield* parser.push(text);
  }

  async function bytes(path: string, o: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const p = path.startsWith('/') ? path : `/${path}`;
    const url = /^\/(api\/)?v1\//.test(p) ? origin + p : baseUrl + p;
    const res = await send('GET', url, { headers: headersFor({ accept: '*/*' }), signal: o.signal });
    if (res.status < 200 || res.status > 299) {
      const { body, text } = await readBody(res);
      throw errorFromResponse(res.status, body, text, res.headers.get('x-request-id'));
    }
    return new Uint8Array(await res.arrayBuffer());
  }

  return { baseUrl, call: call as Client['call'], raw, rawResponse, readBody, stream, bytes };
}

/**
 * A response body as UTF-8 text, chunk by chunk as it arrives (a character split across chunks
 * comes whole). Ends quietly when `signal` aborted the read (Ctrl-C on a stream); the body is
 * cancelled however the caller stops.
 */
export async function* textChunks(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal?.aborted) return;
        throw err;
      }
      if (chunk.done) break;
      yield decoder.decode(chunk.value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * Incremental parser for the text/event-stream format (WHATWG HTML §9.2.6): lines of
 * `field: value`, blank line dispatches, `:` starts a comment, `id` persists across events.
 */
export class SseParser {
  private buf = '';
  private data: string[] = [];
  private event = '';
  private lastId: string | null = null;
  private sawId = false;

  *push(text: string): Generator<SseMessage> {
    this.buf += text;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      // A lone trailing \r may be the first half of \r\n: wait for more input.
      if (!m || (m[0] === '\r' && m.index === this.buf.length - 1)) return;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const msg = this.line(line);
      if (msg) yield msg;
    }
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return null;
      }
      const msg = { id: this.lastId, event: this.event || 'message', data: this.data.join('\n') };
      this.data = [];
      this.event = '';
      return msg;
    }
    if (line.startsWith(':')) return null;
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.lastId = value;
      this.sawId = true;
    }
    return null;
  }

  get lastEventId(): string | null {
    return this.sawId ? this.lastId : null;
  }
}
