import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startLiveDaemon, type LiveDaemon } from './helpers.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';

// Large request bodies (docs/security.md → HTTP bodies; server/http/body-worker.ts), against a real
// daemon over real sockets: a body over its cap is refused from its Content-Length before it is
// read, or as soon as the bytes read pass the cap; bodies past the buffered-bytes budget get a
// retryable 429; a large attachment within the caps (parsed and decoded off the main thread) is
// sent byte for byte.
const MIB = 1024 * 1024;
const BUDGET = 6 * MIB;
let d: LiveDaemon;
let relay: TestRelay;
beforeAll(async () => {
  relay = await TestRelay.start();
  d = await startLiveDaemon({ relay: relay.url, httpMaxBufferedBodyBytes: BUDGET });
});
afterAll(async () => {
  closeRelay(d.daemon.ctx);
  await d.stop();
  await relay.stop();
});

interface RawResponse { status: number; headers: Record<string, string>; body: any }

/** The first complete response in `buf` (headers and a Content-Length body), or null. */
function responseIn(buf: Buffer): RawResponse | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const len = Number(headers['content-length'] ?? 0);
  if (buf.length - end - 4 < len) return null;
  return { status: Number(lines[0].split(' ')[1]), headers, body: JSON.parse(buf.subarray(end + 4, end + 4 + len).toString('utf8')) };
}

/**
 * A request written by hand over TCP: its head at once, its body as the test writes it. `response`
 * resolves with the first answer, whether or not the body was sent.
 */
function openRequest(method: string, path: string, headers: Record<string, string>) {
  const sock = net.connect(d.httpPort, '127.0.0.1');
  let buf = Buffer.alloc(0);
  let closed = false;
  const response = new Promise<RawResponse>((resolve, reject) => {
    sock.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const r = responseIn(buf);
      if (r) resolve(r);
    });
    sock.on('error', () => { /* a write after the server closed: the answer (if any) is already read */ });
    sock.on('close', () => {
      closed = true;
      const r = responseIn(buf);
      if (r) resolve(r);
      else reject(new Error(`connection closed without an answer: ${buf.toString('latin1').slice(0, 300)}`));
    });
  });
  sock.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
  const write = (b: Buffer | string) => new Promise<void>((r) => sock.write(b, () => r()));
  return {
    response,
    write,
    /** One chunk of a chunked body. */
    chunk: (b: Buffer) => write(Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])),
    closedByServer: () => closed,
    destroy: () => sock.destroy(),
  };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** A send request with one attachment of `bytes`; its JSON text. */
function sendJson(bytes: Buffer, extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({
    agent: 'agent', to: 'bob@example.com', subject: 'Report', body_text: 'The report is attached.',
    attachments: [{ filename: 'report.bin', content_base64: bytes.toString('base64') }], ...extra,
  }));
}

describe('a body over its cap is refused before it is read', () => {
  it('a declared Content-Length over the send cap: 413 body_too_large at once, the body never sent', async () => {
    // 60 MB declared, not one byte of it written: a server that waited for the body would never answer.
    const req = openRequest('POST', '/v1/messages', { ...auth(d.testKey), 'content-length': String(60_000_000) });
    const r = await req.response;
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'body_too_large', param: null });
    expect(r.body.error.message).toContain('60,000,000 bytes');
    expect(r.body.error.message).toContain('50,331,648 bytes (48.0 MiB)');
    expect(r.body.error.message).toMatch(/25 MB decoded.*links/);
    expect(r.body.error.request_id).toBe(r.headers['x-request-id']);
    expect(r.headers.connection).toBe('close');
    req.destroy();
  });

  it('without a key the answer is still 401 (authentication before any body check)', async () => {
    const req = openRequest('POST', '/v1/messages', { 'content-type': 'application/json', 'content-length': String(60_000_000) });
    const r = await req.response;
    expect(r.status).toBe(401);
    req.destroy();
  });

  it('a chunked body is refused once the bytes read pass the cap, before it ends', async () => {
    const req = openRequest('POST', '/v1/agents', { ...auth(d.liveKey), 'transfer-encoding': 'chunked' });
    await req.chunk(Buffer.alloc(1.5 * MIB, 'a'));
    // The terminating chunk is never written.
    const r = await req.response;
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('body_too_large');
    expect(r.body.error.message).toContain('1,048,576 bytes (1.0 MiB) POST /v1/agents accepts');
    req.destroy();
  });
});

describe('the buffered-body budget (httpMaxBufferedBodyBytes)', () => {
  it('past it a body gets 429 rate_limit_exceeded with Retry-After; within it, and after, bodies pass', async () => {
    const bytes = randomBytes(3 * MIB);
    const body = sendJson(bytes);
    expect(body.length).toBeGreaterThan(4 * MIB);
    // A holds its share: its head and half its body sent, the rest later.
    const a = openRequest('POST', '/v1/messages', { ...auth(d.liveKey), 'content-length': String(body.length) });
    await a.write(body.subarray(0, body.length >> 1));
    // Wait until the daemon has read A's first half (its share is held from its head on).
    await new Promise((r) => setTimeout(r, 200));

    // B declares 3 MiB: with A's 4+ MiB it would pass the 6 MiB budget.
    const b = openRequest('POST', '/v1/messages', { ...auth(d.testKey), 'content-length': String(3 * MIB) });
    const rb = await b.response;
    expect(rb.status).toBe(429);
    expect(rb.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', retry_after_seconds: 1 });
    expect(rb.headers['retry-after']).toBe('1');
    expect(Date.parse(rb.body.error.resets_at)).toBeGreaterThan(Date.now() - 5_000);
    expect(rb.body.error.message).toContain('httpMaxBufferedBodyBytes');
    b.destroy();

    // C is chunked: refused once its bytes pass the budget.
    const c = openRequest('POST', '/v1/messages', { ...auth(d.testKey), 'transfer-encoding': 'chunked' });
    await c.chunk(Buffer.alloc(2.5 * MIB, ' '));
    const rc = await c.response;
    expect(rc.status).toBe(429);
    expect(rc.body.error.code).toBe('rate_limit_exceeded');
    c.destroy();

    // Small bodies still fit beside A.
    const small = await d.api('POST', '/v1/agents', { body: { name: 'beside-a-big-body' } });
    expect(small.status).toBe(201);

    // A finishes: sent, and its attachment is on the wire byte for byte.
    relay.messages.length = 0;
    await a.write(body.subarray(body.length >> 1));
    const ra = await a.response;
    expect(ra.status, JSON.stringify(ra.body)).toBe(201);
    expect(ra.body.attachments).toEqual([expect.objectContaining({ filename: 'report.bin', size: bytes.length })]);
    a.destroy();
    expect(relay.messages).toHaveLength(1);
    const wire = await simpleParser(relay.messages[0].raw);
    expect(wire.attachments).toHaveLength(1);
    expect(wire.attachments[0].content.equals(bytes)).toBe(true);

    // A's share is back: B's body now passes.
    const again = await d.api('POST', '/v1/messages', { key: d.testKey, raw: sendJson(randomBytes(2 * MIB)).toString() });
    expect(again.status, again.text).toBe(201);
  });
});

describe('large bodies within the caps', () => {
  const download = async (msg: string, att: string) => {
    const res = await fetch(`${d.url}/v1/messages/${msg}/attachments/${att}`, { headers: { authorization: `Bearer ${d.testKey}` } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('a test-mode send keeps every byte of a large attachment (and of a small one beside it)', async () => {
    const big = randomBytes(2 * MIB + 7);
    const small = randomBytes(100);
    const body = JSON.stringify({
      agent: 'agent', to: 'bob@example.com', subject: 'Two files', body_text: 'x',
      attachments: [
        { filename: 'big.bin', content_base64: big.toString('base64').replace(/(.{76})/g, '$1\r\n'), content_type: 'application/pdf' },
        { filename: 'small.txt', content: small.toString('base64') },
      ],
    });
    const r = await d.api('POST', '/v1/messages', { key: d.testKey, raw: body });
    expect(r.status, r.text).toBe(201);
    const [a, b] = r.body.attachments;
    expect(a).toMatchObject({ filename: 'big.bin', size: big.length, content_type: 'application/pdf' });
    expect((await download(r.body.id, a.id)).equals(big)).toBe(true);
    expect((await download(r.body.id, b.id)).equals(small)).toBe(true);
  });

  it('a large attachment that is not base64 is the same 400 as a small one, naming the field', async () => {
    const body = JSON.stringify({ agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'x', attachments: [{ filename: 'f', content_base64: 'A'.repeat(2 * MIB) + '%' }] });
    const r = await d.api('POST', '/v1/messages', { key: d.testKey, raw: body });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[0].content_base64' });
    expect(r.body.error.message).toContain('is not base64');
  });

  it('attachments over 25 MB decoded are 400 invalid_field naming attachments', async () => {
    // 26 MiB decoded, as whitespace-padded base64 would not be: 34.7 MB of JSON, under the 48 MiB body cap.
    const body = sendJson(Buffer.alloc(26 * MIB, 1));
    const r = await d.api('POST', '/v1/messages', { key: d.testKey, raw: body.toString() });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_field', param: 'attachments' });
  });

  it('Idempotency-Key: the same large body replays; another attachment under the same key is refused', async () => {
    const bytes = randomBytes(2 * MIB);
    const key = `big-${Date.now()}`;
    const headers = { 'idempotency-key': key };
    const first = await d.api('POST', '/v1/messages', { key: d.testKey, raw: sendJson(bytes).toString(), headers });
    expect(first.status, first.text).toBe(201);
    const replay = await d.api('POST', '/v1/messages', { key: d.testKey, raw: sendJson(bytes).toString(), headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    // Same length, one byte different: a different request.
    const other = Buffer.from(bytes);
    other[12345] ^= 0xff;
    const refused = await d.api('POST', '/v1/messages', { key: d.testKey, raw: sendJson(other).toString(), headers });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_idempotency_key');
  });

  it('a batch item with a large attachment is sent whole; a bad item stays inline', async () => {
    const bytes = randomBytes(MIB + 3);
    const items = [
      JSON.parse(sendJson(bytes).toString()),
      { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'x', attachments: [{ filename: 'bad', content_base64: '%'.repeat(100 * 1024) }] },
    ];
    const r = await d.api('POST', '/v1/messages/batch', { key: d.testKey, raw: JSON.stringify({ messages: items }) });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data[1].error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[0].content_base64' });
    const att = r.body.data[0].attachments[0];
    expect(createHash('sha256').update(await download(r.body.data[0].id, att.id)).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('a large non-send body (the simulator, 1.1 MB of text) is parsed off the main thread and stored whole', async () => {
    const text = 'wörd '.repeat(190_000);
    const r = await d.api('POST', '/v1/test/inbound', { key: d.testKey, raw: JSON.stringify({ agent: 'agent', from: 'alice@example.com', subject: 'long', body_text: text }) });
    expect(r.status, r.text).toBe(201);
    const got = await d.api('GET', `/v1/messages/received/${r.body.message_id}`, { key: d.testKey });
    expect(got.body.body_text).toBe(text);
  });

  it('malformed JSON and bytes that are not UTF-8 in a large body get the same 400s as in a small one', async () => {
    const bad = await d.api('POST', '/v1/messages', { key: d.testKey, raw: `{"to": "bob@example.com", "subject": "${'a'.repeat(2 * MIB)}"` });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_field');
    expect(bad.body.error.message).toMatch(/^The request body is not valid JSON:/);
    const latin1 = Buffer.concat([Buffer.from('{"subject": "'), Buffer.alloc(2 * MIB, 0xe9), Buffer.from('"}')]);
    const res = await fetch(`${d.url}/v1/messages`, { method: 'POST', headers: auth(d.testKey), body: latin1 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain('not UTF-8');
  });
});
