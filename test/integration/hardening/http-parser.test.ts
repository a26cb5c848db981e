import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { startLiveDaemon, rawHttp, type LiveDaemon } from './helpers.js';
import { ErrorEnvelope } from '../../../src/contract/errors.js';

// Issue #10 item 8: requests that fail in Node's HTTP parser, sent as raw bytes over TCP.
const envelope = new Ajv({ strict: false }).compile(JSON.parse(JSON.stringify(ErrorEnvelope)));
let d: LiveDaemon;
beforeAll(async () => { d = await startLiveDaemon(); });
afterAll(async () => { await d.stop(); });

function parse(raw: string) {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status, headers, body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('HTTP parser failures carry the envelope and X-Request-Id', () => {
  const cases: [string, string, number][] = [
    ['a garbage request line', 'HELLO THERE\r\n\r\n', 400],
    ['a NUL in the path', 'GET /v1/he\0alth HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['20 KB of headers', `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a bad header name', 'GET /v1/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
    ['Content-Length with Transfer-Encoding', 'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
  ];
  it.each(cases)('%s', async (_name, payload, status) => {
    const res = parse(await rawHttp(d.httpPort, payload));
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    expect(envelope(res.body), JSON.stringify(res.body)).toBe(true);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  it('the daemon keeps serving afterwards', async () => {
    expect((await d.api('GET', '/v1/health', { key: null })).status).toBe(200);
  });
});
