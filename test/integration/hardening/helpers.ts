import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { expect } from 'vitest';
import { loadConfig, type ConfigInput } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';
import { checkResponse } from '../../helpers/app.js';

/**
 * A real daemon in this process: real HTTP and SMTP listeners on port 0, a real SQLite file in a
 * temp dir. Every test here talks to it over real sockets (fetch, net), never inject().
 */
export interface LiveDaemon {
  daemon: Daemon;
  url: string;
  httpPort: number;
  smtpPort: number;
  liveKey: string;
  testKey: string;
  /** fetch with a key (live owner key by default); the response is checked against the contract. */
  api(method: string, path: string, opts?: { body?: unknown; key?: string | null; headers?: Record<string, string>; raw?: string }): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  stop(): Promise<void>;
}

export async function startLiveDaemon(overrides: ConfigInput = {}): Promise<LiveDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-hardening-'));
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', ...overrides }, {});
  const daemon = await Daemon.create(config, { quiet: true });
  const addr = await daemon.start();
  const url = addr.http;
  const liveKey = daemon.bootstrapped!.keys.live.key;
  const testKey = daemon.bootstrapped!.keys.test.key;
  const api: LiveDaemon['api'] = async (method, path, opts = {}) => {
    const key = opts.key === undefined ? liveKey : opts.key;
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers };
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch { /* not JSON */ }
    const out = { status: res.status, body: parsed as any, headers: res.headers, text };
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      checkResponse(method, path, { status: res.status, body: parsed, headers: Object.fromEntries(res.headers) as never, text });
    }
    return out;
  };
  return {
    daemon, url, api, liveKey, testKey,
    httpPort: Number(new URL(url).port),
    smtpPort: Number(addr.smtp!.split(':').pop()),
    async stop() {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Send raw bytes over a fresh TCP connection and collect everything until the server closes (or timeout). */
export function rawHttp(port: number, payload: string | Buffer, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => { sock.destroy(); resolve(out); }, timeoutMs);
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => (out += d));
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('close', () => { clearTimeout(timer); resolve(out); });
    sock.write(payload);
  });
}

export function expectEnvelope(res: { status: number; body: any; headers: Headers }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body?.error?.code).toBe(code);
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}
