// Sensible defaults for a new portfolio from its market: the financial year,
// time zone and currency a person in that country would expect.
import type { PortfolioFields } from '../domain/records.ts';

interface Market { currency: string; financialYearEnd: string; tzName: string }

const MARKETS: Record<string, Market> = {
  AU: { currency: 'AUD', financialYearEnd: '06-30', tzName: 'Australia/Sydney' },
  NZ: { currency: 'NZD', financialYearEnd: '03-31', tzName: 'Pacific/Auckland' },
  US: { currency: 'USD', financialYearEnd: '12-31', tzName: 'America/New_York' },
  GB: { currency: 'GBP', financialYearEnd: '04-05', tzName: 'Europe/London' },
  CA: { currency: 'CAD', financialYearEnd: '12-31', tzName: 'America/Toronto' },
  SG: { currency: 'SGD', financialYearEnd: '12-31', tzName: 'Asia/Singapore' },
  HK: { currency: 'HKD', financialYearEnd: '03-31', tzName: 'Asia/Hong_Kong' },
  ZA: { currency: 'ZAR', financialYearEnd: '02-28', tzName: 'Africa/Johannesburg' },
  IE: { currency: 'EUR', financialYearEnd: '12-31', tzName: 'Europe/Dublin' },
  DE: { currency: 'EUR', financialYearEnd: '12-31', tzName: 'Europe/Berlin' },
  FR: { currency: 'EUR', financialYearEnd: '12-31', tzName: 'Europe/Paris' },
  NL: { currency: 'EUR', financialYearEnd: '12-31', tzName: 'Europe/Amsterdam' },
  JP: { currency: 'JPY', financialYearEnd: '12-31', tzName: 'Asia/Tokyo' },
};

const DEFAULT_COUNTRY = 'AU';

/** The country whose currency this is, when exactly one market here uses it. */
export function countryForCurrency(currency: string): string | undefined {
  const matches = Object.entries(MARKETS).filter(([, market]) => market.currency === currency);
  return matches.length === 1 ? matches[0]![0] : undefined;
}

export interface NewPortfolioInput {
  name: string;
  currencyCode?: string;
  countryCode?: string;
  /** Unix milliseconds; becomes the inception date. */
  now: number;
}

/** Every PortfolioFields value, derived from name, market and date; callers override what they know. */
export function portfolioFields(input: NewPortfolioInput, overrides: Partial<PortfolioFields> = {}): PortfolioFields {
  const countryCode = input.countryCode
    ?? (input.currencyCode === undefined ? DEFAULT_COUNTRY : countryForCurrency(input.currencyCode) ?? DEFAULT_COUNTRY);
  const market = MARKETS[countryCode];
  return {
    name: input.name,
    currencyCode: input.currencyCode ?? market?.currency ?? 'USD',
    countryCode,
    financialYearEnd: market?.financialYearEnd ?? '12-31',
    inceptionDate: new Date(input.now).toISOString().slice(0, 10),
    tzName: market?.tzName ?? 'UTC',
    defaultSaleAllocationMethod: 'fifo',
    // Only Australian individuals get the 50% capital gains discount by default.
    cgDiscount: countryCode === 'AU' ? '50%' : null,
    rwtrRate: null,
    trader: null,
    disableAutomaticTransactions: false,
    taxEntityType: null,
    interestMethod: 'simple',
    applyCashAccountAdjustments: false,
    buyTradeSettlementDelay: null,
    sellTradeSettlementDelay: null,
    accountForDelayedCashTransactions: false,
    tradeSyncCashAccountId: null,
    payoutSyncCashAccountId: null,
    brokerEmailApiEnabled: false,
    brokerEmailKey: null,
    externalIdentifier: null,
    ...overrides,
  };
}
