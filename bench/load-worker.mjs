// The load generator, run as its own process (pinned to its own core by run.ts)
// so that it never shares an event loop or a core with the server it measures.
// Input: one JSON argument describing the scenario. Output: one JSON line.
//
// Scenario kinds:
//   get      - GET `path` with fixed headers (bearer API, bare Fastify)
//   post     - POST a fixed form body (client_credentials, introspection)
//   json     - POST a fixed JSON body (`json`) with fixed headers (an MCP tool call)
//   codes    - POST one authorization code per request, each used once, from `poolFile`
//   refresh  - POST refresh_token along rotation chains started from `refreshTokens`
//              (at least one per connection), taking the new token from each answer
// With `issuing` ({ path, headers, body, perSecond }) it also POSTs `body` to
// `path` at that steady rate while the scenario runs (bench/issuing.mjs), and
// reports how many of those were answered 2xx (`issued`) and what the rest were.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startIssuing } from './issuing.mjs';

const spec = JSON.parse(process.argv[2]);
const form = (fields) => new URLSearchParams(fields).toString();
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', ...spec.headers };

function requestsFor() {
  switch (spec.kind) {
    case 'get':
      return [{ method: 'GET', path: spec.path, headers: spec.headers }];
    case 'post':
      return [{ method: 'POST', path: spec.path, headers: formHeaders, body: form(spec.form) }];
    case 'json':
      return [{ method: 'POST', path: spec.path, headers: { 'content-type': 'application/json', ...spec.headers }, body: JSON.stringify(spec.json) }];
    case 'codes': {
      const codes = readFileSync(spec.poolFile, 'utf8').split('\n').filter(Boolean);
      let next = 0;
      return [{
        method: 'POST', path: spec.path, headers: formHeaders,
        // Past the end of the pool a code that was never issued goes out, answered 400
        // and reported by the run. Replaying a real one would be taken for a stolen
        // code (RFC 6749 §4.1.2) and revoke the grants every later token scenario uses.
        setupRequest: (request) => ({ ...request, body: form({ ...spec.form, code: codes[next++] ?? 'folio_ac_pool-exhausted' }) }),
      }];
    }
    case 'refresh': {
      // autocannon resets a connection's context between request cycles, so the live
      // chain ends sit in one pool: each request takes one, each answer puts the next back.
      const pool = [...spec.refreshTokens];
      return [{
        method: 'POST', path: spec.path, headers: formHeaders,
        setupRequest: (request) => ({ ...request, body: form({ grant_type: 'refresh_token', refresh_token: pool.shift() ?? '' }) }),
        onResponse: (status, body) => {
          if (status === 200) pool.push(JSON.parse(body).refresh_token);
        },
      }];
    }
    default:
      throw new Error(`unknown scenario kind ${spec.kind}`);
  }
}

const options = {
  url: spec.url,
  connections: spec.connections,
  pipelining: 1,
  requests: requestsFor(),
  // autocannon notices that `amount` requests are done only when it next takes a
  // sample, a second apart by default: a smoke load of 200 requests took a second.
  ...(spec.amount ? { amount: spec.amount, sampleInt: 50 } : { duration: spec.duration }),
};
const issuing = spec.issuing === undefined ? undefined : startIssuing({ url: spec.url, ...spec.issuing });
const result = await autocannon(options);
const issues = await issuing?.stop();
const statuses = {};
for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count.count;
process.stdout.write(`${JSON.stringify({
  requests: result.requests.total,
  rps: result.requests.total / (result.duration || 1),
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statuses,
  ...(issues === undefined ? {} : { issued: issues.issued, issueRefused: issues.refused }),
})}\n`);
