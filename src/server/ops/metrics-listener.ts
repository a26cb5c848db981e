import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsAuthorized, type Ops } from './index.js';

/**
 * `--metrics-listen ADDR:PORT`: a plain HTTP listener with only GET /metrics and
 * GET /health/ready, for a Prometheus on another host without opening the API port to it. The
 * bearer token, when configured, is required here too.
 */
export async function startMetricsListener(ops: Ops, host: string, port: number): Promise<{ name: string; address(): string; listening(): boolean; stop(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      if (!metricsAuthorized(ops, req.headers.authorization)) {
        res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('a bearer token is required\n');
        return;
      }
      ops.metrics.scrape().then((text) => res.writeHead(200, { 'content-type': ops.metrics.contentType }).end(text), () => res.writeHead(500).end());
    } else if (path === '/health/ready') {
      void ops.readiness.run().then((r) => res.writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: r.ready ? 'ready' : 'not_ready', checks: r.checks })));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: this listener serves /metrics and /health/ready\n');
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
