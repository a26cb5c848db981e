import { describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { HttpMetrics } from '../../../src/server/ops/http-metrics.js';
import { HTTP_LATENCY, HTTP_REQUESTS } from '../../../src/server/ops/metrics.js';

// The HTTP metrics are plain counts exposed at scrape time (server/ops/http-metrics.ts); what a
// scrape shows must be what prom-client's own Counter and Histogram show for the same requests.
describe('HttpMetrics', () => {
  const requests: [string, string, number, number][] = [];
  const routes = ['/v1/me', '/v1/agents/:id', 'unmatched', '/v1/messages'];
  let seed = 7;
  const r = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 3000; i++) {
    const d = r() < 0.1 ? 20 * r() : r() < 0.3 ? [0.001, 0.005, 0.01, 0.25, 10][Math.floor(r() * 5)] : r() * 0.05;
    requests.push([r() < 0.8 ? 'GET' : 'POST', routes[Math.floor(r() * routes.length)], [200, 201, 404, 429][Math.floor(r() * 4)], d]);
  }

  function both() {
    const ours = new Registry();
    const m = new HttpMetrics(ours, HTTP_REQUESTS, HTTP_LATENCY);
    const theirs = new Registry();
    const c = new Counter({ ...HTTP_REQUESTS, labelNames: ['method', 'route', 'status'], registers: [theirs] });
    const h = new Histogram({ ...HTTP_LATENCY, labelNames: ['method', 'route', 'status'], registers: [theirs] });
    return {
      ours, theirs,
      observe(method: string, route: string, status: number, seconds: number) {
        m.observe(method, route, status, seconds);
        const labels = { method, route, status: String(status) };
        c.inc(labels);
        h.observe(labels, seconds);
      },
    };
  }

  it('scrapes the same text and JSON as prom-client for the same requests', async () => {
    const { ours, theirs, observe } = both();
    expect(await ours.metrics()).toBe(await theirs.metrics()); // nothing yet
    for (const q of requests) observe(...q);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toMatch(/^mailagent_http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v1\/me",status="200"\} \d+$/m);
    expect(text).toMatch(/^mailagent_http_requests_total\{method="GET",route="\/v1\/me",status="200"\} \d+$/m);
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    // Counts keep growing between scrapes.
    observe('GET', '/v1/me', 200, 0.002);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('starts again on registry.resetMetrics()', async () => {
    const { ours, theirs, observe } = both();
    for (const q of requests.slice(0, 50)) observe(...q);
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    observe('GET', '/v1/me', 200, 0.002);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
