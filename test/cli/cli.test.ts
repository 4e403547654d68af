import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { hashCredential, isWellFormedCredential } from '../../src/platform/secrets.ts';
import { cliSandbox, oneLineError, type CliSandbox } from './run-cli.ts';

/** Every value in every table, so a test can say what is and is not stored anywhere. */
function databaseText(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

describe('folio CLI', { concurrency: true }, () => {
  let cli: CliSandbox;
  before(async () => {
    cli = cliSandbox();
    const created = await cli.run(['user', 'create', '--email', 'owner@folio.test', '--password', 'owner-password', '--name', 'Olive Owner', '--json']);
    assert.equal(created.status, 0, created.stderr);
    assert.deepEqual(Object.keys(JSON.parse(created.stdout)).sort(), ['created_at', 'email', 'id', 'name']);
  });
  after(() => cli.remove());

  test('user create refuses a duplicate email with one line and status 1', async () => {
    const result = await cli.run(['user', 'create', '--email', 'owner@folio.test', '--password', 'another-password']);
    assert.equal(result.status, 1);
    assert.equal(oneLineError(result), 'folio: error: a user with email owner@folio.test already exists');
  });

  test('user create refuses a name with a text-direction override, which would read otherwise on a consent page', async () => {
    const result = await cli.run(['user', 'create', '--email', 'sneaky@folio.test', '--password', 'sneaky-password', '--name', 'Ada \u202Eevil']);
    assert.equal(result.status, 1);
    assert.equal(oneLineError(result), 'folio: error: user name must not contain control or text-direction characters');
  });

  test('serve refuses development mode on a public interface, naming FOLIO_HOST and FOLIO_ENV, and listens nowhere', { timeout: 60_000 }, async () => {
    const result = await cli.run(['serve', '--port', '0'], { env: { FOLIO_HOST: '0.0.0.0' } });
    assert.equal(result.status, 1);
    assert.match(oneLineError(result), /^folio: error: FOLIO_HOST must be a loopback address while FOLIO_ENV is unset.*FOLIO_ENV=production/);
    assert.doesNotMatch(result.stdout, /listening/);
  });

  test('user create reads the password from stdin and never stores it', async () => {
    const result = await cli.run(['user', 'create', '--email', 'stdin@folio.test', '--password-stdin', '--json'], { stdin: 'piped-password-42\n' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).email, 'stdin@folio.test');
    assert.ok(!databaseText(cli.databaseFile).includes('piped-password-42'));
  });

  test('app create prints the secret once and stores only its hash', async () => {
    const result = await cli.run([
      'app', 'create', '--owner', 'owner@folio.test', '--name', 'Tracker', '--json',
      '--redirect-uri', 'https://tracker.example/cb', '--redirect-uri', 'urn:ietf:wg:oauth:2.0:oob',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const app = JSON.parse(result.stdout);
    assert.match(app.client_id, /^[A-Za-z0-9_-]{22}$/);
    assert.ok(app.client_secret.startsWith('folio_cs_'));
    assert.ok(isWellFormedCredential('clientSecret', app.client_secret));
    assert.deepEqual(app.redirect_uris, ['https://tracker.example/cb', 'urn:ietf:wg:oauth:2.0:oob']);
    assert.equal(app.confidential, true);
    assert.equal(app.pkce_required, false);
    const stored = databaseText(cli.databaseFile);
    assert.ok(!stored.includes(app.client_secret));
    assert.ok(stored.includes(hashCredential(app.client_secret)));

    const rotated = await cli.run(['app', 'rotate-secret', app.client_id, '--json']);
    assert.equal(rotated.status, 0, rotated.stderr);
    const { client_id, client_secret } = JSON.parse(rotated.stdout);
    assert.equal(client_id, app.client_id);
    assert.notEqual(client_secret, app.client_secret);
    const afterRotation = databaseText(cli.databaseFile);
    assert.ok(afterRotation.includes(hashCredential(client_secret)));
    assert.ok(!afterRotation.includes(hashCredential(app.client_secret)));
  });

  test('app create refuses a public application without PKCE, as the settings page does', async () => {
    const result = await cli.run([
      'app', 'create', '--owner', 'owner@folio.test', '--name', 'Phone', '--public', '--no-pkce',
      '--redirect-uri', 'com.example.phone:/callback',
    ]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^folio: error: a public application must use PKCE/);
  });

  test('app create --public requires PKCE', async () => {
    const result = await cli.run([
      'app', 'create', '--owner', 'owner@folio.test', '--name', 'Phone', '--public', '--json',
      '--redirect-uri', 'com.example.phone:/callback',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual({ ...JSON.parse(result.stdout), client_id: 0, client_secret: 0 }, {
      client_id: 0, client_secret: 0, name: 'Phone', redirect_uris: ['com.example.phone:/callback'],
      confidential: false, pkce_required: true, scopes: ['read'],
    });
  });

  test('app rotate-secret takes a client id that starts with "-" after --', async () => {
    const created = JSON.parse((await cli.run([
      'app', 'create', '--owner', 'owner@folio.test', '--name', 'Dashed', '--json', '--redirect-uri', 'https://dashed.example/cb',
    ])).stdout);
    const db = new Database(cli.databaseFile);
    try {
      db.prepare('UPDATE applications SET client_id = ? WHERE client_id = ?').run('-older-dashed-id', created.client_id);
    } finally {
      db.close();
    }
    const rotated = await cli.run(['app', 'rotate-secret', '--json', '--', '-older-dashed-id']);
    assert.equal(rotated.status, 0, rotated.stderr);
    assert.equal(JSON.parse(rotated.stdout).client_id, '-older-dashed-id');
  });

  test('app create and rotate-secret report bad input in one line', async () => {
    const base = ['app', 'create', '--name', 'X', '--redirect-uri', 'https://x.example/cb'];
    const [unknownOwner, badUri, fragment, missingFlag, unknownFlag, unknownClient] = await Promise.all([
      cli.run([...base, '--owner', 'ghost@folio.test']),
      cli.run(['app', 'create', '--owner', 'owner@folio.test', '--name', 'X', '--redirect-uri', 'http://evil.example/cb']),
      cli.run(['app', 'create', '--owner', 'owner@folio.test', '--name', 'X', '--redirect-uri', 'https://x.example/cb#frag']),
      cli.run(base),
      cli.run([...base, '--owner', 'owner@folio.test', '--colour', 'blue']),
      cli.run(['app', 'rotate-secret', 'no-such-client']),
    ]);
    assert.equal(unknownOwner.status, 1);
    assert.equal(oneLineError(unknownOwner), 'folio: error: no user with email ghost@folio.test');
    assert.equal(badUri.status, 1);
    assert.match(oneLineError(badUri), /must use https unless its host is loopback/);
    assert.equal(fragment.status, 1);
    assert.match(oneLineError(fragment), /must not contain a fragment/);
    assert.equal(missingFlag.status, 2);
    assert.equal(oneLineError(missingFlag), 'folio: error: app create needs --owner');
    assert.equal(unknownFlag.status, 2);
    assert.match(oneLineError(unknownFlag), /unknown option '--colour'/);
    assert.equal(unknownClient.status, 1);
    assert.equal(oneLineError(unknownClient), 'folio: error: no application with client_id no-such-client');
  });

  test('portfolio create fills the market defaults', async () => {
    const result = await cli.run(['portfolio', 'create', '--owner', 'owner@folio.test', '--name', 'Kiwi Shares', '--currency', 'NZD', '--json']);
    assert.equal(result.status, 0, result.stderr);
    const portfolio = JSON.parse(result.stdout);
    assert.equal(portfolio.name, 'Kiwi Shares');
    assert.equal(portfolio.country_code, 'NZ');
    assert.equal(portfolio.financial_year_end, '03-31');
    assert.equal(portfolio.tz_name, 'Pacific/Auckland');
  });

  test('tokens purge reports what it deleted', async () => {
    const result = await cli.run(['tokens', 'purge']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^Purged \d+ access tokens?, \d+ refresh tokens? and \d+ authorization codes?\.\n$/);
  });

  test('a bad configuration stops with a line naming the variable', async () => {
    const [badPort, unknownVerb] = await Promise.all([
      cli.run(['migrate'], { env: { FOLIO_PORT: 'abc' } }),
      cli.run(['frobnicate']),
    ]);
    assert.equal(badPort.status, 1);
    assert.equal(oneLineError(badPort), 'folio: error: FOLIO_PORT must be an integer from 0 to 65535, got "abc"');
    assert.equal(unknownVerb.status, 2);
    assert.match(oneLineError(unknownVerb), /unknown command "frobnicate"/);
  });
});

describe('folio demo', () => {
  test('seeds once, then keeps what exists and shows no secret', async () => {
    const cli = cliSandbox();
    try {
      const first = await cli.run(['demo']);
      assert.equal(first.status, 0, first.stderr);
      assert.match(first.stdout, /demo@folio\.test/);
      assert.match(first.stdout, /folio-demo-password/);
      assert.equal(first.stdout.match(/folio_cs_/g)?.length, 2);
      const second = await cli.run(['demo', '--json']);
      assert.equal(second.status, 0, second.stderr);
      const result = JSON.parse(second.stdout);
      assert.equal(result.user.created, false);
      assert.deepEqual(result.applications.map((app: { clientSecret: unknown }) => app.clientSecret), [null, null]);
      assert.deepEqual(result.portfolios.map((p: { name: string }) => p.name), ['Retirement', 'Growth NZ', 'US Brokerage']);
      assert.ok(result.portfolios.every((p: { created: boolean }) => !p.created));
    } finally {
      cli.remove();
    }
  });
});
