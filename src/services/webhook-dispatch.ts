import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AppContext } from './context.js';
import { signatureHeaders } from './webhook-signing.js';
import { guardedLookup, judgeAddresses, parseWebhookUrl, resolverFor } from './webhook-url-guard.js';

/** Issue: "a timeout of about 15 s". Covers connect, answer and reading the answer. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Kept of a receiver's answer, for the delivery history. */
export const EXCERPT_BYTES = 1024;
/** A receiver answering more than this is cut off (we only keep an excerpt). */
const MAX_READ_BYTES = 256 * 1024;

export interface OutgoingWebhook {
  url: string;
  /** Current secret first, the previous one (during a rotation) last. */
  secrets: string[];
  eventId: string;
  eventType: string;
  deliveryId: string | null;
  /** The raw JSON body (the event object). */
  body: string;
}

export interface AttemptResult {
  ok: boolean;
  httpStatus: number | null;
  excerpt: string | null;
  error: string | null;
  /** Seconds from a Retry-After answer header, when present and sensible. */
  retryAfterSeconds: number | null;
  durationMs: number;
  /** Aborted by the caller (daemon stopping): not an attempt at all. */
  aborted: boolean;
}

// One keep-alive agent pair per context: sockets are reused only within one daemon's policy.
// No per-origin socket cap: the delivery worker bounds the attempts in flight (per endpoint and in
// all), and a cap here queued requests inside the agent, where hanging receivers sharing an origin
// (one host, several paths) held every socket and the others' attempts timed out in the queue.
// Idle kept-alive sockets are capped per origin.
const agents = new WeakMap<AppContext, { http: http.Agent; https: https.Agent }>();
function agentsFor(ctx: AppContext) {
  let a = agents.get(ctx);
  if (!a) {
    a = {
      http: new http.Agent({ keepAlive: true, maxFreeSockets: 16, timeout: 30_000 }),
      https: new https.Agent({ keepAlive: true, maxFreeSockets: 16, timeout: 30_000 }),
    };
    agents.set(ctx, a);
  }
  return a;
}

/** Close the kept-alive sockets of a context (daemon stop). */
export function closeWebhookAgents(ctx: AppContext): void {
  const a = agents.get(ctx);
  if (a) {
    a.http.destroy();
    a.https.destroy();
    agents.delete(ctx);
  }
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date. */
export function parseRetryAfter(v: string | string[] | undefined, nowMs: number): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return null;
  if (/^\s*\d+\s*$/.test(s)) return Number(s);
  const at = Date.parse(s);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

async function headersFor(ctx: AppContext, w: OutgoingWebhook): Promise<Record<string, string>> {
  const timestamp = Math.floor(ctx.clock.now() / 1000);
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(w.body)),
    'user-agent': `mailagent/${ctx.config.version}`,
    'x-mails-event-id': w.eventId,
    'x-mails-event-type': w.eventType,
    ...(w.deliveryId ? { 'x-mails-delivery-id': w.deliveryId } : {}),
    // The webhook-id is the event id: the same on every retry and replay, so receivers de-duplicate.
    ...(await signatureHeaders({ secrets: w.secrets, messageId: w.eventId, timestamp, body: w.body })),
  };
}

/**
 * POST one webhook. Never throws: every outcome is an AttemptResult. Redirects are not followed
 * (a 3xx is a failed attempt), addresses are checked at connection time, the whole exchange is
 * bounded by timeoutMs.
 */
export async function postWebhook(
  ctx: AppContext, w: OutgoingWebhook, opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<AttemptResult> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const result = (r: Partial<AttemptResult>): AttemptResult => ({
    ok: false, httpStatus: null, excerpt: null, error: null, retryAfterSeconds: null, aborted: false,
    ...r, durationMs: Date.now() - started,
  });
  let url: URL;
  try {
    url = parseWebhookUrl(w.url).url;
  } catch (err) {
    return Promise.resolve(result({ error: (err as Error).message }));
  }
  const allowPrivate = ctx.config.allowPrivateWebhooks;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = judgeAddresses(url.protocol, host, [host], allowPrivate);
    if (why) return Promise.resolve(result({ error: `refused: ${why}` }));
  }
  const isHttps = url.protocol === 'https:';
  const a = agentsFor(ctx);
  // Signed before the timer starts: WebCrypto HMAC is async (contract/webhook-signature.ts).
  const headers = await headersFor(ctx, w);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const req = (isHttps ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || (isHttps ? 443 : 80),
      path: url.pathname + url.search,
      method: 'POST',
      headers,
      agent: isHttps ? a.https : a.http,
      lookup: guardedLookup(url.protocol, { allowPrivate, resolver: resolverFor(ctx) }),
      ...(isHttps ? { servername: isIP(host) ? undefined : host } : {}),
    });
    // The error listener goes on first: every path below may destroy the request, and a destroyed
    // request without one emits an unhandled 'error' (socket hang up) that ends the process — a
    // shutdown's abort arriving while the headers were being signed did exactly that.
    req.on('error', (err: NodeJS.ErrnoException) => {
      const refused = err.code === 'EWEBHOOKBLOCKED';
      finish(result({ error: refused ? `refused: ${err.message}` : `${err.code ? err.code + ': ' : ''}${err.message}` }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(result({ error: `timed out after ${Math.round(timeoutMs / 1000)} s` }));
    }, timeoutMs);
    timer.unref?.();
    const onAbort = () => {
      req.destroy();
      finish(result({ error: 'aborted', aborted: true }));
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      const done = () => {
        const excerpt = chunks.length ? Buffer.concat(chunks).toString('utf8') : '';
        const ok = status >= 200 && status < 300;
        const error = ok ? null
          : status >= 300 && status < 400
            ? `redirect not followed (HTTP ${status}${res.headers.location ? ` to ${res.headers.location}` : ''})`
            : `HTTP ${status}`;
        finish(result({
          ok, httpStatus: status, excerpt, error,
          retryAfterSeconds: parseRetryAfter(res.headers['retry-after'], ctx.clock.now()),
        }));
      };
      res.on('data', (c: Buffer) => {
        read += c.length;
        if (kept < EXCERPT_BYTES) {
          const part = c.subarray(0, EXCERPT_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (read > MAX_READ_BYTES) {
          res.destroy();
          done();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', done);
    });
    req.end(w.body);
  });
}
