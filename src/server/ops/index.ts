import type { AppContext } from '../../services/context.js';
import { checkWritable } from '../../db/maintenance.js';
import { isoAt } from '../../shared/clock.js';
import { DiskGuard, type FreeSpaceFn } from './disk-guard.js';
import { Metrics } from './metrics.js';
import { Readiness } from './readiness.js';
import { Errors } from '../../shared/errors.js';
import type { ApiError } from '../../contract/errors.js';
import { isIP } from 'node:net';

/** The operator-facing parts of a daemon (issue #16): disk guard, readiness checks, metrics. */
export interface Ops {
  disk: DiskGuard;
  readiness: Readiness;
  metrics: Metrics;
  /** When set, /metrics needs `Authorization: Bearer <token>` (on every listener). */
  metricsToken: string | null;
}

export interface OpsConfig {
  dataDir: string;
  dbFile: string;
  minFreeDiskBytes: number;
  metricsToken: string | null;
}

export function createOps(ctx: AppContext, config: OpsConfig, opts: { freeSpace?: FreeSpaceFn } = {}): Ops {
  const disk = new DiskGuard(config.dataDir, config.minFreeDiskBytes, opts.freeSpace);
  const readiness = new Readiness();
  readiness.register('database', async () => {
    await checkWritable(ctx.db, isoAt(ctx.clock.now()));
    return { ok: true, detail: 'writable' };
  });
  readiness.register('disk', async () => {
    const s = await disk.check();
    return { ok: s.ok, detail: s.minFreeBytes > 0 ? DiskGuard.describe(s) : 'guard off' };
  });
  return { disk, readiness, metrics: new Metrics(ctx, { dbFile: config.dbFile, disk }), metricsToken: config.metricsToken };
}

/** Readiness of the started parts: each listener is listening, each worker is alive. */
export function registerRuntimeChecks(
  ops: Ops,
  parts: { listeners: { name: string; listening(): boolean; address(): string }[]; workers: { name: string; health?(): { ok: boolean; detail: string } }[]; isRunning(): boolean },
): void {
  for (const l of parts.listeners) {
    ops.readiness.register(l.name, () => (l.listening() ? { ok: true, detail: `listening on ${l.address()}` } : { ok: false, detail: 'not listening' }));
  }
  ops.readiness.register('workers', () => {
    if (!parts.isRunning()) return { ok: false, detail: 'stopped' };
    const bad = parts.workers.map((w) => ({ name: w.name, h: w.health?.() ?? { ok: true, detail: 'running' } })).filter((x) => !x.h.ok);
    return bad.length ? { ok: false, detail: bad.map((b) => `${b.name}: ${b.h.detail}`).join('; ') } : { ok: true, detail: `${parts.workers.length} running` };
  });
}

/** Constant-time comparison of a presented bearer token with the configured one. */
export function metricsAuthorized(ops: Ops, authorization: string | undefined): boolean {
  if (!ops.metricsToken) return true;
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(ops.metricsToken);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i];
  return diff === 0;
}

/**
 * DNS rebinding: a page on `evil.example`, whose name the attacker points at 127.0.0.1, reaches a
 * loopback listener from the victim's browser with its own name in `Host`. A surface that lets a
 * caller in without a key (here /metrics without a token) answers only when `Host` names the
 * machine directly: an IP literal, `localhost` or a `*.localhost` name (RFC 6761: never
 * delegated), with or without a port. A request without `Host` (HTTP/1.0) comes from no browser.
 */
export function hostNamesMachine(host: string | undefined): boolean {
  if (host === undefined || host === '') return true;
  const h = host.trim().toLowerCase();
  const m = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h) ?? /^([^:]+)(?::\d{1,5})?$/.exec(h);
  if (!m) return false;
  const name = m[1].replace(/\.$/, '');
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost');
}

/** The 403 of a key-less surface reached under another name (hostNamesMachine). */
export function rebindingRefusal(host: string, path: string): ApiError {
  return Errors.insufficientScope(
    `${path} answers callers without a token only when the Host header names this machine (an IP address or localhost); `
    + `it got Host ${JSON.stringify(host)}, which a DNS-rebinding page would send. Request it as http://127.0.0.1:<port>${path}, `
    + 'or set metricsToken (MAILAGENT_METRICS_TOKEN) to scrape it under a name.',
  );
}

/**
 * The 401 of /metrics without the right token: it names the metrics token (MAILAGENT_METRICS_TOKEN),
 * which is what it wants, not an API key (an API key is refused here too).
 */
export function metricsRefusal(authorization: string | undefined): ApiError {
  return authorization
    ? Errors.invalidApiKey('The bearer token is not the metrics token: /metrics wants `Authorization: Bearer <MAILAGENT_METRICS_TOKEN>` (an API key is not accepted here).')
    : Errors.missingAuthorizationFor('No metrics token given: /metrics wants `Authorization: Bearer <MAILAGENT_METRICS_TOKEN>` (the token set on the daemon; an API key is not accepted here).');
}

export { DiskGuard, type DiskState, type FreeSpaceFn } from './disk-guard.js';
export { Readiness } from './readiness.js';
export { Metrics } from './metrics.js';

/**
 * GET /health/ready's answer, on the API port and on the metrics listener alike: 200 with the
 * checks, or 503 with the error envelope (service_unavailable naming the failing checks) and them.
 */
export async function readinessAnswer(ops: Ops, requestId: string): Promise<{ status: number; headers: Record<string, string>; body: object }> {
  const r = await ops.readiness.run();
  if (r.ready) return { status: 200, headers: {}, body: { status: 'ready', checks: r.checks } };
  const failing = r.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`).join('; ');
  const err = Errors.serviceUnavailable(`Not ready: ${failing}.`);
  return { status: 503, headers: { 'retry-after': '10' }, body: { ...err.toEnvelope(requestId), status: 'not_ready', checks: r.checks } };
}
