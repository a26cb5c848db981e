import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { buildApp } from '../../../src/server/http/app.js';
import { redactUrl } from '../../../src/server/http/log-redact.js';

// `--log-level debug` writes one line per request with its URL: an unsubscribe token (whoever
// holds it unsubscribes that recipient), a web sign-in link's token or a `?token=` value must not
// reach the log (an outside tester found them there in full).
let t: TestApp;
let app: FastifyInstance;
const lines: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  const stream = new Writable({ write(chunk, _enc, cb) { lines.push(...String(chunk).split('\n').filter(Boolean)); cb(); } });
  // As the daemon builds it at --log-level debug (server/daemon.ts).
  app = await buildApp(t.ctx, { logger: { level: 'debug', stream }, requestLogging: true });
});
afterAll(async () => {
  await app.close();
  await t.close();
});

const SECRET = 'eyJTOPSECRETpayload.c2lnbmF0dXJlU0VDUkVU';

describe('the request log lines of --log-level debug', () => {
  it('carry the route and ids, not the secrets in the URL', async () => {
    lines.length = 0;
    const urls = [
      `/v1/unsubscribe/${SECRET}`, `/api/v1/unsubscribe/${SECRET}?x=1`, `/ui/sign-in/${SECRET}`,
      `/v1/messages?limit=5&token=${SECRET}`, `/v1/health?access_token=${SECRET}#frag`,
    ];
    for (const url of urls) await app.inject({ method: 'GET', url });
    await app.inject({ method: 'POST', url: `/v1/unsubscribe/${SECRET}`, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; req?: { url: string } });
    const reqUrls = logged.filter((l) => l.msg === 'incoming request').map((l) => l.req!.url);
    expect(reqUrls).toHaveLength(6);
    expect(reqUrls).toEqual(expect.arrayContaining([
      '/v1/unsubscribe/[redacted]', '/v1/unsubscribe/[redacted]?x=1', '/ui/sign-in/[redacted]',
      '/v1/messages?limit=5&token=[redacted]',
    ]));
    expect(lines.join('\n')).not.toContain('TOPSECRET');
  });

  it('redactUrl leaves a URL without secrets as it is', () => {
    for (const u of ['/v1/messages?limit=5&cursor=abc', '/v1/messages/msg_01/cancel', '/v1/unsubscribe', '/v1/me?tokenish=1']) expect(redactUrl(u)).toBe(u);
    expect(redactUrl('/v1/x?Token=a&b=2&api_key=c')).toBe('/v1/x?Token=[redacted]&b=2&api_key=[redacted]');
  });
});
