import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { seedDemo } from '../../src/demo/seed.ts';
import { DEMO_USER } from '../../src/demo/data.ts';
import { portfolioFields } from '../../src/demo/portfolio-fields.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { verifyPassword } from '../../src/platform/password.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import { createTestStorage } from '../support/storage.ts';

describe('demo seed', () => {
  test('creates the demo user, two applications and three portfolios, then changes nothing on a second run', async () => {
    const storage = await createTestStorage();
    const deps = { storage, clock: new FixedClock(), random: cryptoRandom };
    try {
      assert.equal(await storage.users.hasAnyUser(), false);
      const first = await seedDemo(deps);
      assert.equal(first.user.created, true);
      const user = await storage.users.findUserCredentials(DEMO_USER.email);
      assert.ok(user !== undefined && await verifyPassword(DEMO_USER.password, user.passwordHash));

      const [confidential, publicApp] = first.applications;
      assert.equal(confidential?.confidential, true);
      assert.equal(publicApp?.pkceRequired, true);
      const stored = await storage.applications.findApplicationByClientId(confidential!.clientId);
      assert.equal(stored?.secretHash, hashCredential(confidential!.clientSecret!));
      assert.deepEqual(stored?.redirectUris, ['http://localhost:8080/callback', 'urn:ietf:wg:oauth:2.0:oob']);

      const second = await seedDemo(deps);
      assert.equal(second.user.created, false);
      assert.deepEqual(second.applications.map((app) => [app.clientId, app.clientSecret]),
        first.applications.map((app) => [app.clientId, null]));
      assert.equal((await storage.applications.listApplicationsOwnedBy(user.id)).length, 2);
      assert.equal((await storage.portfolios.listPortfoliosOwnedBy(user.id)).length, 3);
    } finally {
      await storage.close();
    }
  });

  test('portfolio defaults follow the market', () => {
    const now = Date.UTC(2026, 2, 15);
    assert.deepEqual(
      (({ currencyCode, countryCode, financialYearEnd, tzName, inceptionDate }) => ({ currencyCode, countryCode, financialYearEnd, tzName, inceptionDate }))(
        portfolioFields({ name: 'x', countryCode: 'AU', now })),
      { currencyCode: 'AUD', countryCode: 'AU', financialYearEnd: '06-30', tzName: 'Australia/Sydney', inceptionDate: '2026-03-15' },
    );
    assert.equal(portfolioFields({ name: 'x', currencyCode: 'GBP', now }).countryCode, 'GB');
    assert.equal(portfolioFields({ name: 'x', countryCode: 'BR', now }).tzName, 'UTC');
  });
});
