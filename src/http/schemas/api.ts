// Schemas of the bearer API: the Sharesight v2 portfolio record (DESIGN §5)
// and the user. Listed fields are the only ones that can leave the server.
import { bearerErrorResponses, bearerSecurity, errorBody, rateLimitHeaders } from './common.ts';

const string = { type: 'string' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const boolean = { type: 'boolean' } as const;

const selfLink = { type: 'object', properties: { self: string }, required: ['self'] } as const;

const portfolio = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: string,
    default_sale_allocation_method: { type: 'string', examples: ['fifo'] },
    cg_discount: nullableString,
    rwtr_rate: { type: ['number', 'null'] },
    trader: { type: ['boolean', 'null'] },
    disable_automatic_transactions: boolean,
    tax_entity_type: nullableString,
    broker_email_api_enabled: boolean,
    broker_email_key: nullableString,
    financial_year_end_month_id: { type: 'integer' },
    financial_year_end: { type: 'string', description: 'MM-DD', examples: ['06-30'] },
    interest_method: { type: 'string', examples: ['simple'] },
    country_code: { type: 'string', description: 'ISO 3166-1 alpha-2' },
    currency_code: { type: 'string', description: 'ISO 4217' },
    inception_date: { type: 'string', description: '"DD Mon YYYY"', examples: ['01 Jan 2009'] },
    tz_name: string,
    apply_cash_account_adjustments: boolean,
    buy_trade_settlement_delay: nullableInteger,
    sell_trade_settlement_delay: nullableInteger,
    account_for_delayed_cash_transactions: boolean,
    trade_sync_cash_account_id: nullableInteger,
    payout_sync_cash_account_id: nullableInteger,
    external_identifier: nullableString,
    links: { type: 'object', properties: { portfolio: string, self: string }, required: ['portfolio', 'self'] },
  },
  required: ['id', 'name', 'links'],
} as const;

const api = { tags: ['API'], security: bearerSecurity } as const;

export const portfolioListSchema = {
  ...api,
  summary: 'The token user\'s portfolios',
  response: {
    200: {
      type: 'object',
      properties: { portfolios: { type: 'array', items: portfolio }, links: selfLink },
      required: ['portfolios', 'links'],
      headers: rateLimitHeaders,
    },
    ...bearerErrorResponses,
  },
} as const;

export const onePortfolioSchema = {
  ...api,
  summary: 'One portfolio of the token user (404 for anyone else\'s)',
  params: {
    type: 'object',
    // A string, not an integer: "12.json" is a valid id, and a bad one is 404 not_found, not 400.
    properties: { id: { type: 'string', description: 'Portfolio id, optionally followed by ".json"', examples: ['12', '12.json'] } },
    required: ['id'],
  },
  response: {
    200: { type: 'object', properties: { portfolio, links: selfLink }, required: ['portfolio', 'links'], headers: rateLimitHeaders },
    404: { ...errorBody, description: 'not_found: no portfolio with that id belongs to the token\'s user' },
    ...bearerErrorResponses,
  },
} as const;

export const myUserSchema = {
  ...api,
  summary: 'The token\'s user',
  response: {
    200: {
      type: 'object',
      properties: {
        user: { type: 'object', properties: { id: { type: 'integer' }, name: string, email: string }, required: ['id', 'name', 'email'] },
        links: selfLink,
      },
      required: ['user', 'links'],
      headers: rateLimitHeaders,
    },
    ...bearerErrorResponses,
  },
} as const;
