declare module 'parse-prometheus-text-format' {
  /** Parses the Prometheus text exposition format into metric families. */
  export default function parsePrometheusTextFormat(text: string): {
    name: string;
    help: string;
    type: string;
    metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }[];
  }[];
}
