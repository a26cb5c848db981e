import type { Registry } from 'prom-client';

/**
 * The HTTP request counter and latency histogram (mailagent_http_requests_total,
 * mailagent_http_request_duration_seconds), kept as plain numbers per label set and turned into
 * Prometheus samples at scrape time.
 *
 * Why not prom-client's Counter and Histogram: every API request lands here, and their
 * inc/observe validate the labels, hash the label object and look the bucket up by a float
 * property name on every call (~2-3 µs per request, a few per cent of GET /v1/me: bench/README.md,
 * round 2 session 7). Here a request costs one Map lookup, two additions and a short bucket scan.
 * The samples are exactly what prom-client's own metrics would expose for the same observations
 * (names, label order, cumulative buckets, +Inf, _sum, _count; text and JSON forms) — a unit test
 * compares the two.
 */
interface Series {
  labels: { method: string; route: string; status: string };
  /** Requests (the counter). */
  requests: number;
  /** Observations (the histogram's _count): the same, bar a duration that is not a finite number. */
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is +Inf only. */
  buckets: number[];
}

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

interface MetricObject {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }>;
  getForPromString?(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }>;
  reset(): void;
}

export class HttpMetrics {
  private series = new Map<string, Series>();

  constructor(registry: Registry, private readonly counter: { name: string; help: string }, private readonly histogram: { name: string; help: string; buckets: readonly number[] }) {
    registry.registerMetric(this.counterMetric() as never);
    registry.registerMetric(this.histogramMetric() as never);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, requests: 0, count: 0, sum: 0, buckets: new Array(this.histogram.buckets.length + 1).fill(0) };
      this.series.set(key, s);
    }
    s.requests++;
    if (!Number.isFinite(seconds)) return; // prom-client refuses such a value too
    s.count++;
    s.sum += seconds;
    const bounds = this.histogram.buckets;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]) i++;
    s.buckets[i]++;
  }

  private counterMetric(): MetricObject {
    const { name, help } = this.counter;
    const values = (): Sample[] => [...this.series.values()].map((s) => ({ value: s.requests, labels: { ...s.labels } }));
    return {
      name, help, type: 'counter', aggregator: 'sum',
      get: async () => ({ help, name, type: 'counter', values: values(), aggregator: 'sum' }),
      reset: () => this.reset(),
    };
  }

  private histogramMetric(): MetricObject {
    const { name, help, buckets: bounds } = this.histogram;
    // prom-client's text form: `le` first, then the series' labels (its sharedLabels).
    const samples = (): Sample[] => {
      const out: Sample[] = [];
      for (const s of this.series.values()) {
        let acc = 0;
        bounds.forEach((le, i) => {
          acc += s.buckets[i];
          out.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket`, exemplar: null });
        });
        out.push(
          { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
          { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` },
        );
      }
      return out;
    };
    return {
      name, help, type: 'histogram', aggregator: 'sum',
      getForPromString: async () => ({ name, help, type: 'histogram', values: samples(), aggregator: 'sum' }),
      // The JSON form (registry.getMetricsAsJSON): the series' labels merged into each sample's.
      get: async () => ({
        name, help, type: 'histogram', aggregator: 'sum',
        values: samples().map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: Object.assign(labels, sharedLabels) })),
      }),
      reset: () => this.reset(),
    };
  }

  /** registry.resetMetrics(): both metrics start again (they are kept together). */
  private reset(): void {
    this.series = new Map();
  }
}
