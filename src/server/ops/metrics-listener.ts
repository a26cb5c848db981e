import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostNamesMachine, metricsAuthorized, metricsRefusal, readinessAnswer, rebindingRefusal, type Ops } from './index.js';
import { ApiError } from '../../contract/errors.js';
import { Errors } from '../../shared/errors.js';
import { monotonicPart } from '../../shared/ids.js';

/**
 * `--metrics-listen ADDR:PORT`: a plain HTTP listener with only GET /metrics and
 * GET /health/ready, for a Prometheus on another host without opening the API port to it. The
 * bearer token, when configured, is required here too.
 */
export async function startMetricsListener(ops: Ops, host: string, port: number): Promise<{ name: string; address(): string; listening(): boolean; stop(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const requestId = `req_${monotonicPart(Date.now())}`;
    // Every refusal is the API's error envelope, as on the API port.
    const refuse = (err: ApiError) => {
      res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...err.extra.headers });
      res.end(JSON.stringify(err.toEnvelope(requestId)));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return refuse(Errors.methodNotAllowed(req.method ?? '?', path, ['GET', 'HEAD']));
    }
    if (path === '/metrics') {
      if (!metricsAuthorized(ops, req.headers.authorization)) {
        res.setHeader('www-authenticate', 'Bearer');
        return refuse(metricsRefusal(req.headers.authorization));
      }
      // Without a token this listener trusts whoever reaches it: not a page under another name.
      if (!ops.metricsToken && !hostNamesMachine(req.headers.host)) return refuse(rebindingRefusal(req.headers.host ?? '', '/metrics'));
      ops.metrics.scrape().then((text) => res.writeHead(200, { 'content-type': ops.metrics.contentType }).end(text), () => refuse(Errors.internal()));
    } else if (path === '/health/ready') {
      void readinessAnswer(ops, requestId).then((r) => res.writeHead(r.status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...r.headers }).end(JSON.stringify(r.body)));
    } else {
      refuse(new ApiError(404, 'resource_error', 'resource_not_found', `No route ${req.method} ${path} on the metrics listener: it serves GET /metrics and GET /health/ready.`));
    }
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const a = server.address() as AddressInfo;
  return {
    name: 'metrics',
    address: () => `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    listening: () => server.listening,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
