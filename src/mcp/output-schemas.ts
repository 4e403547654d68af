// The tools' output schemas: the same records /api/v2 answers with (DESIGN §5,
// src/http/schemas/api.ts), as zod schemas because the MCP SDK lists and checks
// tool schemas through zod. A test holds the two field lists equal.
import * as z from 'zod/v4';

const link = z.string().describe('An absolute URL');
const selfLink = z.object({ self: link });

export const portfolioRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  default_sale_allocation_method: z.string(),
  cg_discount: z.string().nullable(),
  rwtr_rate: z.number().nullable(),
  trader: z.boolean().nullable(),
  disable_automatic_transactions: z.boolean(),
  tax_entity_type: z.string().nullable(),
  broker_email_api_enabled: z.boolean(),
  broker_email_key: z.string().nullable(),
  financial_year_end_month_id: z.number().int(),
  financial_year_end: z.string().describe('MM-DD'),
  interest_method: z.string(),
  country_code: z.string().describe('ISO 3166-1 alpha-2'),
  currency_code: z.string().describe('ISO 4217'),
  inception_date: z.string().describe('"DD Mon YYYY"'),
  tz_name: z.string(),
  apply_cash_account_adjustments: z.boolean(),
  buy_trade_settlement_delay: z.number().int().nullable(),
  sell_trade_settlement_delay: z.number().int().nullable(),
  account_for_delayed_cash_transactions: z.boolean(),
  trade_sync_cash_account_id: z.number().int().nullable(),
  payout_sync_cash_account_id: z.number().int().nullable(),
  external_identifier: z.string().nullable(),
  links: z.object({ portfolio: link, self: link }),
});

export const portfolioListOutput = z.object({ portfolios: z.array(portfolioRecord), links: selfLink });

export const onePortfolioOutput = z.object({ portfolio: portfolioRecord, links: selfLink });

export const myUserOutput = z.object({
  user: z.object({ id: z.number().int(), name: z.string(), email: z.string() }),
  links: selfLink,
});
