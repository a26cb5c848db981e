import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { loadConfig, type Config, type ConfigInput } from '../../src/server/config.js';
import { openDatabase, migrate } from '../../src/db/open.js';
import { testDatabase } from './db.js';
import { createContext } from '../../src/server/context.js';
import { buildApp } from '../../src/server/http/app.js';
import { bootstrapWorkspace, type BootstrapResult } from '../../src/services/bootstrap.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { AppContext } from '../../src/services/context.js';
import { routes } from '../../src/contract/routes.js';
import type { RouteDef } from '../../src/contract/route.js';
import { ErrorEnvelope } from '../../src/contract/errors.js';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const envelopeValidator = ajv.compile(JSON.parse(JSON.stringify(ErrorEnvelope)));
const responseValidators = new Map<string, { re: RegExp; method: string; validate: ValidateFunction | null; id: string }>();
for (const [id, r] of Object.entries(routes) as [string, RouteDef][]) {
  responseValidators.set(id, {
    id,
    method: r.method,
    re: new RegExp('^' + r.path.replace(/:[^/]+/g, '[^/]+') + '/?$'),
    validate: r.response ? ajv.compile(JSON.parse(JSON.stringify(r.response))) : null,
  });
}

/** The route a request hit (static paths win over parameterised ones, as in the router). */
export function matchRoute(method: string, url: string) {
  const path = url.split('?')[0].replace(/^\/(api\/)?v1/, '');
  const hits = [...responseValidators.values()].filter((v) => v.method === method && v.re.test(path));
  hits.sort((a, b) => (a.re.source.match(/\[\^\/\]\+/g)?.length ?? 0) - (b.re.source.match(/\[\^\/\]\+/g)?.length ?? 0));
  return hits[0];
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

/**
 * Every answer is checked for free: X-Request-Id on every response; a non-2xx body must be the
 * error envelope with request_id equal to the header; a 2xx JSON body must match its route's schema.
 */
export function checkResponse(method: string, url: string, res: Res): void {
  const rid = res.headers['x-request-id'];
  expect(rid, `${method} ${url}: X-Request-Id`).toMatch(/^req_/);
  if (res.status >= 400) {
    const ok = envelopeValidator(res.body);
    expect(ok, `${method} ${url} → ${res.status}: not an error envelope: ${res.text.slice(0, 400)} ${JSON.stringify(envelopeValidator.errors)}`).toBe(true);
    expect(res.body.error.request_id).toBe(rid);
  } else {
    const r = matchRoute(method, url);
    if (r?.validate && String(res.headers['content-type'] ?? '').includes('json')) {
      const ok = r.validate(res.body);
      expect(ok, `${method} ${url} → ${res.status}: response does not match ${r.id}: ${JSON.stringify(r.validate.errors)} ${res.text.slice(0, 600)}`).toBe(true);
    }
  }
}

export async function call(app: FastifyInstance, method: string, url: string, opts: RequestOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let payload: string | Buffer | undefined;
  if (opts.rawBody !== undefined) payload = opts.rawBody;
  else if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  let full = url;
  if (opts.query) {
    const qs = new URLSearchParams(Object.entries(opts.query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)] as [string, string]));
    if ([...qs].length) full += (url.includes('?') ? '&' : '?') + qs.toString();
  }
  const r = await app.inject({ method: method as never, url: full, headers, payload });
  let body: unknown = undefined;
  try {
    body = r.body ? JSON.parse(r.body) : undefined;
  } catch {
    body = undefined;
  }
  const res: Res = { status: r.statusCode, body, headers: r.headers as Res['headers'], text: r.body };
  checkResponse(method, full, res);
  return res;
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: ManualClock;
  config: Config;
  dir: string;
  boot: BootstrapResult;
  liveKey: string;
  testKey: string;
  /** Call the API with the live owner key unless opts.key says otherwise (null: no key). */
  req(method: string, url: string, opts?: RequestOptions): Promise<Res>;
  /** Create a key with the live owner key and return its plaintext. */
  makeKey(spec: { scopes: string[]; mode?: 'live' | 'test'; agent_id?: string; expires_at?: string; name?: string }, maker?: string): Promise<string>;
  close(): Promise<void>;
}

export async function createTestApp(overrides: ConfigInput = {}, clockStart = Date.now()): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-test-'));
  const store = await testDatabase(dir);
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', databaseUrl: store.url ?? undefined, ...overrides }, {});
  const clock = new ManualClock(clockStart);
  const opened = openDatabase(config.database);
  await migrate(opened.db);
  const ctx = createContext(config, opened.db, clock);
  const boot = await bootstrapWorkspace(ctx, {});
  const app = await buildApp(ctx, { logger: false, trustProxy: config.trustedProxies });
  const liveKey = boot.keys.live.key;
  const t: TestApp = {
    app, ctx, clock, config, dir, boot, liveKey, testKey: boot.keys.test.key,
    req: (method, url, opts = {}) => call(app, method, url, { ...opts, key: opts.key === undefined ? liveKey : opts.key }),
    async makeKey(spec, maker = liveKey) {
      const r = await call(app, 'POST', '/v1/api-keys', { key: maker, body: { name: spec.name ?? 'k', mode: spec.mode ?? 'live', ...spec } });
      expect(r.status, r.text).toBe(201);
      return r.body.key as string;
    },
    async close() {
      await app.close();
      await opened.close();
      await store.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
