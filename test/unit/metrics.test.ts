// The metrics Folio counts (src/http/metrics.ts): six families in the Prometheus
// text format, one registry per app; the two every response adds to, held to what
// prom-client writes for the same counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { createMetrics } from '../../src/http/metrics.ts';
import { createRequestMetrics, REQUEST_DURATION_BUCKETS } from '../../src/http/request-metrics.ts';

test('before anything is counted: an unlabelled counter at zero, the labelled ones with no series', async () => {
  const metrics = createMetrics({ readsFromMemory: () => false });
  const text = await metrics.scrape();
  assert.match(text, /^folio_rate_limit_rejections_total 0$/m);
  assert.match(text, /^folio_reads_from_memory 0$/m);
  assert.doesNotMatch(text, /^folio_tokens_issued_total\{/m);
  assert.match(metrics.contentType, /^text\/plain; version=0\.0\.4/);
});

test('counts grow from one scrape to the next, histogram buckets cumulative, label values escaped', async () => {
  const metrics = createMetrics({ readsFromMemory: () => true });
  metrics.countResponse('/x', 'GET', 200, 0.002, undefined);
  const first = await metrics.scrape();
  assert.equal(await metrics.scrape(), first);
  metrics.countResponse('/x', 'GET', 200, 0.02, 'invalid_token');
  metrics.countResponse('a "quoted"\\route', 'POST', 401, 1, 'invalid_client');
  metrics.countTokenIssued('client_credentials');
  const text = await metrics.scrape();
  assert.match(text, /^folio_http_requests_total\{route="\/x",method="GET",status="200"\} 2$/m);
  assert.match(text, /^folio_http_request_duration_seconds_bucket\{le="0\.005",route="\/x",method="GET"\} 1$/m);
  assert.match(text, /^folio_http_request_duration_seconds_bucket\{le="0\.025",route="\/x",method="GET"\} 2$/m);
  assert.match(text, /^folio_http_request_duration_seconds_count\{route="\/x",method="GET"\} 2$/m);
  assert.match(text, /^folio_http_requests_total\{route="a \\"quoted\\"\\\\route",method="POST",status="401"\} 1$/m);
  assert.match(text, /^folio_oauth_errors_total\{error="invalid_token"\} 1$/m);
  assert.match(text, /^folio_tokens_issued_total\{grant_type="client_credentials"\} 1$/m);
  assert.match(text, /^folio_reads_from_memory 1$/m);
});

test('keeps one registry per app: another app starts from zero', async () => {
  createMetrics({ readsFromMemory: () => true }).countRateLimited();
  assert.match(await createMetrics({ readsFromMemory: () => true }).scrape(), /^folio_rate_limit_rejections_total 0$/m);
});

test("the per-response families are written line for line as prom-client writes the same observations", async () => {
  const ours = createRequestMetrics();
  const registry = new Registry();
  const requests = new Counter({ name: 'folio_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const duration = new Histogram({
    name: 'folio_http_request_duration_seconds', help: 'HTTP request latency by route pattern and method',
    labelNames: ['route', 'method'], buckets: [...REQUEST_DURATION_BUCKETS], registers: [registry],
  });
  const routes = ['/api/v2/portfolios.json', 'unmatched', 'a "quoted"\\route\nwith a line feed'];
  // Every bound exactly, either side of it, and past the last.
  const seconds = [0, ...REQUEST_DURATION_BUCKETS.flatMap((bound) => [bound * 0.99, bound, bound * 1.01]), 7.5];
  seconds.forEach((taken, index) => {
    const [route, method, status] = [routes[index % routes.length]!, index % 4 === 0 ? 'POST' : 'GET', [200, 401, 404][index % 3]!];
    ours.record(route, method, status, taken);
    requests.inc({ route, method, status: String(status) });
    duration.observe({ route, method }, taken);
  });
  assert.equal(ours.text(), (await registry.metrics()).trimEnd());
});
