import { Worker } from 'node:worker_threads';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { ApiError, type ErrorCode, type ErrorType } from '../../contract/errors.js';
import { Errors } from '../../shared/errors.js';
import { isoAt } from '../../shared/clock.js';
import { HELPER_THREAD_YOUNG_MB } from '../../shared/thread-heap.js';
import { workerEntry } from '../../shared/worker-entry.js';
import { setLiftedAttachment } from '../../shared/lifted-attachments.js';
import { checkJsonCharset, parseJsonBytes } from './json-body.js';
import { itemAt, ownArrayBuffer, type LiftedPart } from './body-lift.js';

/**
 * Large JSON request bodies (docs/security.md → HTTP bodies):
 *
 * - **Refused early.** A declared Content-Length over the route's cap is a 413 before a byte of
 *   the body is read; a body without one (chunked) is a 413 as soon as the bytes read pass it.
 * - **Bounded in memory.** Every request body being read or parsed holds its size of one budget
 *   (`httpMaxBufferedBodyBytes`, BodyBudget): a body that would pass it while others hold some is
 *   answered 429 `rate_limit_exceeded` with `Retry-After` before it is read (a chunked one when
 *   its bytes pass it). One body alone is always admitted. Its bytes are held until its response
 *   is sent (or the connection closes): the parsed body and its decoded attachments live as long.
 * - **Off the main thread.** A body over WORKER_MIN_BYTES is copied, as its chunks arrive, into
 *   one buffer that moves (not copied) to the body worker's thread, which checks its UTF-8,
 *   decodes it, scans its depth and items and runs JSON.parse there (body-thread.ts); on the send
 *   routes it also checks and decodes large base64 attachments (body-lift.ts), whose bytes come
 *   back moved. Measured at a 33 MB send (bench/README.md, "round 2 session 12"): JSON.parse,
 *   the UTF-8 decoding, the concatenation of the chunks, the base64 pattern and the base64
 *   decoding held the main thread several hundred ms per body under load. The thread starts on
 *   the first large body and ends after IDLE_MS without one (its heap goes with it).
 */

/** Bodies larger than this are parsed on the body worker's thread; smaller ones on the main thread (~1-3 ms at 1 MiB). */
export const WORKER_MIN_BYTES = 1024 * 1024;
const IDLE_MS = 30_000;

export interface BodyJob { id: number; bytes: ArrayBuffer; length: number; lift: boolean; digest: boolean }
export type BodyReply =
  | { id: number; value: unknown; lifted: LiftedPart[] }
  | { id: number; error: { status: number; type: ErrorType; code: ErrorCode; message: string; param: string | null } }
  | { id: number; error: null; message: string };

/** The body worker: one thread, started on demand, ended when idle; jobs run in order. */
export class BodyWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private seq = 0;
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly log?: { error(obj: object, msg: string): void }, private readonly idleMs = IDLE_MS) {}

  /** Parse `length` bytes of `bytes` (moved to the thread: detached here); with `lift`, lift large attachments. */
  parse(bytes: ArrayBuffer, length: number, opts: { lift: boolean; digest: boolean }): Promise<unknown> {
    if (this.closed) return Promise.reject(Errors.serviceUnavailable('The daemon is shutting down; retry in a moment.', 1));
    if (this.idle) {
      clearTimeout(this.idle);
      this.idle = null;
    }
    const w = this.worker ?? this.start();
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const job: BodyJob = { id, bytes, length, lift: opts.lift, digest: opts.digest };
      w.postMessage(job, [bytes]);
    });
  }

  /** Whether the thread is running (tests, metrics). */
  get running(): boolean {
    return this.worker !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    const w = this.worker;
    this.worker = null;
    this.fail(Errors.serviceUnavailable('The daemon is shutting down; retry in a moment.', 1));
    if (w) await w.terminate();
  }

  private start(): Worker {
    const entry = workerEntry(import.meta.url, 'body-thread');
    const w = new Worker(entry.script, {
      eval: entry.eval, stdout: false, stderr: false,
      // A young generation as small as the other helper threads' (shared/thread-heap.ts); the big
      // strings live in the old generation's large-object space, left at V8's default (a cap there
      // aborts the whole process: Node issue 47224).
      resourceLimits: { maxYoungGenerationSizeMb: HELPER_THREAD_YOUNG_MB },
    });
    w.unref();
    w.on('message', (m: BodyReply | 'ready') => {
      if (m === 'ready' || !('id' in m)) return;
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (!this.pending.size) this.idleSoon();
      if (!p) return;
      if ('value' in m) {
        for (const l of m.lifted) {
          const item = itemAt(m.value, l.path);
          if (item) setLiftedAttachment(item, l.field, Buffer.from(l.bytes));
        }
        p.resolve(m.value);
      } else if (m.error) {
        p.reject(new ApiError(m.error.status, m.error.type, m.error.code, m.error.message, { param: m.error.param }));
      } else {
        this.log?.error({ err: m.message }, 'request body worker failed');
        p.reject(Errors.internal());
      }
    });
    const lost = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = null;
      if (!this.closed) this.log?.error({ err }, 'request body worker stopped');
      this.fail(Errors.serviceUnavailable('The request body could not be parsed now (the parser thread stopped); retry in a moment.', 1));
    };
    w.on('error', lost);
    w.on('exit', (code) => lost(new Error(`exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private idleSoon(): void {
    if (this.idle || this.closed) return;
    this.idle = setTimeout(() => {
      this.idle = null;
      const w = this.worker;
      if (!w || this.pending.size) return;
      this.worker = null;
      void w.terminate();
    }, this.idleMs).unref();
  }
}

/** The bytes of request bodies being read or parsed at once (httpMaxBufferedBodyBytes). */
export class BodyBudget {
  used = 0;
  constructor(readonly limit: number) {}
}

/** One request's share of the budget, given back once (its response sent or its connection closed). */
export class BodyReservation {
  private held = 0;
  private released = false;
  constructor(private readonly budget: BodyBudget) {}

  /** Take n more bytes; false when other requests hold bytes and n would pass the budget. */
  take(n: number): boolean {
    if (this.released) return true;
    const others = this.budget.used - this.held;
    if (others > 0 && this.budget.used + n > this.budget.limit) return false;
    this.budget.used += n;
    this.held += n;
    return true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.used -= this.held;
    this.held = 0;
  }
}

const RESERVATION = Symbol('bodyReservation');
type ReservingRequest = FastifyRequest & { [RESERVATION]?: BodyReservation };

const MIB = 1024 * 1024;
const size = (n: number) => (n >= MIB ? `${(n / MIB).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

/** The 413 of a body over its route's cap, saying what to do about it. */
export function bodyTooLarge(req: FastifyRequest, limit: number, declared?: number): ApiError {
  const what = declared === undefined ? 'The request body is larger than' : `The request body is ${declared.toLocaleString('en-US')} bytes (Content-Length), over`;
  const route = `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`;
  const hint = /\/messages\b/.test(route)
    ? ' Attachments may total 25 MB decoded (about 33.4 MB of base64); send larger files as links.'
    : '';
  return Errors.bodyTooLarge(limit, `${what} the ${limit.toLocaleString('en-US')} bytes (${size(limit)}) ${route} accepts; nothing was read or stored.${hint}`);
}

/** The 429 of a body that would pass the budget. */
function budgetFull(budget: BodyBudget, n: number | null): ApiError {
  const retry = 1;
  return Errors.limit('rate_limit_exceeded',
    `The server is already reading ${size(budget.used)} of request bodies, its cap (httpMaxBufferedBodyBytes) is ${size(budget.limit)}, and this ${n === null ? 'body' : `${size(n)} body`} would pass it; nothing was read or sent. Retry after Retry-After seconds (with an Idempotency-Key, a retry never sends twice).`,
    { resetsAt: isoAt(Date.now() + retry * 1000), retryAfterSeconds: retry });
}

/**
 * The preParsing hook (every request with a body): a declared length over the route's cap is a
 * 413, and one that does not fit the budget a 429, both before the body is read; the connection
 * is closed after the answer, so the unread body is not drained. The reservation is given back
 * when the response is sent or the connection closes.
 */
export function admitBody(budget: BodyBudget, defaultLimit: number) {
  return (req: FastifyRequest, reply: FastifyReply, payload: RequestPayload, done: (err: Error | null, payload?: RequestPayload) => void): void => {
    const cl = req.headers['content-length'];
    if (cl === undefined && req.headers['transfer-encoding'] === undefined) return done(null, payload);
    const declared = cl === undefined ? null : Number(cl);
    const limit = req.routeOptions.bodyLimit ?? defaultLimit;
    if (declared !== null && declared > limit) {
      reply.header('connection', 'close');
      return done(bodyTooLarge(req, limit, declared));
    }
    const r = new BodyReservation(budget);
    if (declared !== null && !r.take(declared)) {
      reply.header('connection', 'close');
      return done(budgetFull(budget, declared));
    }
    (req as ReservingRequest)[RESERVATION] = r;
    reply.raw.once('close', () => r.release());
    done(null, payload);
  };
}

/** Give a request's bytes back (onResponse; also done when its connection closes). */
export function releaseBody(req: FastifyRequest): void {
  (req as ReservingRequest)[RESERVATION]?.release();
}

/**
 * The `application/json` parser (a stream parser: fastify's own would concatenate and decode the
 * body on the main thread). `lift(req)` says whether the route's large attachments are lifted.
 */
export function jsonBodyParser(worker: BodyWorker, budget: BodyBudget, defaultLimit: number, lift: (req: FastifyRequest) => boolean) {
  return (req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void): void => {
    try {
      checkJsonCharset(req.headers['content-type']);
    } catch (err) {
      return done(err as Error);
    }
    const limit = req.routeOptions.bodyLimit ?? defaultLimit;
    const cl = req.headers['content-length'];
    const declared = cl === undefined ? null : Number(cl);
    const reservation = (req as ReservingRequest)[RESERVATION];
    // A declared large body is copied into one buffer as it arrives (no concatenation at the end);
    // a chunked one is gathered, then joined. Not zero-filled (every byte is written before it is
    // read): a zeroed 34 MB ArrayBuffer cost the main thread ~100 ms under load.
    const whole = declared !== null && declared > WORKER_MIN_BYTES && declared <= limit ? Buffer.allocUnsafeSlow(declared) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
      if (err && !(err instanceof ApiError) && typeof (err as { statusCode?: number }).statusCode !== 'number') (err as { statusCode?: number }).statusCode = 400;
      done(err, value);
    };
    function onData(chunk: Buffer | string): void {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += b.length;
      if (received > limit) return finish(bodyTooLarge(req, limit));
      if (declared === null && reservation && !reservation.take(b.length)) return finish(budgetFull(budget, null));
      if (whole) {
        if (received > whole.length) return finish(Errors.invalidField('Content-Length', 'The Content-Length header does not match the body.'));
        whole.set(b, received - b.length);
      } else chunks.push(b);
    }
    function onEnd(err?: Error): void {
      if (err) return finish(err);
      if (declared !== null && received !== declared) return finish(Errors.invalidField('Content-Length', 'The Content-Length header does not match the body.'));
      if (received <= WORKER_MIN_BYTES) {
        const buf = whole ? whole.subarray(0, received) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
        let value: unknown;
        try {
          value = parseJsonBytes(buf);
        } catch (e) {
          return finish(e as Error);
        }
        return finish(null, value);
      }
      const joined = whole ?? Buffer.concat(chunks, received);
      chunks.length = 0;
      const bytes = ownArrayBuffer(joined);
      worker.parse(bytes, received, { lift: lift(req), digest: req.headers['idempotency-key'] !== undefined }).then((v) => finish(null, v), (e: Error) => finish(e));
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  };
}
