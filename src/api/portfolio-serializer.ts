// Portfolio records in the Sharesight v2 shape (DESIGN §5).
import type { Portfolio } from '../domain/records.ts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2009-01-01" → "01 Jan 2009" */
export function formatInceptionDate(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day} ${MONTHS[Number(month) - 1]} ${year}`;
}

export interface PortfolioLinks {
  portfolio: string;
  self: string;
}

export function portfolioLinks(baseUrl: string, id: number): PortfolioLinks {
  return { portfolio: `${baseUrl}/portfolios/${id}`, self: `${baseUrl}/api/v2/portfolios/${id}` };
}

/** Every portfolio served belongs to the token's user, so the owner-only fields are always included. */
export function serializePortfolio(portfolio: Portfolio, baseUrl: string) {
  return {
    id: portfolio.id,
    name: portfolio.name,
    default_sale_allocation_method: portfolio.defaultSaleAllocationMethod,
    cg_discount: portfolio.cgDiscount,
    rwtr_rate: portfolio.rwtrRate,
    trader: portfolio.trader,
    disable_automatic_transactions: portfolio.disableAutomaticTransactions,
    tax_entity_type: portfolio.taxEntityType,
    broker_email_api_enabled: portfolio.brokerEmailApiEnabled,
    broker_email_key: portfolio.brokerEmailKey,
    financial_year_end_month_id: Number(portfolio.financialYearEnd.slice(0, 2)),
    financial_year_end: portfolio.financialYearEnd,
    interest_method: portfolio.interestMethod,
    country_code: portfolio.countryCode,
    currency_code: portfolio.currencyCode,
    inception_date: formatInceptionDate(portfolio.inceptionDate),
    tz_name: portfolio.tzName,
    apply_cash_account_adjustments: portfolio.applyCashAccountAdjustments,
    buy_trade_settlement_delay: portfolio.buyTradeSettlementDelay,
    sell_trade_settlement_delay: portfolio.sellTradeSettlementDelay,
    account_for_delayed_cash_transactions: portfolio.accountForDelayedCashTransactions,
    trade_sync_cash_account_id: portfolio.tradeSyncCashAccountId,
    payout_sync_cash_account_id: portfolio.payoutSyncCashAccountId,
    external_identifier: portfolio.externalIdentifier,
    links: portfolioLinks(baseUrl, portfolio.id),
  };
}

export function serializePortfolioList(portfolios: Portfolio[], baseUrl: string) {
  return {
    portfolios: portfolios.map((portfolio) => serializePortfolio(portfolio, baseUrl)),
    links: { self: `${baseUrl}/api/v2/portfolios` },
  };
}

export function serializeOnePortfolio(portfolio: Portfolio, baseUrl: string) {
  const record = serializePortfolio(portfolio, baseUrl);
  return { portfolio: record, links: { self: record.links.self } };
}
