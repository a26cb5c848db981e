import { spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { ErrorEnvelope } from '../../../src/contract/errors.js';
import { BIN, ROOT, isolatedEnv, runCli, startDaemon, tempHome, type TestDaemon } from '../../helpers/daemon.js';

/** What each transport does on its own: the HTTP endpoint's refusals and caps, stdio's stdout discipline. */

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon();
}, 30_000);
afterAll(async () => {
  await d?.stop();
});

const ACCEPT = 'application/json, text/event-stream';
const rpc = (id: number, method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
/** A whole stdio session: initialize, then these requests, one JSON-RPC message per line. */
const session = (...requests: string[]) =>
  [rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), ...requests].join('\n') + '\n';
const waitCall = (id: number, seconds: number) => rpc(id, 'tools/call', { name: 'mails.wait_for_message', arguments: { agent: 'agent', timeout_seconds: seconds } });

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${d.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

function expectEnvelope(r: { status: number; headers: Headers; json: () => any }, status: number, code: string) {
  expect(r.status).toBe(status);
  const body = r.json();
  expect(Value.Check(ErrorEnvelope, body), JSON.stringify(body)).toBe(true);
  expect(body.error.code).toBe(code);
  expect(r.headers.get('x-request-id')).toBe(body.error.request_id);
}

describe('POST /mcp (Streamable HTTP)', () => {
  it('refuses a request without a key, or with a bad one, before reading it', async () => {
    const none = await post(rpc(1, 'tools/list'));
    expectEnvelope(none, 401, 'missing_authorization');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectEnvelope(await post(rpc(1, 'tools/list'), { authorization: 'Bearer mk_test_00000000000000000000000000000000' }), 401, 'invalid_api_key');
    expectEnvelope(await post(rpc(1, 'tools/list'), { authorization: 'Basic Zm9vOmJhcg==' }), 401, 'invalid_api_key');
  });

  it('answers a single JSON-RPC request with JSON, statelessly (no session id)', async () => {
    const r = await post(rpc(7, 'tools/list'), { authorization: `Bearer ${d.testKey}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    expect(r.json().id).toBe(7);
    expect(r.json().result.tools.length).toBe(24);
  });

  it('has no GET stream and no session to DELETE (405, Allow: POST)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${d.url}/mcp`, { method, headers: { authorization: `Bearer ${d.testKey}`, accept: 'text/event-stream' } });
      const body: unknown = await res.json();
      expectEnvelope({ status: res.status, headers: res.headers, json: () => body }, 405, 'method_not_allowed');
    }
    const res = await fetch(`${d.url}/mcp`, { method: 'GET' });
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('caps the body at 8 MiB (413 body_too_large) and refuses malformed JSON (400, JSON-RPC -32700)', async () => {
    // Announce a 9 MiB body and send none of it: the answer comes from the Content-Length alone.
    // (Uploading it all races the daemon, which answers and closes at once: EPIPE on our side.)
    const tooBig = await new Promise<{ status: number; headers: Headers; json: () => unknown }>((resolve, reject) => {
      const req = http.request(`${d.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json', accept: ACCEPT, 'content-length': String(9 * 1024 * 1024) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), json: () => JSON.parse(text) });
        });
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expectEnvelope(tooBig, 413, 'body_too_large');
    const bad = await post('{"jsonrpc":', { authorization: `Bearer ${d.testKey}` });
    expect(bad.status).toBe(400);
    // JSON-RPC's Parse error, as the protocol's clients read it (not the REST envelope).
    expect(bad.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(bad.json().error.message).toMatch(/^Parse error: /);
    expect(bad.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('caps the requests one key has in progress at 8 (429 rate_limit_exceeded for the 9th)', async () => {
    const auth = { authorization: `Bearer ${d.testKey}` };
    const held = Array.from({ length: 8 }, (_, i) => post(waitCall(i + 1, 8), auth));
    // Once all eight are admitted (on a loaded machine that is not within a fixed delay: a 700 ms
    // sleep saw a 200 on PostgreSQL in CI), a ninth call is refused. A quick call that is admitted
    // before then ends at once and holds no slot, so ask until the cap answers, well within the 8 s.
    let ninth = await post(rpc(99, 'tools/list'), auth);
    for (const until = Date.now() + 5000; ninth.status === 200 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      ninth = await post(rpc(99, 'tools/list'), auth);
    }
    expectEnvelope(ninth, 429, 'rate_limit_exceeded');
    expect(ninth.headers.get('retry-after')).toBe('1');
    // Another key is not held back by the first one's calls.
    const other = await post(rpc(1, 'tools/list'), { authorization: `Bearer ${d.liveKey}` });
    expect(other.status).toBe(200);
    for (const r of await Promise.all(held)) {
      expect(r.status).toBe(200);
      expect(r.json().result.structuredContent.timed_out).toBe(true);
    }
    // Once they finished, the key may call again.
    expect((await post(rpc(1, 'tools/list'), auth)).status).toBe(200);
  }, 30_000);
});

describe('POST /mcp at shutdown', () => {
  it('a call in progress (a long wait) does not hold the daemon\'s drain: the daemon ends it and exits', async () => {
    const own = await startDaemon();
    const pending = fetch(`${own.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${own.testKey}`, 'content-type': 'application/json', accept: ACCEPT },
      body: waitCall(1, 50),
    }).then((r) => r.text(), (err: Error) => err);
    await new Promise((r) => setTimeout(r, 1000));
    const t0 = Date.now();
    const code = await own.stop();
    await pending;
    // The daemon's drain gives up after 10 s; ending MCP calls at preClose is what makes it quick.
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(code).toBe(0);
  }, 40_000);
});

describe('mailagent mcp (stdio)', () => {
  it('writes only JSON-RPC messages on stdout and answers calls in progress after stdin closes', async () => {
    const input = session(
      rpc(2, 'tools/list'),
      rpc(3, 'tools/call', { name: 'mails.me', arguments: {} }),
      rpc(4, 'tools/call', { name: 'mails.get_received', arguments: { message_id: 'rcv_nope' } }),
      waitCall(5, 1),
    );
    const r = await d.cli(['mcp'], { input, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const msgs = lines.map((l) => JSON.parse(l));
    for (const m of msgs) expect(m.jsonrpc).toBe('2.0');
    const byId = new Map(msgs.map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(byId.get(1).result.protocolVersion).toBe('2025-11-25');
    expect(byId.get(3).result.structuredContent.api_key.mode).toBe('test');
    expect(byId.get(4).result.isError).toBe(true);
    expect(JSON.parse(byId.get(4).result.content[0].text).error.code).toBe('resource_not_found');
    expect(byId.get(5).result.structuredContent).toEqual({ message: null, timed_out: true });
    expect(r.stderr).toMatch(/serving tools on stdio/);
  }, 40_000);

  it('uses the profile\'s live key with --live', async () => {
    const input = session(rpc(2, 'tools/call', { name: 'mails.me', arguments: {} }));
    const r = await d.cli(['mcp', '--live'], { input, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const me = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.id === 2);
    expect(me.result.structuredContent.api_key.mode).toBe('live');
  }, 40_000);

  it('a daemon that is down is a tool error naming the URL, not a crash', async () => {
    const input = session(rpc(2, 'tools/call', { name: 'mails.me', arguments: {} }));
    const r = await runCli(['mcp', '--base-url', 'http://127.0.0.1:9', '--api-key', 'mk_test_00000000000000000000000000000000'], { env: isolatedEnv(tempHome()), input });
    expect(r.code, r.stderr).toBe(0);
    const res = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.id === 2);
    expect(res.result.isError).toBe(true);
    const err = JSON.parse(res.result.content[0].text).error;
    expect(err.code).toBe('service_unavailable');
    expect(err.message).toMatch(/127\.0\.0\.1:9.*mailagent serve/);
  }, 30_000);

  it('without a key exits 4 before speaking, with the reason on stderr and nothing on stdout', async () => {
    const r = await runCli(['mcp'], { env: isolatedEnv(tempHome()) });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no API key/);
  });

  it('Ctrl-C ends it with exit 130', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: d.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    await new Promise<void>((resolve) => {
      const check = () => (/serving tools/.test(err) ? resolve() : setTimeout(check, 50));
      check();
    });
    const code = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    child.kill('SIGINT');
    expect(await code).toBe(130);
  }, 20_000);

  it('--help says what it is, how to configure a client and that --json does not apply', async () => {
    const r = await runCli(['mcp', '--help'], { env: isolatedEnv(tempHome()) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Model Context Protocol/);
    expect(r.stdout).toMatch(/--json has no meaning here/);
    expect(r.stdout).toMatch(/claude mcp add/);
  });
});

describe('bad messages are answered, never dropped, alike on both transports (src/mcp/guard.ts)', () => {
  const deepPing = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  const stringArgs = rpc(7, 'tools/call', { name: 'mails.me', arguments: 'str' });
  const notRpc = JSON.stringify({ id: 10, method: 'ping' });
  const badInit = rpc(12, 'initialize', {});
  const bogusField = rpc(13, 'tools/call', { name: 'mails.list_received', arguments: { bogus: 1 } });

  it('stdio answers each bad line (parse -32700, invalid or too deep -32600 with its id, bad params -32602) and goes on', async () => {
    const input = session(
      'not json',
      deepPing(5),
      rpc(6, 'ping'),
      stringArgs,
      notRpc,
      JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'ping' }]),
      'x'.repeat(9 * 1024 * 1024), // past the 8 MiB line cap: discarded unread, the session goes on
      rpc(11, 'ping'),
      badInit,
      bogusField,
    );
    const r = await d.cli(['mcp'], { input, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    for (const m of msgs) expect(m.jsonrpc).toBe('2.0');
    const byId = new Map(msgs.filter((m) => m.id !== null).map((m) => [m.id, m]));
    const anonymous = msgs.filter((m) => m.id === null).map((m) => m.error);
    // Every request got its answer, in any order; the ones whose id could not be read, with id null.
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual([1, 5, 6, 7, 10, 11, 12, 13]);
    expect(anonymous.map((e) => e.code).sort()).toEqual([-32700, -32600, -32600].sort());
    expect(anonymous.find((e) => e.code === -32700).message).toMatch(/^Parse error: the line is not JSON/);
    expect(anonymous.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringMatching(/batches/), expect.stringMatching(/longer than 8 MiB was discarded/)]));
    expect(byId.get(5).error).toMatchObject({ code: -32600, message: expect.stringMatching(/more than 64 levels deep/) });
    expect(byId.get(6).result).toEqual({});
    expect(byId.get(7).error).toEqual({ code: -32602, message: 'Invalid params for tools/call: `params.arguments` must be a JSON object (got a string).' });
    expect(byId.get(10).error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid Request: `jsonrpc` must be "2.0"/) });
    expect(byId.get(11).result).toEqual({});
    expect(byId.get(12).error).toMatchObject({ code: -32602, message: expect.stringMatching(/`params.protocolVersion` is missing/) });
    const bogus = JSON.parse(byId.get(13).result.content[0].text).error;
    expect(bogus).toMatchObject({ code: 'invalid_field', param: 'bogus', request_id: expect.stringMatching(/^req_mcp_/) });
    expect(r.stderr).toContain(`${bogus.request_id}: mails.list_received refused: invalid_field`);

    // Over HTTP the same messages get the same JSON-RPC answers: not JSON is the Parse error as over
    // stdio (HTTP 400); too deep is the daemon's envelope (its parser's depth cap runs before MCP).
    const auth = { authorization: `Bearer ${d.testKey}` };
    const notJson = await post('not json', auth);
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: .*not valid JSON/) } });
    const deep = await post(deepPing(5), auth);
    expectEnvelope(deep, 400, 'invalid_field');
    expect(deep.json().error.message).toMatch(/more than 64 levels deep/);
    for (const [body, id, status] of [[stringArgs, 7, 200], [notRpc, 10, 400], [badInit, 12, 200]] as const) {
      const h = await post(body, auth);
      expect([h.status, h.json()]).toEqual([status, byId.get(id)]);
    }
    const viaHttp = await post(bogusField, auth);
    const httpBogus = JSON.parse(viaHttp.json().result.content[0].text).error;
    // The argument check's refusal carries the /mcp request's own id (in the daemon's request log).
    expect(httpBogus.request_id).toBe(viaHttp.headers.get('x-request-id'));
    expect({ ...httpBogus, request_id: null }).toEqual({ ...bogus, request_id: null });
  }, 90_000);
});
