import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Errors } from '../../shared/errors.js';
import { isLoopbackHost } from '../config.js';
import { hostNamesMachine, metricsAuthorized, metricsRefusal, readinessAnswer, rebindingRefusal, type Ops } from '../ops/index.js';

/**
 * Operator endpoints beside the API (not in the contract: they are not part of the Agent Email
 * Service API). GET /metrics: Prometheus text format, for loopback callers only unless a bearer
 * token is configured (then the token is required from everywhere; behind a reverse proxy on the
 * same host every caller looks local, so set the token or keep /metrics out of the proxy). Without
 * a token, the Host header must name the machine (an IP or localhost: no DNS rebinding).
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
  const a = req.socket.remoteAddress ?? '';
  return isLoopbackHost(a) || a.startsWith('::ffff:127.');
}
