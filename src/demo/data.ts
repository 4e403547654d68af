// The demo account. Its password is public on purpose: demo data is never
// seeded when FOLIO_ENV is production.
import type { PortfolioFields } from '../domain/records.ts';
import { OOB_REDIRECT_URI } from '../platform/redirect-uris.ts';
import { portfolioFields } from './portfolio-fields.ts';

export const DEMO_USER = { email: 'demo@folio.test', password: 'folio-demo-password', name: 'Demo Investor' } as const;

export const DEMO_APPLICATIONS = [
  {
    name: 'Demo Portfolio Dashboard',
    redirectUris: ['http://localhost:8080/callback', OOB_REDIRECT_URI],
    confidential: true,
    pkceRequired: false,
  },
  {
    name: 'Demo Mobile App',
    redirectUris: ['http://127.0.0.1/callback'],
    confidential: false,
    pkceRequired: true,
  },
];

const JAN_2009 = Date.UTC(2009, 0, 1);

export const DEMO_PORTFOLIOS: PortfolioFields[] = [
  portfolioFields({ name: 'Retirement', countryCode: 'AU', now: JAN_2009 }, {
    inceptionDate: '2009-01-01',
    taxEntityType: 'smsf',
    // Self-managed super funds get a one-third discount on capital gains held over a year.
    cgDiscount: '33.33%',
    buyTradeSettlementDelay: 2,
    sellTradeSettlementDelay: 2,
    accountForDelayedCashTransactions: true,
    brokerEmailApiEnabled: true,
    brokerEmailKey: 'demo-retirement-7f3a9c',
    externalIdentifier: 'DEMO-AU-SMSF-001',
  }),
  portfolioFields({ name: 'Growth NZ', countryCode: 'NZ', now: Date.UTC(2015, 3, 1) }, {
    taxEntityType: 'individual',
    rwtrRate: 33.0,
    trader: false,
    applyCashAccountAdjustments: true,
    externalIdentifier: 'DEMO-NZ-GROWTH',
  }),
  portfolioFields({ name: 'US Brokerage', countryCode: 'US', now: Date.UTC(2019, 6, 15) }, {
    taxEntityType: 'individual',
    trader: true,
    disableAutomaticTransactions: true,
    buyTradeSettlementDelay: 1,
    sellTradeSettlementDelay: 1,
  }),
];
