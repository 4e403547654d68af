// The request metrics counted in plain numbers (src/http/request-metrics.ts) read
// exactly as prom-client's own Counter and Histogram would for the same requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { REQUEST_DURATION_BUCKETS, registerRequestMetrics } from '../../src/http/request-metrics.ts';

function prometheusOwn(registry: Registry) {
  const requests = new Counter({ name: 'folio_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const duration = new Histogram({
    name: 'folio_http_request_duration_seconds', help: 'HTTP request latency by route pattern and method',
    labelNames: ['route', 'method'], buckets: [...REQUEST_DURATION_BUCKETS], registers: [registry],
  });
  return (route: string, method: string, status: number, seconds: number) => {
    requests.inc({ route, method, status: String(status) });
    duration.observe({ route, method }, seconds);
  };
}

test("reads line for line as prom-client's Counter and Histogram, bucket bounds and +Inf included", async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const recordOurs = registerRequestMetrics(ours);
  const recordTheirs = prometheusOwn(theirs);
  const routes = ['/api/v2/portfolios.json', '/oauth2/token', 'unmatched', 'a "quoted"\\route\nwith a newline'];
  const seconds = [0, 0.001, 0.005, 0.0050001, 0.01, 0.3, 1, 5, 5.5, 60];
  let n = 0;
  for (const route of routes) {
    for (const method of ['GET', 'POST']) {
      for (const status of [200, 401, 404]) {
        for (const value of seconds.slice(0, 1 + (n++ % seconds.length))) {
          recordOurs(route, method, status, value);
          recordTheirs(route, method, status, value);
        }
      }
    }
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.match(await ours.metrics(), /folio_http_request_duration_seconds_bucket\{le="\+Inf",route="\/oauth2\/token",method="POST"\} \d+/);
});

test('reads the same again at the next scrape, counts growing, and starts from zero after a reset', async () => {
  const registry = new Registry();
  const record = registerRequestMetrics(registry);
  record('/x', 'GET', 200, 0.002);
  const first = await registry.metrics();
  assert.equal(await registry.metrics(), first);
  record('/x', 'GET', 200, 0.002);
  assert.match(await registry.metrics(), /folio_http_requests_total\{route="\/x",method="GET",status="200"\} 2/);
  assert.match(await registry.metrics(), /folio_http_request_duration_seconds_count\{route="\/x",method="GET"\} 2/);
  record('/y', 'POST', 201, 0.2);
  registry.resetMetrics();
  record('/x', 'GET', 200, 0.002);
  // As prom-client does, a series with nothing since the reset is not shown at all.
  assert.doesNotMatch(await registry.metrics(), /\/y/);
  assert.match(await registry.metrics(), /folio_http_request_duration_seconds_count\{route="\/x",method="GET"\} 1/);
  assert.match(await registry.metrics(), /folio_http_requests_total\{route="\/x",method="GET",status="200"\} 1/);
});
