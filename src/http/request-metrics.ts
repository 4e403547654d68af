// The two families every response adds to, folio_http_requests_total and
// folio_http_request_duration_seconds, kept in plain numbers and written in the
// Prometheus text format only when /metrics is scraped. Through prom-client's
// labelled inc() and observe(), which join, validate and look up the label values
// on every call, they cost the bearer GET about a tenth of its throughput.

export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

interface Latency {
  /** The series' labels, escaped and joined: `route="…",method="…"`. */
  labels: string;
  /** Observations in each bucket alone, not cumulative; the last slot is over every bound. */
  buckets: number[];
  sum: number;
}

interface Requests {
  labels: string;
  count: number;
  latency: Latency;
}

export interface RequestMetrics {
  /** One response: its route pattern, method (both bounded by the caller), status and seconds taken. */
  record(route: string, method: string, status: number, seconds: number): void;
  /** Both families in the text format, as prom-client's registry writes its own. */
  text(): string;
}

export function createRequestMetrics(): RequestMetrics {
  const requests = new Map<string, Requests>();
  const latencies = new Map<string, Latency>();

  const seriesOf = (route: string, method: string, status: number): Requests => {
    const key = `${status} ${method} ${route}`;
    let found = requests.get(key);
    if (found === undefined) {
      const labels = `route="${escapeLabelValue(route)}",method="${escapeLabelValue(method)}"`;
      let latency = latencies.get(labels);
      if (latency === undefined) {
        latency = { labels, buckets: new Array<number>(REQUEST_DURATION_BUCKETS.length + 1).fill(0), sum: 0 };
        latencies.set(labels, latency);
      }
      found = { labels: `${labels},status="${status}"`, count: 0, latency };
      requests.set(key, found);
    }
    return found;
  };

  return {
    record(route, method, status, seconds) {
      const series = seriesOf(route, method, status);
      series.count += 1;
      const { latency } = series;
      let bucket = 0;
      while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket += 1;
      latency.buckets[bucket]! += 1;
      latency.sum += seconds;
    },

    text() {
      const counted = [...requests.values()].map(({ labels, count }) => `folio_http_requests_total{${labels}} ${count}`);
      const observed = [...latencies.values()].flatMap(({ labels, buckets, sum }) => {
        // Cumulative, as the format has them, with `le` first as prom-client writes it.
        let cumulative = 0;
        const lines = REQUEST_DURATION_BUCKETS.map((bound, index) => {
          cumulative += buckets[index]!;
          return `folio_http_request_duration_seconds_bucket{le="${bound}",${labels}} ${cumulative}`;
        });
        const count = cumulative + buckets[REQUEST_DURATION_BUCKETS.length]!;
        return [
          ...lines,
          `folio_http_request_duration_seconds_bucket{le="+Inf",${labels}} ${count}`,
          `folio_http_request_duration_seconds_sum{${labels}} ${sum}`,
          `folio_http_request_duration_seconds_count{${labels}} ${count}`,
        ];
      });
      return [
        '# HELP folio_http_requests_total HTTP requests by route pattern, method and status',
        '# TYPE folio_http_requests_total counter',
        ...counted,
        '',
        '# HELP folio_http_request_duration_seconds HTTP request latency by route pattern and method',
        '# TYPE folio_http_request_duration_seconds histogram',
        ...observed,
      ].join('\n');
    },
  };
}

/** The format escapes a backslash, a line feed and a double quote in a label value. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
