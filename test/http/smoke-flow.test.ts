import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type TestApp, bearer, createClient, createPortfolio, createTestApp, createUser, obtainTokens } from '../support/app.ts';

describe('authorization code flow end to end', () => {
  let t: TestApp;
  beforeEach(async () => { t = await createTestApp(); });
  afterEach(async () => { await t.close(); });

  it('signs in, approves, exchanges the code and reads portfolios', async () => {
    const user = await createUser(t);
    await createPortfolio(t, user, 'Retirement');
    const client = await createClient(t, user);
    const tokens = await obtainTokens(t, client, user);
    assert.equal(tokens.token_type, 'bearer');
    const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(tokens.access_token) });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().portfolios[0].name, 'Retirement');
  });
});
