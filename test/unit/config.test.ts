import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, refuseAccidentalExposure, withPort } from '../../src/config.ts';

function rejects(env: Record<string, string>, variable: string, accepted: RegExp): void {
  assert.throws(() => loadConfig(env), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, new RegExp(`^${variable} must be `));
    assert.match(error.message, accepted);
    return true;
  });
}

describe('loadConfig', () => {
  test('without FOLIO_BASE_URL the base address follows the port served, FOLIO_PORT or serve --port', () => {
    assert.equal(loadConfig({ FOLIO_PORT: '3413' }).baseUrl, 'http://localhost:3413');
    assert.equal(withPort(loadConfig({}), 4000).baseUrl, 'http://localhost:4000');
    assert.equal(withPort(loadConfig({}), 4000).port, 4000);
    const explicit = loadConfig({ FOLIO_PORT: '3413', FOLIO_BASE_URL: 'https://folio.example' });
    assert.equal(explicit.baseUrl, 'https://folio.example');
    assert.equal(withPort(explicit, 4000).baseUrl, 'https://folio.example');
  });

  test('uses the documented defaults for an empty environment', () => {
    assert.deepEqual({ ...loadConfig({}) }, {
      env: 'development',
      envChosen: false,
      databaseUrl: './data/folio.db',
      baseUrl: 'http://localhost:3000',
      baseUrlFollowsPort: true,
      host: '127.0.0.1',
      port: 3000,
      redisUrl: null,
      logLevel: 'info',
      rateLimitPerMinute: 360,
      allowSignup: true,
      trustProxy: false,
      purgeIntervalMs: 300_000,
      databasePoolSize: 10,
      metricsToken: null,
      registration: 'open',
      registrationToken: null,
      clientDocumentsFromPrivateNetworks: false,
    });
  });

  test('returns a frozen object', () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
    assert.throws(() => { (config as { port: number }).port = 1; }, TypeError);
  });

  test('FOLIO_METRICS_TOKEN: at least 24 printable characters, and never quoted back in the error', () => {
    const token = 'a'.repeat(24);
    assert.equal(loadConfig({ FOLIO_METRICS_TOKEN: token }).metricsToken, token);
    for (const bad of ['short-token', `${'a'.repeat(24)} b`, 'é'.repeat(30)]) {
      assert.throws(() => loadConfig({ FOLIO_METRICS_TOKEN: bad }), (error: Error) => error instanceof ConfigError && /FOLIO_METRICS_TOKEN/.test(error.message) && !error.message.includes(bad));
    }
  });

  test('treats an empty variable as unset', () => {
    assert.equal(loadConfig({ FOLIO_PORT: '', FOLIO_ENV: ' ' }).port, 3000);
  });

  test('FOLIO_DATABASE_URL passes through any of the three forms', () => {
    for (const url of ['/tmp/x/folio.db', 'sqlite::memory:', 'postgres://u:p@db:5432/folio']) {
      assert.equal(loadConfig({ FOLIO_DATABASE_URL: url }).databaseUrl, url);
    }
  });

  describe('FOLIO_BASE_URL', () => {
    test('strips trailing slashes and keeps a path', () => {
      assert.equal(loadConfig({ FOLIO_BASE_URL: 'https://folio.example.com/' }).baseUrl, 'https://folio.example.com');
      assert.equal(loadConfig({ FOLIO_BASE_URL: 'https://example.com/folio//' }).baseUrl, 'https://example.com/folio');
    });
    test('refuses relative, non-http, query and fragment forms', () => {
      for (const bad of ['folio.example.com', '/folio', 'ftp://example.com', 'https://x.test/?a=1', 'https://x.test/#top', 'https://x.test/?']) {
        rejects({ FOLIO_BASE_URL: bad }, 'FOLIO_BASE_URL', /absolute http\(s\) URL/);
      }
    });
    test('production requires https unless the host is loopback', () => {
      rejects({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'http://folio.example.com' }, 'FOLIO_BASE_URL', /https URL when FOLIO_ENV is production/);
      assert.equal(loadConfig({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://folio.example.com' }).baseUrl, 'https://folio.example.com');
      for (const loopback of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000']) {
        assert.equal(loadConfig({ FOLIO_ENV: 'production', FOLIO_BASE_URL: loopback }).baseUrl, loopback);
      }
    });
  });

  test('serving development mode beyond loopback needs FOLIO_ENV set on purpose', () => {
    assert.throws(() => refuseAccidentalExposure(loadConfig({ FOLIO_HOST: '0.0.0.0' })),
      (error: Error) => error instanceof ConfigError && /^FOLIO_HOST must be a loopback address while FOLIO_ENV is unset.*FOLIO_ENV=production.*got "0\.0\.0\.0"$/.test(error.message));
    for (const env of [{ FOLIO_HOST: '0.0.0.0', FOLIO_ENV: 'development' }, { FOLIO_HOST: '::', FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://f.example' }, { FOLIO_HOST: '127.0.0.1' }, { FOLIO_HOST: '::1' }, {}]) {
      assert.doesNotThrow(() => refuseAccidentalExposure(loadConfig(env)), JSON.stringify(env));
    }
  });

  test('FOLIO_HOST sets the listen address', () => {
    assert.equal(loadConfig({ FOLIO_HOST: '0.0.0.0' }).host, '0.0.0.0');
  });

  describe('FOLIO_PORT and PORT', () => {
    test('accepts 0 to 65535, FOLIO_PORT first', () => {
      assert.equal(loadConfig({ FOLIO_PORT: '0' }).port, 0);
      assert.equal(loadConfig({ FOLIO_PORT: '65535' }).port, 65535);
      assert.equal(loadConfig({ PORT: '8080' }).port, 8080);
      assert.equal(loadConfig({ FOLIO_PORT: '4000', PORT: '8080' }).port, 4000);
    });
    test('names the variable that was wrong', () => {
      assert.throws(() => loadConfig({ FOLIO_PORT: 'abc' }), { message: 'FOLIO_PORT must be an integer from 0 to 65535, got "abc"' });
      for (const bad of ['65536', '-1', '3.5', '1e3']) rejects({ FOLIO_PORT: bad }, 'FOLIO_PORT', /integer from 0 to 65535/);
      rejects({ PORT: 'http' }, 'PORT', /integer from 0 to 65535/);
    });
  });

  test('FOLIO_DATABASE_URL accepts a SQLite path, sqlite::memory: and postgres URLs only', () => {
    for (const good of ['./data/folio.db', '/var/lib/folio.db', 'sqlite::memory:', 'postgres://u@db/folio', 'postgresql://db/folio']) {
      assert.equal(loadConfig({ FOLIO_DATABASE_URL: good }).databaseUrl, good);
    }
    for (const bad of ['mysql://db/folio', 'redis://cache']) rejects({ FOLIO_DATABASE_URL: bad }, 'FOLIO_DATABASE_URL', /postgres:\/\/ URL/);
  });

  test('FOLIO_TRUST_PROXY accepts false, a hop count or proxy addresses', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ FOLIO_TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ FOLIO_TRUST_PROXY: '1' }).trustProxy, 1);
    assert.deepEqual(loadConfig({ FOLIO_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1', '::1']);
    for (const bad of ['yes', 'true', '10.0.0.0/8,evil host', '999.999.999.999', ':', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8']) {
      rejects({ FOLIO_TRUST_PROXY: bad }, 'FOLIO_TRUST_PROXY', /hop count/);
    }
    assert.deepEqual(loadConfig({ FOLIO_TRUST_PROXY: '2001:db8::/32' }).trustProxy, ['2001:db8::/32']);
  });

  test('FOLIO_REDIS_URL accepts redis:// and rediss:// only', () => {
    assert.equal(loadConfig({ FOLIO_REDIS_URL: 'redis://cache:6379/0' }).redisUrl, 'redis://cache:6379/0');
    assert.equal(loadConfig({ FOLIO_REDIS_URL: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380');
    for (const bad of ['http://cache:6379', 'cache:6379', 'nonsense']) rejects({ FOLIO_REDIS_URL: bad }, 'FOLIO_REDIS_URL', /redis:\/\/ or rediss:\/\//);
  });

  test('FOLIO_ENV accepts development, production and test', () => {
    assert.equal(loadConfig({ FOLIO_ENV: 'test' }).env, 'test');
    assert.equal(loadConfig({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://f.test' }).env, 'production');
    rejects({ FOLIO_ENV: 'prod' }, 'FOLIO_ENV', /one of development, production, test, got "prod"/);
  });

  test('FOLIO_LOG_LEVEL accepts pino levels including silent', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      assert.equal(loadConfig({ FOLIO_LOG_LEVEL: level }).logLevel, level);
    }
    rejects({ FOLIO_LOG_LEVEL: 'verbose' }, 'FOLIO_LOG_LEVEL', /one of fatal, error/);
  });

  test('FOLIO_RATE_LIMIT_PER_MINUTE is a positive integer', () => {
    assert.equal(loadConfig({ FOLIO_RATE_LIMIT_PER_MINUTE: '60' }).rateLimitPerMinute, 60);
    for (const bad of ['0', '-5', 'many', '1.5']) rejects({ FOLIO_RATE_LIMIT_PER_MINUTE: bad }, 'FOLIO_RATE_LIMIT_PER_MINUTE', /integer of at least 1/);
  });

  test('FOLIO_PURGE_INTERVAL_SECONDS is whole seconds from 1 to a day, five minutes by default', () => {
    assert.equal(loadConfig({}).purgeIntervalMs, 300_000);
    assert.equal(loadConfig({ FOLIO_PURGE_INTERVAL_SECONDS: '1' }).purgeIntervalMs, 1000);
    assert.equal(loadConfig({ FOLIO_PURGE_INTERVAL_SECONDS: '86400' }).purgeIntervalMs, 86_400_000);
    for (const bad of ['0', '86401', '-1', '2.5', '5m', '1e3']) rejects({ FOLIO_PURGE_INTERVAL_SECONDS: bad }, 'FOLIO_PURGE_INTERVAL_SECONDS', /integer from 1 to 86400/);
  });

  test('FOLIO_DATABASE_POOL_SIZE is a connection count from 1 to 1000', () => {
    assert.equal(loadConfig({ FOLIO_DATABASE_POOL_SIZE: '25' }).databasePoolSize, 25);
    for (const bad of ['0', '1001', 'ten', '2.5']) rejects({ FOLIO_DATABASE_POOL_SIZE: bad }, 'FOLIO_DATABASE_POOL_SIZE', /integer from 1 to 1000/);
  });

  test('FOLIO_ALLOW_SIGNUP defaults on outside production and off in it', () => {
    assert.equal(loadConfig({ FOLIO_ENV: 'test' }).allowSignup, true);
    assert.equal(loadConfig({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://f.test' }).allowSignup, false);
    assert.equal(loadConfig({ FOLIO_ALLOW_SIGNUP: 'false' }).allowSignup, false);
    assert.equal(loadConfig({ FOLIO_ALLOW_SIGNUP: '0' }).allowSignup, false);
    assert.equal(loadConfig({ FOLIO_ALLOW_SIGNUP: 'TRUE', FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://f.test' }).allowSignup, true);
    assert.equal(loadConfig({ FOLIO_ALLOW_SIGNUP: '1' }).allowSignup, true);
    rejects({ FOLIO_ALLOW_SIGNUP: 'yes' }, 'FOLIO_ALLOW_SIGNUP', /true, false, 1 or 0/);
  });
});

describe('registration (RFC 7591) configuration', () => {
  test('is open outside production, and in production guarded by a token when one is set, else off', () => {
    assert.equal(loadConfig({}).registration, 'open');
    const production = { FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://f.test' };
    assert.equal(loadConfig(production).registration, 'off');
    const token = 'r'.repeat(32);
    const guarded = loadConfig({ ...production, FOLIO_REGISTRATION_TOKEN: token });
    assert.deepEqual([guarded.registration, guarded.registrationToken], ['token', token]);
    assert.equal(loadConfig({ FOLIO_REGISTRATION: 'off', FOLIO_REGISTRATION_TOKEN: token }).registrationToken, null);
  });

  test('token mode without a token, a short token or an unknown mode stops start-up naming the variable', () => {
    rejects({ FOLIO_REGISTRATION: 'token' }, 'FOLIO_REGISTRATION_TOKEN', /set when FOLIO_REGISTRATION is token/);
    rejects({ FOLIO_REGISTRATION: 'token', FOLIO_REGISTRATION_TOKEN: 'short' }, 'FOLIO_REGISTRATION_TOKEN', /24 to 512 printable/);
    rejects({ FOLIO_REGISTRATION: 'closed' }, 'FOLIO_REGISTRATION', /one of open, token, off/);
  });

  test('client documents come from public addresses only unless FOLIO_CLIENT_DOCUMENTS_PRIVATE_NETWORKS says otherwise', () => {
    assert.equal(loadConfig({}).clientDocumentsFromPrivateNetworks, false);
    assert.equal(loadConfig({ FOLIO_CLIENT_DOCUMENTS_PRIVATE_NETWORKS: 'true' }).clientDocumentsFromPrivateNetworks, true);
  });
});
