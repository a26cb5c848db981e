import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real local HTTP receiver for webhook tests: listens on 127.0.0.1, port 0, records every
 * request with its raw body, and answers as told — a status (2xx, 500, 410, a 3xx), headers such
 * as Retry-After, a body, or `hang` (never answers; the sender's timeout must fire).
 */
export interface SinkRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body bytes, exactly as received (signatures are computed over these). */
  raw: Buffer;
  text: string;
  json(): any;
  receivedAt: number;
}

export interface SinkAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
}

export interface Sink {
  url: string;
  port: number;
  requests: SinkRequest[];
  /** The answer for every request not covered by queue() (default 200 "ok"). */
  respond(a: SinkAnswer | ((r: SinkRequest) => SinkAnswer)): void;
  /** One-shot answers, used in order before the default. */
  queue(...a: SinkAnswer[]): void;
  /** Resolves once at least n requests have arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<SinkRequest[]>;
  /** Called with each request as it arrives (benchmarks). */
  onRequest?: (r: SinkRequest) => void;
  reset(): void;
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  let answer: SinkAnswer | ((r: SinkRequest) => SinkAnswer) = { status: 200, body: 'ok' };
  const queued: SinkAnswer[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const sink = {} as Sink;
  const requests: SinkRequest[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const r: SinkRequest = {
        method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, text: raw.toString('utf8'),
        json: () => JSON.parse(raw.toString('utf8')), receivedAt: performance.now(),
      };
      requests.push(r);
      sink.onRequest?.(r);
      for (const w of [...waiters]) if (requests.length >= w.n) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
      const a = queued.length ? queued.shift()! : typeof answer === 'function' ? answer(r) : answer;
      if (a.hang) return; // keep the socket open, never answer
      res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
      res.end(a.body ?? '');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  Object.assign(sink, {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    respond: (a: SinkAnswer | ((r: SinkRequest) => SinkAnswer)) => { answer = a; },
    queue: (...a: SinkAnswer[]) => { queued.push(...a); },
    waitFor: (n: number, timeoutMs = 10_000) => new Promise<SinkRequest[]>((resolve, reject) => {
      if (requests.length >= n) return resolve(requests);
      const t = setTimeout(() => reject(new Error(`sink: ${requests.length}/${n} requests after ${timeoutMs} ms`)), timeoutMs);
      waiters.push({ n, resolve: () => { clearTimeout(t); resolve(requests); } });
    }),
    reset: () => { requests.length = 0; queued.length = 0; answer = { status: 200, body: 'ok' }; },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  });
  return sink;
}
