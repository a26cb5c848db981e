import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/contract/errors.js';
import { ConnectionError, SseParser, createClient, splitBaseUrl, type RemoteApiError } from '../../../src/client/index.js';

/** A real local HTTP server that records requests and answers what each test asks for. */
let server: Server;
let base: string;
let handler: (req: IncomingMessage, body: string, res: ServerResponse) => void = () => {};
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); });

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

describe('call', () => {
  it('fills path params, encodes the query, sends the key and the JSON body', async () => {
    handler = (_req, _b, res) => json(res, 200, { id: 'agt_1', object: 'agent' });
    const c = createClient({ baseUrl: base, apiKey: 'mk_test_k' });
    const a = await c.call('agents.update', { params: { id: 'sa rah' }, body: { status: 'paused' } });
    expect(a.id).toBe('agt_1');
    const r = seen.at(-1)!;
    expect(r).toMatchObject({ method: 'PATCH', url: '/v1/agents/sa%20rah', body: '{"status":"paused"}' });
    expect(r.headers.authorization).toBe('Bearer mk_test_k');
    expect(r.headers['content-type']).toBe('application/json');

    await c.call('agents.list', { query: { status: 'all', limit: 5, cursor: undefined } });
    expect(seen.at(-1)!.url).toBe('/v1/agents?status=all&limit=5');
    await c.call('me.get');
    expect(seen.at(-1)!).toMatchObject({ method: 'GET', url: '/v1/me', body: '' });
    expect(seen.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('honours a base URL ending in /api/v1', async () => {
    handler = (_req, _b, res) => json(res, 200, {});
    await createClient({ baseUrl: `${base}/api/v1/` }).call('me.get');
    expect(seen.at(-1)!.url).toBe('/api/v1/me');
    expect(splitBaseUrl('http://h:1/v1')).toEqual({ origin: 'http://h:1', prefix: '/v1' });
    expect(splitBaseUrl('http://h:1')).toEqual({ origin: 'http://h:1', prefix: '/v1' });
    expect(() => splitBaseUrl('ftp://h')).toThrow(/http/);
  });

  it('rebuilds the error envelope into ApiError, keeping request_id', async () => {
    handler = (_req, _b, res) => json(res, 409, { error: { type: 'invalid_request_error', code: 'agent_name_conflict', message: 'two sarahs', param: 'id', request_id: 'req_abc' } }, { 'x-request-id': 'req_abc' });
    const err = (await createClient({ baseUrl: base }).call('agents.get', { params: { id: 'sarah' } }).catch((e) => e)) as RemoteApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'agent_name_conflict', type: 'invalid_request_error', message: 'two sarahs', requestId: 'req_abc' });
    expect(err.param).toBe('id');
  });

  it('a non-envelope failure (a proxy page) still becomes an ApiError with the header request id', async () => {
    handler = (_req, _b, res) => { res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'req_px' }); res.end('<h1>Bad gateway</h1>'); };
    const err = (await createClient({ baseUrl: base }).call('me.get').catch((e) => e)) as RemoteApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, type: 'api_error', requestId: 'req_px' });
    expect(err.message).toContain('Bad gateway');
  });

  it('a refused connection is a ConnectionError naming the URL and `mailagent serve`', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const err = await createClient({ baseUrl: `http://127.0.0.1:${port}` }).call('me.get').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain(`http://127.0.0.1:${port}`);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).toContain('mailagent serve');
  });
});

describe('raw', () => {
  it('takes /v1 and /api/v1 paths literally and returns any status without throwing', async () => {
    handler = (_req, _b, res) => json(res, 404, { error: { code: 'resource_not_found', message: 'x', type: 'resource_error', param: null, request_id: 'req_1' } });
    const c = createClient({ baseUrl: base, apiKey: 'k' });
    const r = await c.raw('GET', '/api/v1/nope', undefined, { query: { a: ['1', '2'] } });
    expect(r.status).toBe(404);
    expect((r.body as { error: { code: string } }).error.code).toBe('resource_not_found');
    expect(seen.at(-1)!.url).toBe('/api/v1/nope?a=1&a=2');
    await c.raw('POST', '/agents', '');
    expect(seen.at(-1)!).toMatchObject({ url: '/v1/agents', body: '' });
    expect(seen.at(-1)!.headers['content-type']).toBe('application/json');
  });
});

describe('stream (server-sent events)', () => {
  it('yields {id, event, data} across chunk boundaries and sends Last-Event-ID', async () => {
    handler = (_req, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n');
      res.write('id: evt_1\nevent: message.sent\nda');
      setTimeout(() => {
        res.write('ta: {"a":1}\n\n');
        res.write('data: line1\r\ndata: line2\r\n\r\n');
        res.end('id: evt_3\ndata: unterminated');
      }, 20);
    };
    const got = [];
    for await (const m of createClient({ baseUrl: base, apiKey: 'k' }).stream('/events/stream', { agent: 'sarah' }, { lastEventId: 'evt_0' })) got.push(m);
    expect(got).toEqual([
      { id: 'evt_1', event: 'message.sent', data: '{"a":1}' },
      { id: 'evt_1', event: 'message', data: 'line1\nline2' },
    ]);
    const r = seen.at(-1)!;
    expect(r.url).toBe('/v1/events/stream?agent=sarah');
    expect(r.headers['last-event-id']).toBe('evt_0');
    expect(r.headers.accept).toBe('text/event-stream');
  });

  it('a refused stream throws the rebuilt ApiError', async () => {
    handler = (_req, _b, res) => json(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'bad', param: null, request_id: 'req_9' } });
    const it = createClient({ baseUrl: base }).stream('/events/stream');
    await expect(it.next()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key', requestId: 'req_9' });
  });

  it('ends quietly when its signal aborts', async () => {
    handler = (_req, _b, res) => { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.write('data: one\n\n'); };
    const ac = new AbortController();
    const got: string[] = [];
    const run = (async () => {
      for await (const m of createClient({ baseUrl: base }).stream('/events/stream', undefined, { signal: ac.signal })) {
        got.push(m.data);
        ac.abort();
      }
    })();
    await run.catch((e) => { if ((e as Error).name !== 'AbortError') throw e; });
    expect(got).toEqual(['one']);
  });
});

describe('SseParser', () => {
  it('handles a CR LF split across chunks, comments, and ids without data', () => {
    const p = new SseParser();
    const out = [...p.push('id: 7\r'), ...p.push('\ndata: x\r'), ...p.push('\n\r\n'), ...p.push(':c\n\nid: 8\n\n')];
    expect(out).toEqual([{ id: '7', event: 'message', data: 'x' }]);
    expect(p.lastEventId).toBe('8');
  });
});
