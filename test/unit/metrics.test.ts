// The metrics Folio counts (src/http/metrics.ts): six families in the Prometheus
// text format, one registry per app.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics } from '../../src/http/metrics.ts';

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
