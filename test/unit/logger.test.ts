import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import Fastify from 'fastify';
import { createAccessLogWriter, createLogger, redactUrl, REDACTED } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential } from '../../src/platform/secrets.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, text: () => lines.join('\n'), parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const SECRETS = {
  password: 'pw-SECRET-1', client_secret: 'cs-SECRET-2', secret: 'SECRET-3', token: 'tok-SECRET-4',
  access_token: 'at-SECRET-5', refresh_token: 'rt-SECRET-6', code: 'code-SECRET-7',
  code_verifier: 'cv-SECRET-8', csrf: 'csrf-SECRET-9',
};

describe('logger redaction', () => {
  test('redacts secret fields at the top level and nested a few levels deep', () => {
    const out = capture();
    const logger = createLogger({ logLevel: 'info' }, out.stream);
    logger.info({ ...SECRETS, body: { ...SECRETS }, a: { b: { ...SECRETS, c: { ...SECRETS } } } }, 'token request');
    assert.doesNotMatch(out.text(), /SECRET/);
    const [line] = out.parsed();
    assert.equal(line?.password, REDACTED);
    assert.deepEqual((line?.body as Record<string, unknown>).code, REDACTED);
    assert.equal(line?.msg, 'token request');
  });

  test('redacts secrets inside arrays and whatever the key case, without touching the original', () => {
    const out = capture();
    const logger = createLogger({ logLevel: 'info' }, out.stream);
    const original = { issued: [{ access_token: 'at-SECRET' }, { Refresh_Token: 'rt-SECRET' }], headers: { Authorization: 'Bearer SECRET' } };
    logger.info(original, 'batch');
    assert.doesNotMatch(out.text(), /SECRET/);
    assert.equal(original.issued[0]!.access_token, 'at-SECRET');
  });

  test('redacts authorization and cookie headers', () => {
    const out = capture();
    const logger = createLogger({ logLevel: 'info' }, out.stream);
    logger.info({ headers: { authorization: 'Bearer folio_at_SECRET', cookie: 'sid=SECRET', accept: 'text/html' } });
    logger.info({ res: { headers: { 'set-cookie': 'sid=SECRET; HttpOnly' } } });
    logger.info({ req: { method: 'GET', url: '/api/v2/my_user', headers: { authorization: 'Basic SECRET' } } });
    assert.doesNotMatch(out.text(), /SECRET/);
    assert.match(out.text(), /text\/html/);
  });

  test('redacts credential query parameters in a logged request URL', () => {
    const out = capture();
    const logger = createLogger({ logLevel: 'info' }, out.stream);
    logger.info({ req: { method: 'GET', url: '/oauth2/authorize/native?code=folio_ac_SECRET&state=xyz' } }, 'request');
    assert.doesNotMatch(out.text(), /SECRET/);
    assert.match(out.text(), /state=xyz/);
  });

  test('Fastify request logs through the shared instance keep codes and headers out', async () => {
    const out = capture();
    const app = Fastify({ loggerInstance: createLogger({ logLevel: 'info' }, out.stream) });
    app.get('/oauth2/authorize/native', async (request) => {
      request.log.info({ body: { client_secret: 'cs-SECRET' } }, 'handling');
      return { ok: true };
    });
    await app.inject({
      method: 'GET',
      url: '/oauth2/authorize/native?code=folio_ac_SECRET&state=abc',
      headers: { authorization: 'Basic SECRET', cookie: 'folio_session=SECRET' },
    });
    await app.close();
    assert.match(out.text(), /incoming request/);
    assert.match(out.text(), /state=abc/);
    assert.doesNotMatch(out.text(), /SECRET/);
  });

  test('redactUrl leaves harmless URLs alone', () => {
    assert.equal(redactUrl('/api/v2/portfolios.json'), '/api/v2/portfolios.json');
    assert.equal(redactUrl('/x?page=2&per_page=10'), '/x?page=2&per_page=10');
    assert.equal(redactUrl('/x?access_token=abc&page=2'), '/x?access_token=%5Bredacted%5D&page=2');
  });

  test('redactUrl redacts a credential wherever it sits: in the path or under another parameter', () => {
    // Both shapes: with the issue time, as tokens are issued now, and without, as before.
    for (const token of [generateCredential('accessToken', cryptoRandom, Date.now()), generateCredential('accessToken', cryptoRandom)]) {
      assert.equal(redactUrl(`/api/v2/portfolios/${token}`), '/api/v2/portfolios/folio_at_[redacted]');
      assert.equal(redactUrl(`/x?foo=${token}&page=2`), '/x?foo=folio_at_[redacted]&page=2');
      const encoded = encodeURIComponent(token).replace(/_/g, '%5F').replace(/-/g, '%2D');
      assert.equal(redactUrl(`/x?foo=${encoded}&page=2`), '/x?foo=folio%5Fat%5F[redacted]&page=2');
      // Any case, and the lower-case escape: what the quick test for a prefix must not miss.
      const shouted = `FOLIO%5fAT%5f${token.slice('folio_at_'.length)}`;
      assert.equal(redactUrl(`/api/v2/portfolios/${shouted}`), '/api/v2/portfolios/FOLIO%5fAT%5f[redacted]');
    }
  });

  test('honours the configured level', () => {
    const out = capture();
    const logger = createLogger({ logLevel: 'warn' }, out.stream);
    logger.info('quiet');
    logger.warn('loud');
    assert.deepEqual(out.parsed().map((line) => line.msg), ['loud']);
  });
});

describe('access-log line', () => {
  const request = {
    method: 'GET', url: '/api/v2/portfolios.json?access_token=folio_at_SECRET&page="2"', host: 'api.example\u2028',
    ip: '10.0.0.7', headers: { authorization: 'Bearer folio_at_SECRET' }, socket: { remoteAddress: '10.0.0.7', remotePort: 51234 },
  };

  test("is byte for byte the line pino's info() writes for the same request, but for the time and a rounded responseTime", () => {
    const direct = capture();
    const viaPino = capture();
    createAccessLogWriter(createLogger({ logLevel: 'info' }, direct.stream))({ reqId: 'req-"7"', req: request, statusCode: 401, responseTime: 1.2345678 });
    createLogger({ logLevel: 'info' }, viaPino.stream).child({ reqId: 'req-"7"' })
      .info({ req: request, res: { statusCode: 401 }, responseTime: 1.235 }, 'request completed');
    const withoutTime = (text: string) => text.replace(/"time":\d+/, '"time":0');
    assert.equal(withoutTime(direct.text()), withoutTime(viaPino.text()));
    assert.doesNotMatch(direct.text(), /SECRET/);
    assert.equal((direct.parsed()[0]!.req as { url: string }).url, '/api/v2/portfolios.json?access_token=%5Bredacted%5D&page="2"');
  });

  test("stays byte for byte pino's line across requests: URLs that change and repeat, members absent", () => {
    const direct = capture();
    const viaPino = capture();
    const write = createAccessLogWriter(createLogger({ logLevel: 'info' }, direct.stream));
    const pinoLogger = createLogger({ logLevel: 'info' }, viaPino.stream);
    const requests = [
      request,
      { ...request, url: '/api/v2/my_user.json' },
      request,
      { method: 'GET', url: '/x?code=folio_ac_SECRET', headers: {} },
      { url: undefined, host: 'h', socket: { remotePort: 1 } },
      {},
    ];
    requests.forEach((each, index) => {
      write({ reqId: `req-${index}`, req: each, statusCode: 200, responseTime: index / 3 });
      pinoLogger.child({ reqId: `req-${index}` }).info({ req: each, res: { statusCode: 200 }, responseTime: Math.round(index / 3 * 1000) / 1000 }, 'request completed');
    });
    const withoutTime = (text: string) => text.replace(/"time":\d+/g, '"time":0');
    assert.equal(withoutTime(direct.text()), withoutTime(viaPino.text()));
    assert.equal(direct.parsed().length, requests.length);
    assert.doesNotMatch(direct.text(), /SECRET/);
  });

  test('is not written below the info level', () => {
    const out = capture();
    createAccessLogWriter(createLogger({ logLevel: 'warn' }, out.stream))({ reqId: 'req-1', req: request, statusCode: 200, responseTime: 1 });
    assert.equal(out.text(), '');
  });
});

describe('standard output', () => {
  // A process that logs a line far shorter than the buffer and exits at once, before the
  // flush timer's first tick: only the exit listener can write the line.
  const logThenExit = (exit: string) => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
    import { createLogger } from './src/platform/logger.ts';
    createLogger({ logLevel: 'info' }).info('the last line');
    ${exit}
  `], { cwd: new URL('../..', import.meta.url), encoding: 'utf8' });

  test('writes the lines it holds when the process exits', () => {
    for (const exit of ['process.exit(3);', '']) {
      const { stdout, status } = logThenExit(exit);
      assert.equal(status, exit === '' ? 0 : 3);
      assert.equal(JSON.parse(stdout).msg, 'the last line');
    }
  });
});
