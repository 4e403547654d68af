// The two metrics every response adds to, counted in plain numbers as requests
// finish and handed to prom-client only when /metrics is read. Through
// prom-client's labelled inc() and observe(), which sort, join and look up the
// label values on every call, they cost a bearer GET served from memory a
// tenth of its throughput (docs/performance.md). The exposition is the same:
// a test holds it line for line to prom-client's own Counter and Histogram.
import { Counter, type Histogram, type Registry } from 'prom-client';

export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

interface Latency {
  labels: { route: string; method: string };
  /** Observations at or under each bound, not cumulative; the last slot is over every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

interface Requests {
  labels: { route: string; method: string; status: string };
  count: number;
  latency: Latency;
}

export type RecordRequest = (route: string, method: string, status: number, seconds: number) => void;

/**
 * Registers folio_http_requests_total and folio_http_request_duration_seconds in
 * `registry` and returns the function that counts one response. Every label is
 * bounded by its caller (route patterns, known methods, status codes), and so
 * is the number of series kept here.
 */
export function registerRequestMetrics(registry: Registry): RecordRequest {
  const requests = new Map<string, Requests>();
  const latencies = new Map<string, Latency>();

  const seriesOf = (route: string, method: string, status: number): Requests => {
    const key = `${status} ${method} ${route}`;
    let found = requests.get(key);
    if (found === undefined) {
      const latencyKey = `${method} ${route}`;
      let latency = latencies.get(latencyKey);
      if (latency === undefined) {
        latency = { labels: { route, method }, buckets: new Array<number>(REQUEST_DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
        latencies.set(latencyKey, latency);
      }
      found = { labels: { route, method, status: String(status) }, count: 0, latency };
      requests.set(key, found);
    }
    return found;
  };

  const counter = new Counter({
    name: 'folio_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      counter.reset();
      // A series counted nothing since a reset is left out, as prom-client leaves it out.
      for (const { labels, count } of requests.values()) if (count > 0) counter.inc(labels, count);
    },
  });

  // prom-client's Histogram keeps its counts where only observe() reaches them;
  // this one hands the registry the same values its get() would.
  const name = 'folio_http_request_duration_seconds';
  const histogram = {
    name,
    help: 'HTTP request latency by route pattern and method',
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const { labels, buckets, sum, count } of latencies.values()) {
        if (count === 0) continue;
        let cumulative = 0;
        REQUEST_DURATION_BUCKETS.forEach((bound, index) => {
          cumulative += buckets[index]!;
          values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${name}_bucket` });
        values.push({ labels, value: sum, metricName: `${name}_sum` }, { labels, value: count, metricName: `${name}_count` });
      }
      return { name, help: histogram.help, type: histogram.type, values, aggregator: histogram.aggregator };
    },
    // Registry.resetMetrics() calls this; the counter's own reset() serves its collect().
    reset() {
      for (const series of requests.values()) series.count = 0;
      for (const latency of latencies.values()) {
        latency.buckets.fill(0);
        latency.sum = 0;
        latency.count = 0;
      }
    },
  };
  registry.registerMetric(histogram as unknown as Histogram);

  return (route, method, status, seconds) => {
    const series = seriesOf(route, method, status);
    series.count++;
    const { latency } = series;
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    latency.buckets[bucket]!++;
    latency.sum += seconds;
    latency.count++;
  };
}
