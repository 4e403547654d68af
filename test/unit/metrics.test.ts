// The metrics Folio counts in plain numbers (src/http/metrics.ts) and writes in
// the text format itself (src/http/prometheus-text.ts) read exactly as
// prom-client's own Counter, Gauge and Histogram would for the same events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createMetrics, type Metrics } from '../../src/http/metrics.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../../src/http/prometheus-text.ts';
import { REQUEST_DURATION_BUCKETS } from '../../src/http/request-metrics.ts';
import type { OAuthErrorCode } from '../../src/oauth/errors.ts';

/** The same six metrics, in the same order, as prom-client's; fed the same events. */
function prometheusOwn(readsFromMemory: () => boolean): { registry: Registry; metrics: Metrics } {
  const registry = new Registry();
  const registers = [registry];
  const tokens = new Counter({ name: 'folio_tokens_issued_total', help: 'Token responses issued, by grant type', labelNames: ['grant_type'], registers });
  const rateLimited = new Counter({ name: 'folio_rate_limit_rejections_total', help: 'API requests refused with 429 rate_limited', registers });
  new Gauge({
    name: 'folio_reads_from_memory',
    help: '1 while bearer reads and client look-ups may be answered from memory, 0 while each goes to the database',
    registers,
    collect() { this.set(readsFromMemory() ? 1 : 0); },
  });
  const requests = new Counter({ name: 'folio_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers });
  const duration = new Histogram({
    name: 'folio_http_request_duration_seconds', help: 'HTTP request latency by route pattern and method',
    labelNames: ['route', 'method'], buckets: [...REQUEST_DURATION_BUCKETS], registers,
  });
  const errors = new Counter({ name: 'folio_oauth_errors_total', help: 'Error answers by OAuth error code', labelNames: ['error'], registers });
  return {
    registry,
    metrics: {
      countTokenIssued: (grantType) => tokens.inc({ grant_type: grantType }),
      countRateLimited: () => rateLimited.inc(),
      countResponse(route, method, status, seconds, error) {
        requests.inc({ route, method, status: String(status) });
        duration.observe({ route, method }, seconds);
        if (error !== undefined) errors.inc({ error });
      },
      scrape: () => { throw new Error('read the registry'); },
    },
  };
}

function both(readsFromMemory = () => true) {
  const ours = createMetrics({ readsFromMemory });
  const theirs = prometheusOwn(readsFromMemory);
  return {
    ours,
    each: (event: (metrics: Metrics) => void) => { event(ours); event(theirs.metrics); },
    theirText: () => theirs.registry.metrics(),
    contentType: theirs.registry.contentType,
  };
}

test("reads line for line as prom-client's metrics, bucket bounds, +Inf and escaped label values included", async () => {
  const { ours, each, theirText } = both();
  const routes = ['/api/v2/portfolios.json', '/oauth2/token', 'unmatched', 'a "quoted"\\route\nwith a newline'];
  const seconds = [0, 0.001, 0.005, 0.0050001, 0.01, 0.3, 1, 5, 5.5, 60];
  const errorCodes: (OAuthErrorCode | undefined)[] = [undefined, 'invalid_token', 'invalid_client', 'rate_limited'];
  let n = 0;
  for (const route of routes) {
    for (const method of ['GET', 'POST']) {
      for (const status of [200, 401, 404]) {
        for (const value of seconds.slice(0, 1 + (n++ % seconds.length))) {
          each((metrics) => metrics.countResponse(route, method, status, value, errorCodes[n % errorCodes.length]));
        }
      }
    }
  }
  for (const grantType of ['client_credentials', 'refresh_token', 'client_credentials', 'authorization_code']) each((metrics) => metrics.countTokenIssued(grantType));
  each((metrics) => metrics.countRateLimited());
  const text = ours.scrape();
  assert.equal(text, await theirText());
  assert.match(text, /folio_http_request_duration_seconds_bucket\{le="\+Inf",route="\/oauth2\/token",method="POST"\} \d+/);
  assert.match(text, /folio_http_requests_total\{route="a \\"quoted\\"\\\\route\\nwith a newline",method="GET",status="200"\} \d+/);
  assert.match(text, /^folio_tokens_issued_total\{grant_type="client_credentials"\} 2$/m);
});

test('before anything is counted: an unlabelled counter at zero, the labelled ones with no series, as prom-client', async () => {
  const { ours, theirText, contentType } = both(() => false);
  assert.equal(ours.scrape(), await theirText());
  assert.match(ours.scrape(), /^folio_rate_limit_rejections_total 0$/m);
  assert.match(ours.scrape(), /^folio_reads_from_memory 0$/m);
  assert.doesNotMatch(ours.scrape(), /^folio_tokens_issued_total\{/m);
  assert.equal(PROMETHEUS_CONTENT_TYPE, contentType);
});

test('reads the same again at the next scrape, and counts grow', () => {
  const metrics = createMetrics({ readsFromMemory: () => true });
  metrics.countResponse('/x', 'GET', 200, 0.002, undefined);
  const first = metrics.scrape();
  assert.equal(metrics.scrape(), first);
  metrics.countResponse('/x', 'GET', 200, 0.002, undefined);
  assert.match(metrics.scrape(), /folio_http_requests_total\{route="\/x",method="GET",status="200"\} 2/);
  assert.match(metrics.scrape(), /folio_http_request_duration_seconds_count\{route="\/x",method="GET"\} 2/);
  assert.match(metrics.scrape(), /folio_http_request_duration_seconds_bucket\{le="0\.005",route="\/x",method="GET"\} 2/);
});
