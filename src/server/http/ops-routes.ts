import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Errors } from '../../shared/errors.js';
import { isLoopbackHost } from '../config.js';
import { hostNamesMachine, metricsAuthorized, metricsRefusal, readinessAnswer, rebindingRefusal, type Ops } from '../ops/index.js';

/**
 * Operator endpoints beside the API (not in the contract: they are not part of the Agent Email
 * Service API). GET /metrics: Prometheus text format, for loopback callers only unless a bearer
 * token is configured (then the token is required from everywhere). "Loopback" is the client's
 * address as the API sees it (req.ip): behind a proxy listed in trustedProxies that is the address
 * its X-Forwarded-For names, not the proxy's socket, so a public client is refused even though the
 * proxy connects from 127.0.0.1 (and nginx's default `Host: 127.0.0.1:7420` passes the Host check).
 * Behind a proxy that is not declared every caller looks local: set the token or keep /metrics out
 * of the proxy. Without a token, the Host header must name the machine (no DNS rebinding).
 * GET /health/ready: readiness for load balancers and systemd (503 while a check fails);
 * GET /v1/health stays the liveness probe.
 */
export function registerOpsRoutes(app: FastifyInstance, ops: Ops): void {
  app.get('/metrics', async (req, reply) => {
    if (ops.metricsToken) {
      if (!metricsAuthorized(ops, req.headers.authorization)) {
        reply.header('www-authenticate', 'Bearer');
        throw metricsRefusal(req.headers.authorization);
      }
    } else if (!isLoopbackAddress(req)) {
      throw Errors.routeNotFound(req.method, '/metrics');
    } else if (!hostNamesMachine(req.headers.host)) {
      // Loopback is trusted, but not a browser page that reached loopback under its own name.
      throw rebindingRefusal(req.headers.host ?? '', '/metrics');
    }
    reply.type(ops.metrics.contentType);
    return ops.metrics.scrape();
  });
  app.get('/health/ready', async (req, reply) => {
    const r = await readinessAnswer(ops, String(req.id));
    reply.code(r.status).headers(r.headers).type('application/json');
    return r.body;
  });
}

function isLoopbackAddress(req: FastifyRequest): boolean {
  // req.ip, not the socket: fastify resolves X-Forwarded-For through the trusted proxies only.
  const a = req.ip ?? '';
  return isLoopbackHost(a) || a.startsWith('::ffff:127.');
}
