import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, createUser, portfolioFields } from './fixtures.ts';

describeStorageContract('portfolios', (target) => {
  it('creates a portfolio and reads back every field as it was given', async () => {
    const { storage } = target();
    const owner = await createUser(storage);
    const fields = portfolioFields({ trader: true, rwtrRate: 10.5, cgDiscount: '0.33' });
    const created = await storage.portfolios.createPortfolio(owner.id, fields, T0);
    assert.deepEqual(created, { ...fields, id: created.id, ownerId: owner.id, createdAt: T0, updatedAt: T0 });
    assert.deepEqual(await storage.portfolios.findPortfolioOwnedBy(created.id, owner.id), created);
  });

  it('keeps nullable booleans and numbers null', async () => {
    const { storage } = target();
    const owner = await createUser(storage);
    const fields = portfolioFields({ trader: null, rwtrRate: null, buyTradeSettlementDelay: null, brokerEmailKey: null });
    const created = await storage.portfolios.createPortfolio(owner.id, fields, T0);
    const found = await storage.portfolios.findPortfolioOwnedBy(created.id, owner.id);
    assert.equal(found?.trader, null);
    assert.equal(found?.rwtrRate, null);
    assert.equal(found?.buyTradeSettlementDelay, null);
  });

  it('lists only the owner\'s portfolios, in id order', async () => {
    const { storage } = target();
    const [alice, bob] = [await createUser(storage), await createUser(storage)];
    const first = await storage.portfolios.createPortfolio(alice.id, portfolioFields({ name: 'B' }), T0);
    await storage.portfolios.createPortfolio(bob.id, portfolioFields(), T0);
    const second = await storage.portfolios.createPortfolio(alice.id, portfolioFields({ name: 'A' }), T0);
    const listed = await storage.portfolios.listPortfoliosOwnedBy(alice.id);
    assert.deepEqual(listed.map((portfolio) => portfolio.id), [first.id, second.id]);
  });

  it('hides, refuses to change and refuses to delete another owner\'s portfolio', async () => {
    const { storage } = target();
    const [alice, mallory] = [await createUser(storage), await createUser(storage)];
    const portfolio = await storage.portfolios.createPortfolio(alice.id, portfolioFields(), T0);
    assert.equal(await storage.portfolios.findPortfolioOwnedBy(portfolio.id, mallory.id), undefined);
    assert.equal(await storage.portfolios.updatePortfolio(portfolio.id, mallory.id, portfolioFields({ name: 'Mine' }), T0), undefined);
    assert.equal(await storage.portfolios.deletePortfolio(portfolio.id, mallory.id), false);
    assert.deepEqual(await storage.portfolios.findPortfolioOwnedBy(portfolio.id, alice.id), portfolio);
  });

  it('updates and deletes the owner\'s portfolio', async () => {
    const { storage } = target();
    const owner = await createUser(storage);
    const portfolio = await storage.portfolios.createPortfolio(owner.id, portfolioFields(), T0);
    const fields = portfolioFields({ name: 'Renamed', currencyCode: 'AUD', brokerEmailApiEnabled: false });
    const updated = await storage.portfolios.updatePortfolio(portfolio.id, owner.id, fields, T0 + MINUTE);
    assert.deepEqual(updated, { ...portfolio, ...fields, updatedAt: T0 + MINUTE });
    assert.equal(await storage.portfolios.deletePortfolio(portfolio.id, owner.id), true);
    assert.equal(await storage.portfolios.findPortfolioOwnedBy(portfolio.id, owner.id), undefined);
  });
});
