import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { routes, API_PREFIXES } from '../../../src/contract/routes.js';
import type { RouteDef } from '../../../src/contract/route.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/server/http/app.js';

// Issue "HTTP core"; spec: Errors (envelope, type to status), X-Request-Id.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const code = (r: { body: { error?: { code: string } } }) => r.body.error?.code;
const allRoutes = () => Object.entries(routes) as [string, RouteDef][];
const concrete = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'x_$1');

describe('prefixes', () => {
  it('every route of the table is served under /v1 and /api/v1', async () => {
    for (const prefix of API_PREFIXES) {
      for (const [id, r] of allRoutes()) {
        // Routes are registered once under /v1; /api/v1 is rewritten onto them.
        expect(t.app.hasRoute({ method: r.method, url: '/v1' + r.path }), id).toBe(true);
        const res = await t.req(r.method, prefix + concrete(r.path), { key: null });
        if (r.scope === 'public') expect(res.body?.error?.message ?? '', `${id} ${prefix}`).not.toMatch(/^No route/);
        else expect(code(res), `${id} ${prefix}`).toBe('missing_authorization');
      }
    }
  });

  it('the same answers under both prefixes', async () => {
    const a = await t.req('GET', '/v1/agents/agent');
    const b = await t.req('GET', '/api/v1/agents/agent');
    expect(b.body).toEqual(a.body);
    expect((await t.req('POST', '/api/v1/agents', { body: { name: 'viaapi' } })).status).toBe(201);
    expect((await t.req('GET', '/v1/agents/viaapi')).status).toBe(200);
  });
});

describe('request ids', () => {
  it('X-Request-Id on successes, refusals, 404 and 405; equal to error.request_id; unique', async () => {
    const seen = new Set<string>();
    const answers = [
      await t.req('GET', '/v1/health', { key: null }),
      await t.req('GET', '/v1/me'),
      await t.req('GET', '/v1/me', { key: null }),
      await t.req('GET', '/v1/nowhere'),
      await t.req('PUT', '/v1/me'),
      await t.req('POST', '/v1/agents', { body: { name: '..' } }),
    ];
    for (const r of answers) {
      const id = String(r.headers['x-request-id']);
      expect(id).toMatch(/^req_[0-9a-z]{26}$/);
      if (r.status >= 400) expect(r.body.error.request_id).toBe(id);
      seen.add(id);
    }
    expect(seen.size).toBe(answers.length);
  });

  it('a request id sent by the client is not echoed (ids are always minted here)', async () => {
    const r = await t.req('GET', '/v1/me', { key: null, headers: { 'x-request-id': 'req_forged' } });
    expect(r.headers['x-request-id']).not.toBe('req_forged');
    expect(r.body.error.request_id).not.toBe('req_forged');
  });
});

describe('validation errors', () => {
  it('missing_field / invalid_field / invalid_param_value, with param as the client wrote it', async () => {
    const long = 'x'.repeat(250) + '.com';
    const cases: [unknown, string, string][] = [
      [{}, 'missing_field', 'name'],
      [{ name: 'ok', allowlist_domains: ['a.com', 'b.com', long] }, 'invalid_param_value', 'allowlist_domains[2]'],
      [{ name: 'ok', blocklist_domains: ['a.com', 7] }, 'invalid_param_value', 'blocklist_domains[1]'],
      [{ name: 'ok', extra: true }, 'invalid_field', 'extra'],
      [{ name: 'ok', daily_send_limit: 'many' }, 'invalid_param_value', 'daily_send_limit'],
    ];
    for (const [body, c, param] of cases) {
      const r = await t.req('POST', '/v1/agents', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(code(r), JSON.stringify(body)).toBe(c);
      expect(r.body.error.param, JSON.stringify(body)).toBe(param);
    }
  });

  it('a body that is not a JSON object is 400 invalid_field, param body', async () => {
    // JSON null too: it is a body, and not an object (an outside tester: it used to read as absent).
    for (const raw of ['[]', '"name"', '42', 'true', 'null']) {
      const r = await t.req('POST', '/v1/agents', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, raw).toBe(400);
      expect(code(r), raw).toBe('invalid_field');
      expect(r.body.error.param).toBe('body');
    }
    // An empty body is an absent one: the required field is named.
    const n = await t.req('POST', '/v1/agents', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(code(n)).toBe('missing_field');
  });

  it('malformed JSON is 400 with the envelope, never a 500', async () => {
    for (const raw of ['{bad', '{"name":', '{"name":"x"}}', '\u0000']) {
      const r = await t.req('POST', '/v1/agents', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, raw).toBe(400);
      expect(r.body.error.type).toBe('invalid_request_error');
    }
  });

  it('a body in another content type is 400', async () => {
    for (const [type, raw] of [
      ['application/xml', '<name>x</name>'],
      ['application/x-www-form-urlencoded', 'name=formmade'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nformmade\r\n--b--\r\n'],
    ]) {
      const r = await t.req('POST', '/v1/agents', { rawBody: raw, headers: { 'content-type': type } });
      expect(r.status, type).toBe(400);
      expect(code(r), type).toBe('invalid_field');
      expect(r.body.error.param, type).toBe('Content-Type');
    }
    expect((await t.req('GET', '/v1/agents/formmade')).status).toBe(404);
  });

  it('path that is not valid percent-encoding is 400 with the envelope and X-Request-Id', async () => {
    const r = await t.req('GET', '/v1/agents/%E0%A4%A');
    expect(r.status).toBe(400);
    expect(code(r)).toBe('invalid_param_value');
  });

  it('a path parameter over its limit is 400 invalid_param_value, param id', async () => {
    const r = await t.req('GET', '/v1/agents/' + 'a'.repeat(300));
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('id');
    const huge = await t.req('GET', '/v1/agents/' + 'a'.repeat(600));
    expect(huge.status).toBe(400);
  });
});

describe('empty bodies (compat.md: Content-Type: application/json with no body)', () => {
  it('POST with an empty JSON body validates as {}', async () => {
    const r = await t.req('POST', '/v1/agents', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(code(r)).toBe('missing_field');
    expect(r.body.error.param).toBe('name');
    const noType = await t.req('POST', '/v1/agents', {});
    expect(code(noType)).toBe('missing_field');
  });

  it('DELETE and GET with Content-Type: application/json and no body work', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'emptydelete' } });
    const del = await t.req('DELETE', `/v1/agents/${a.body.id}`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(del.status).toBe(200);
    const get = await t.req('GET', '/v1/me', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(get.status).toBe(200);
    const k = await t.req('POST', '/v1/api-keys', { body: { name: 'e', scopes: [], mode: 'live' } });
    const rev = await t.req('DELETE', `/v1/api-keys/${k.body.id}`, { rawBody: '', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(rev.status).toBe(200);
  });

  it('an Idempotency-Key header on a non-send POST is accepted (compat.md: the Python client sends it everywhere)', async () => {
    const r = await t.req('POST', '/v1/agents', { body: { name: 'idem' }, headers: { 'idempotency-key': 'sdk-1234' } });
    expect(r.status).toBe(201);
  });
});

describe('body limit', () => {
  it('a body over the route limit is 413 body_too_large', async () => {
    const big = JSON.stringify({ name: 'big', display_name: 'x'.repeat(DEFAULT_BODY_LIMIT) });
    const r = await t.req('POST', '/v1/agents', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(code(r)).toBe('body_too_large');
    expect(r.body.error.type).toBe('invalid_request_error');
    expect((await t.req('GET', '/v1/agents/big')).status).toBe(404);
  });

  it('is not consulted before authentication', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(DEFAULT_BODY_LIMIT + 10) });
    const r = await t.req('POST', '/v1/agents', { key: null, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(401);
  });
});

describe('routing errors', () => {
  it('an unknown route is 404 resource_not_found, with or without a key', async () => {
    for (const [m, u, key] of [
      ['GET', '/v1/nope', undefined], ['GET', '/v1/nope', null], ['POST', '/api/v1/agents/x/y', undefined],
      ['GET', '/v2/agents', undefined], ['GET', '/nope', null], ['GET', '/ui/nope.js', null], ['DELETE', '/v1', undefined],
    ] as const) {
      const r = await t.req(m, u, { key });
      expect(r.status, `${m} ${u}`).toBe(404);
      expect(code(r)).toBe('resource_not_found');
      expect(r.body.error.type).toBe('resource_error');
    }
  });

  it('an unknown route one path segment away from a route names it (did you mean), with the request\'s ids kept', async () => {
    const cases: [string, string, RegExp | null][] = [
      ['GET', '/v1/messages/received/rcv_abc/raw', /Did you mean GET \/v1\/messages\/rcv_abc\/raw( or |\?)/],
      ['GET', '/v1/received', /Did you mean GET \/v1\/messages\/received\?/],
      ['GET', '/api/v1/messages/received/rcv_abc/raw', /Did you mean GET \/v1\/messages\/rcv_abc\/raw/],
      ['POST', '/v1/agent', /Did you mean POST \/v1\/agents( or |\?)/],
      ['GET', '/v1/nope/at/all/here', null],
      // A plain word is not an id: no route template filled with it (/v1/agents/search is no route anybody asked for).
      ['GET', '/v1/search', null],
      ['GET', '/v1/foo', null],
      ['DELETE', '/v1/bar', null],
      // An id or an address moved into an id position is kept; a static route a typo away from the whole path is named.
      ['GET', '/v1/agents/messages/agent@local.mailagent.localhost', /Did you mean GET \/v1\/agents\/agent@local\.mailagent\.localhost( or |\?)/],
      ['GET', '/v1/messagesreceived', /Did you mean GET \/v1\/messages\/received\?/],
    ];
    for (const [m, u, want] of cases) {
      const r = await t.req(m, u);
      expect(r.status, `${m} ${u}`).toBe(404);
      expect(code(r)).toBe('resource_not_found');
      if (want) expect(r.body.error.message, `${m} ${u}`).toMatch(want);
      else expect(r.body.error.message, `${m} ${u}`).not.toContain('Did you mean');
      expect(r.body.error.message).toMatch(/See GET \/v1\/openapi\.json\.$/);
    }
  });

  it('a known path with the wrong method is 405 method_not_allowed with Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/agents', ['GET', 'HEAD', 'POST']],
      ['DELETE', '/v1/agents', ['GET', 'HEAD', 'POST']],
      ['POST', '/v1/agents/agent', ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['PATCH', '/api/v1/api-keys/key_x', ['DELETE']],
      ['POST', '/v1/me', ['GET', 'HEAD']],
      ['DELETE', '/v1/health', ['GET', 'HEAD']],
    ];
    for (const [m, u, allow] of cases) {
      const r = await t.req(m, u);
      expect(r.status, `${m} ${u}`).toBe(405);
      expect(code(r)).toBe('method_not_allowed');
      expect(String(r.headers.allow).split(/,\s*/).sort()).toEqual(allow);
    }
  });

  it('HEAD and a trailing slash work', async () => {
    expect((await t.app.inject({ method: 'HEAD', url: '/v1/health' })).statusCode).toBe(200);
    expect((await t.req('GET', '/v1/agents/')).status).toBe(200);
  });
});

describe('GET /v1/health and /v1/openapi.json', () => {
  it('health needs no key: {status: ok, version}', async () => {
    const r = await t.req('GET', '/v1/health', { key: null });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.version).toBe(t.config.version);
    // A bad key does not matter on a public route.
    expect((await t.req('GET', '/api/v1/health', { key: 'mk_live_nope' })).status).toBe(200);
  });

  it('openapi.json lists every route of the table with its method, scope and schemas', async () => {
    const r = await t.req('GET', '/v1/openapi.json', { key: null });
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toContain('application/json');
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    // The API's version (spec, Versioning), not the package's; the daemon's version rides beside it.
    expect(doc.info.version).toBe('0.2.0');
    expect(doc.info['x-mailagent-version']).toBe(t.config.version);
    expect(doc.servers[0].url).toBe(t.config.publicUrl);
    const ops = new Map<string, { method: string; path: string }>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const [method, op] of Object.entries(item)) ops.set(op.operationId, { method: method.toUpperCase(), path });
    }
    expect([...ops.keys()].sort()).toEqual(Object.keys(routes).sort());
    for (const [id, rt] of allRoutes()) {
      expect(ops.get(id), id).toEqual({ method: rt.method, path: '/v1' + rt.path.replace(/:([A-Za-z_]+)/g, '{$1}') });
      const op = doc.paths[ops.get(id)!.path][rt.method.toLowerCase()];
      expect(op.responses[String(rt.status)], id).toBeDefined();
      // Generated from the same schemas the server validates with.
      if (rt.body) expect(op.requestBody.content['application/json'].schema, id).toEqual(JSON.parse(JSON.stringify(rt.body)));
      if (rt.response) expect(op.responses[String(rt.status)].content['application/json'].schema, id).toEqual(JSON.parse(JSON.stringify(rt.response)));
      if (rt.scope === 'public') expect(op.security, id).toEqual([]);
    }
    const create = doc.paths['/v1/agents'].post;
    expect(create.requestBody.content['application/json'].schema.required).toContain('name');
    expect(create.description).toContain('manage');
    const list = doc.paths['/v1/agents'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['limit', 'cursor', 'status']));
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
    // The same document under /api/v1.
    expect((await t.req('GET', '/api/v1/openapi.json', { key: null })).body).toEqual(doc);
  });
});

describe('unexpected failures', () => {
  it('an exception is 500 internal_error with a generic message; the cause goes to the log only', async () => {
    const t2 = await createTestApp();
    try {
      const logged: unknown[] = [];
      t2.ctx.log = { ...t2.ctx.log, error: (obj: unknown) => { logged.push(obj); } };
      t2.app.get('/v1/boom', async () => {
        throw new Error('secret detail: SQLITE_CORRUPT at /var/data');
      });
      t2.app.get('/v1/boom-type', async () => {
        (undefined as unknown as { x: number }).x++;
      });
      for (const url of ['/v1/boom', '/v1/boom-type']) {
        const r = await t2.req('GET', url, { key: null });
        expect(r.status).toBe(500);
        expect(code(r)).toBe('internal_error');
        expect(r.body.error.type).toBe('api_error');
        expect(r.text).not.toContain('secret');
        expect(r.text).not.toContain('SQLITE');
        expect(r.text).not.toContain('undefined');
      }
      expect(logged.length).toBe(2);
      expect(JSON.stringify((logged[0] as { err: Error }).err.message)).toContain('secret detail');
      expect((logged[0] as { request_id: string }).request_id).toMatch(/^req_/);
    } finally {
      await t2.close();
    }
  });

  it('a database failure inside a route is a 500 envelope, not a crash', async () => {
    const t3 = await createTestApp();
    try {
      t3.ctx.log = { ...t3.ctx.log, error: () => {} };
      // Provoke one: a table the route needs is gone.
      await t3.ctx.db.schema.dropTable('events').execute();
      const r = await t3.req('POST', '/v1/agents', { body: { name: 'doomed' } });
      expect(r.status).toBe(500);
      expect(code(r)).toBe('internal_error');
      expect(r.text).not.toContain('events');
      // The transaction rolled back: no half-written agent.
      const rows = await t3.ctx.db.selectFrom('agents').select('name').where('name', '=', 'doomed').execute();
      expect(rows).toEqual([]);
    } finally {
      await t3.close();
    }
  });
});
