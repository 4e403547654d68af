// The shapes Folio's /api/v2 returns (its OpenAPI document at /api/v2/openapi.json is the reference).

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  created_at: number;
  scope?: string;
}

export interface Portfolio {
  id: number;
  name: string;
  default_sale_allocation_method: string;
  cg_discount: string | null;
  rwtr_rate: number | null;
  trader: boolean | null;
  disable_automatic_transactions: boolean;
  tax_entity_type: string | null;
  broker_email_api_enabled: boolean;
  broker_email_key: string | null;
  financial_year_end_month_id: number;
  financial_year_end: string;
  interest_method: string;
  country_code: string;
  currency_code: string;
  inception_date: string;
  tz_name: string;
  apply_cash_account_adjustments: boolean;
  buy_trade_settlement_delay: number | null;
  sell_trade_settlement_delay: number | null;
  account_for_delayed_cash_transactions: boolean;
  trade_sync_cash_account_id: number | null;
  payout_sync_cash_account_id: number | null;
  external_identifier: string | null;
  links: { portfolio: string; self: string };
}

export interface PortfolioList {
  portfolios: Portfolio[];
  links: { self: string };
}

export interface OnePortfolio {
  portfolio: Portfolio;
  links: { self: string };
}

export interface MyUser {
  user: { id: number; name: string; email: string };
  links: { self: string };
}

export interface TokenInfo {
  resource_owner_id: number;
  scope: string[];
  expires_in: number;
  application: { uid: string | null };
  created_at: number;
}
