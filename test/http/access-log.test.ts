// One access-log line per request (src/http/access-log.ts), carrying what an
// operator needs and never a credential.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential } from '../../src/platform/secrets.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { createTestStorage } from '../support/storage.ts';

/** Storage for a test app, and the app logging to `lines`, each line parsed; `prepare` may break the storage first. */
async function appLoggingLines(prepare: (storage: OpenedStorage) => void = () => undefined) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({});
  const storage = await createTestStorage();
  prepare(storage);
  const app = await buildApp({ config, storage, clock: new FixedClock(), random: cryptoRandom, logger: createLogger(config, sink) });
  return { lines, storage, app };
}

describe('access log', () => {
  it('writes exactly one line per request, with method, path, status and time, and no token', async () => {
    const { lines, storage, app } = await appLoggingLines();
    try {
      await app.inject({ method: 'GET', url: '/healthz' });
      await app.inject({ method: 'GET', url: '/api/v2/portfolios.json?access_token=folio_at_SECRET', headers: { authorization: 'Bearer SECRET' } });
      // Refused before routing (src/http/every-response.ts): no hook runs for these, yet they are logged.
      await app.inject({ method: 'GET', url: '/api/v2/portfolios/%zz?access_token=folio_at_SECRET' });
      await app.inject({ method: 'GET', url: `/api/v2/portfolios/${'9'.repeat(101)}` });
    } finally {
      await app.close();
      await storage.close();
    }
    const requests = lines.filter((line) => line.req !== undefined);
    assert.deepEqual(requests.map((line) => line.msg), Array(4).fill('request completed'));
    const [health, api, badEncoding, overlong] = requests as { req: { method: string; url: string }; res: { statusCode: number }; responseTime: number }[];
    assert.deepEqual([health!.req.method, health!.req.url, health!.res.statusCode], ['GET', '/healthz', 200]);
    assert.equal(api!.res.statusCode, 400);
    assert.equal(typeof api!.responseTime, 'number');
    assert.match(badEncoding!.req.url, /^\/api\/v2\/portfolios\/%zz\?access_token=/);
    assert.equal(badEncoding!.res.statusCode, 400);
    assert.deepEqual([overlong!.req.url, overlong!.res.statusCode], [`/api/v2/portfolios/${'9'.repeat(101)}`, 400]);
    assert.doesNotMatch(JSON.stringify(lines), /SECRET/);
  });

  it('logs a failed request\'s error once, under the request\'s id, beside its access line', async () => {
    const { lines, storage, app } = await appLoggingLines((broken) => {
      broken.applications.findApplicationByClientId = async () => {
        throw new Error('the disk is on fire');
      };
    });
    const secret = generateCredential('clientSecret', cryptoRandom);
    try {
      const response = await app.inject({
        method: 'POST', url: '/oauth2/token', payload: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`some-client:${secret}`).toString('base64')}` },
      });
      assert.equal(response.statusCode, 500);
    } finally {
      await app.close();
      await storage.close();
    }
    const failures = lines.filter((line) => line.msg === 'request failed');
    const access = lines.filter((line) => line.msg === 'request completed');
    assert.equal(failures.length, 1);
    assert.equal(access.length, 1);
    assert.equal(failures[0]!.level, 50);
    assert.equal((failures[0]!.err as { message: string }).message, 'the disk is on fire');
    assert.equal(failures[0]!.reqId, access[0]!.reqId);
    assert.doesNotMatch(JSON.stringify(lines), new RegExp(secret));
  });
});
