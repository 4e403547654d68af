// The two metrics every response adds to, counted in plain numbers as requests
// finish and read only when /metrics is scraped. Through prom-client's labelled
// inc() and observe(), which sort, join and look up the label values on every
// call, they cost a bearer GET served from memory a tenth of its throughput
// (docs/performance.md).
import type { MetricFamily, Sample } from './prometheus-text.ts';

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
 * folio_http_requests_total and folio_http_request_duration_seconds, and the
 * function that counts one response. Every label is bounded by its caller (route
 * patterns, known methods, status codes), and so is the number of series kept here.
 */
export function createRequestMetrics(): { record: RecordRequest; families: [requests: MetricFamily, duration: MetricFamily] } {
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

  const requestsFamily: MetricFamily = {
    name: 'folio_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    type: 'counter',
    *samples() {
      for (const { labels, count } of requests.values()) yield { labels, value: count };
    },
  };

  // Buckets cumulative, as the format has them, with `le` first as prom-client writes it.
  const durationFamily: MetricFamily = {
    name: 'folio_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and method',
    type: 'histogram',
    *samples(): Iterable<Sample> {
      for (const { labels, buckets, sum, count } of latencies.values()) {
        let cumulative = 0;
        for (const [index, bound] of REQUEST_DURATION_BUCKETS.entries()) {
          cumulative += buckets[index]!;
          yield { suffix: '_bucket', labels: { le: String(bound), ...labels }, value: cumulative };
        }
        yield { suffix: '_bucket', labels: { le: '+Inf', ...labels }, value: count };
        yield { suffix: '_sum', labels, value: sum };
        yield { suffix: '_count', labels, value: count };
      }
    },
  };

  const record: RecordRequest = (route, method, status, seconds) => {
    const series = seriesOf(route, method, status);
    series.count++;
    const { latency } = series;
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    latency.buckets[bucket]!++;
    latency.sum += seconds;
    latency.count++;
  };
  return { record, families: [requestsFamily, durationFamily] };
}
