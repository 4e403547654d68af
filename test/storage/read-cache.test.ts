// The bearer API's reads from memory on SQLite (src/storage/kysely/read-cache.ts):
// never an answer that a change, made by this process or another, has outdated.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { hashCredential } from '../../src/platform/secrets.ts';
import { openStorage, type OpenedStorage } from '../../src/storage/open.ts';
import { VersionedCache } from '../../src/storage/kysely/read-cache.ts';
import {
  accessTokenFor, auditEvent, createGrant, MINUTE, portfolioFields, rawToken, revokeGrant, T0,
} from './fixtures.ts';

describe('VersionedCache', () => {
  let version = 0;
  let reads = 0;
  const read = async (key: string) => {
    reads++;
    return key === 'absent' ? undefined : `${key}@${version}`;
  };
  beforeEach(() => { version = 0; reads = 0; });

  it('answers from memory while the version stands, and reads afresh once it moves', async () => {
    const cache = new VersionedCache<string, string>(10, () => version);
    assert.equal(await cache.get('a', read), 'a@0');
    assert.equal(await cache.get('a', read), 'a@0');
    assert.equal(reads, 1);
    version++;
    assert.equal(await cache.get('a', read), 'a@1');
    assert.equal(reads, 2);
  });

  it('does not keep a value read while the version moved', async () => {
    const cache = new VersionedCache<string, string>(10, () => version);
    await cache.get('a', async (key) => {
      version++; // a write landed during the read
      return read(key);
    });
    await cache.get('a', read);
    assert.equal(reads, 2);
  });

  it('remembers no absence, and holds at most its capacity, the oldest going first', async () => {
    const cache = new VersionedCache<string, string>(2, () => version);
    await cache.get('absent', read);
    await cache.get('absent', read);
    assert.equal(reads, 2);
    for (const key of ['a', 'b', 'c']) await cache.get(key, read);
    reads = 0;
    await cache.get('c', read);
    await cache.get('b', read);
    assert.equal(reads, 0);
    await cache.get('a', read);
    assert.equal(reads, 1);
  });
});

describe('bearer reads from memory on a SQLite file', () => {
  let directory: string;
  let file: string;
  let storage: OpenedStorage;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-read-cache-'));
    file = join(directory, 'folio.db');
    storage = await openStorage(file);
    await storage.migrate();
  });
  afterEach(async () => {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A live token, looked up once so that it is in memory. */
  async function cachedToken() {
    const fixture = await createGrant(storage);
    const raw = rawToken('at');
    await storage.tokens.saveTokens({ access: accessTokenFor(fixture.grant, raw, T0) });
    const hash = hashCredential(raw);
    assert.equal((await storage.tokens.findAccessToken(hash))?.revokedAt, null);
    return { ...fixture, hash, raw };
  }

  it('sees a token revoked through this storage at once (RFC 7009)', async () => {
    const { hash } = await cachedToken();
    assert.equal(await storage.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked')), true);
    assert.equal((await storage.tokens.findAccessToken(hash))?.revokedAt, T0 + MINUTE);
  });

  it('sees an application disconnected, an authorization revoked and an application deleted', async () => {
    const disconnected = await cachedToken();
    await revokeGrant(storage, disconnected.grant.id, T0 + MINUTE);
    assert.notEqual((await storage.tokens.findAccessToken(disconnected.hash))?.revokedAt ?? null, null);

    const authorization = await cachedToken();
    await storage.grants.revokeAuthorization(authorization.grant.id, null, T0 + MINUTE, auditEvent('grant.revoked'));
    assert.notEqual((await storage.tokens.findAccessToken(authorization.hash))?.revokedAt ?? null, null);

    // Deleting the application deletes its tokens by cascade: no statement names them.
    const deleted = await cachedToken();
    assert.equal(await storage.applications.deleteApplication(deleted.application.id, deleted.application.ownerId, auditEvent('application.deleted')), true);
    assert.equal(await storage.tokens.findAccessToken(deleted.hash), undefined);
  });

  it('sees portfolios created, changed and deleted through this storage', async () => {
    const { user } = await createGrant(storage);
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    const created = await storage.portfolios.createPortfolio(user.id, portfolioFields({ name: 'Growth' }), T0);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['Growth']);
    await storage.portfolios.updatePortfolio(created.id, user.id, portfolioFields({ name: 'Income' }), T0 + MINUTE);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['Income']);
    await storage.portfolios.deletePortfolio(created.id, user.id);
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
  });

  it("sees another process's changes from the next turn of the event loop: a revocation and a new portfolio", async () => {
    const { hash, user } = await cachedToken();
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    // What `folio portfolio create`, or a second server on the same file, would do.
    const other = await openStorage(file);
    try {
      await other.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked'));
      await other.portfolios.createPortfolio(user.id, portfolioFields({ name: 'From the CLI' }), T0);
    } finally {
      await other.close();
    }
    // Another process's commit counts from the next turn of the event loop on
    // (sqlite-changes.ts); within the turn it happened in, a cached answer may stand.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await storage.tokens.findAccessToken(hash))?.revokedAt, T0 + MINUTE);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['From the CLI']);
  });

  it('hands out records no caller can change for the next one', async () => {
    const { hash, user } = await cachedToken();
    await storage.portfolios.createPortfolio(user.id, portfolioFields(), T0);
    const token = (await storage.tokens.findAccessToken(hash))!;
    assert.throws(() => { (token as { revokedAt: number | null }).revokedAt = 1; }, TypeError);
    assert.throws(() => { token.scope.push('write'); }, TypeError);
    const [portfolio] = await storage.portfolios.listPortfoliosOwnedBy(user.id);
    assert.throws(() => { portfolio!.name = 'changed'; }, TypeError);
    assert.equal((await storage.tokens.findAccessToken(hash))!.revokedAt, null);
  });
});
