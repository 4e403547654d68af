import type { OpenDatabase } from '../database.ts';
import type { Portfolio, PortfolioFields } from '../records.ts';
import type { PortfolioRow, PortfoliosTable } from '../schema.ts';
import type { PortfolioStore } from '../stores.ts';
import { changing } from './changing.ts';
import {
  changedRows, everyColumn, flagFromColumn, flagToColumn, optionalFlagFromColumn, optionalFlagToColumn,
} from './columns.ts';

type FieldColumns = Omit<PortfoliosTable, 'id' | 'owner_id' | 'created_at' | 'updated_at'>;

function fieldsToColumns(fields: PortfolioFields): FieldColumns {
  return {
    name: fields.name,
    currency_code: fields.currencyCode,
    country_code: fields.countryCode,
    financial_year_end: fields.financialYearEnd,
    inception_date: fields.inceptionDate,
    tz_name: fields.tzName,
    default_sale_allocation_method: fields.defaultSaleAllocationMethod,
    cg_discount: fields.cgDiscount,
    rwtr_rate: fields.rwtrRate,
    trader: optionalFlagToColumn(fields.trader),
    disable_automatic_transactions: flagToColumn(fields.disableAutomaticTransactions),
    tax_entity_type: fields.taxEntityType,
    interest_method: fields.interestMethod,
    apply_cash_account_adjustments: flagToColumn(fields.applyCashAccountAdjustments),
    buy_trade_settlement_delay: fields.buyTradeSettlementDelay,
    sell_trade_settlement_delay: fields.sellTradeSettlementDelay,
    account_for_delayed_cash_transactions: flagToColumn(fields.accountForDelayedCashTransactions),
    trade_sync_cash_account_id: fields.tradeSyncCashAccountId,
    payout_sync_cash_account_id: fields.payoutSyncCashAccountId,
    broker_email_api_enabled: flagToColumn(fields.brokerEmailApiEnabled),
    broker_email_key: fields.brokerEmailKey,
    external_identifier: fields.externalIdentifier,
  };
}

function toPortfolio(row: PortfolioRow): Portfolio {
  return {
    id: row.id,
    ownerId: row.owner_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    name: row.name,
    currencyCode: row.currency_code,
    countryCode: row.country_code,
    financialYearEnd: row.financial_year_end,
    inceptionDate: row.inception_date,
    tzName: row.tz_name,
    defaultSaleAllocationMethod: row.default_sale_allocation_method,
    cgDiscount: row.cg_discount,
    rwtrRate: row.rwtr_rate,
    trader: optionalFlagFromColumn(row.trader),
    disableAutomaticTransactions: flagFromColumn(row.disable_automatic_transactions),
    taxEntityType: row.tax_entity_type,
    interestMethod: row.interest_method,
    applyCashAccountAdjustments: flagFromColumn(row.apply_cash_account_adjustments),
    buyTradeSettlementDelay: row.buy_trade_settlement_delay,
    sellTradeSettlementDelay: row.sell_trade_settlement_delay,
    accountForDelayedCashTransactions: flagFromColumn(row.account_for_delayed_cash_transactions),
    tradeSyncCashAccountId: row.trade_sync_cash_account_id,
    payoutSyncCashAccountId: row.payout_sync_cash_account_id,
    brokerEmailApiEnabled: flagFromColumn(row.broker_email_api_enabled),
    brokerEmailKey: row.broker_email_key,
    externalIdentifier: row.external_identifier,
  };
}

const PORTFOLIO_COLUMNS = everyColumn<PortfolioRow>()([
  'id', 'owner_id', 'name', 'currency_code', 'country_code', 'financial_year_end', 'inception_date', 'tz_name',
  'default_sale_allocation_method', 'cg_discount', 'rwtr_rate', 'trader', 'disable_automatic_transactions',
  'tax_entity_type', 'interest_method', 'apply_cash_account_adjustments', 'buy_trade_settlement_delay',
  'sell_trade_settlement_delay', 'account_for_delayed_cash_transactions', 'trade_sync_cash_account_id',
  'payout_sync_cash_account_id', 'broker_email_api_enabled', 'broker_email_key', 'external_identifier',
  'created_at', 'updated_at',
]);

export class KyselyPortfolioStore implements PortfolioStore {
  constructor(private readonly database: OpenDatabase) {}

  createPortfolio(ownerId: number, fields: PortfolioFields, now: number): Promise<Portfolio> {
    return changing(this.database, ['portfolios'], async (trx) => toPortfolio(await trx.insertInto('portfolios')
      .values({ ...fieldsToColumns(fields), owner_id: ownerId, created_at: now, updated_at: now })
      .returning(PORTFOLIO_COLUMNS)
      .executeTakeFirstOrThrow()));
  }

  async listPortfoliosOwnedBy(ownerId: number): Promise<Portfolio[]> {
    const rows = await this.database.db.selectFrom('portfolios').select(PORTFOLIO_COLUMNS).where('owner_id', '=', ownerId).orderBy('id').execute();
    return rows.map(toPortfolio);
  }

  async findPortfolioOwnedBy(id: number, ownerId: number): Promise<Portfolio | undefined> {
    const row = await this.database.db.selectFrom('portfolios').select(PORTFOLIO_COLUMNS)
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return row && toPortfolio(row);
  }

  updatePortfolio(id: number, ownerId: number, fields: PortfolioFields, now: number): Promise<Portfolio | undefined> {
    return changing(this.database, ['portfolios'], async (trx) => {
      const row = await trx.updateTable('portfolios')
        .set({ ...fieldsToColumns(fields), updated_at: now })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .returning(PORTFOLIO_COLUMNS)
        .executeTakeFirst();
      return row && toPortfolio(row);
    });
  }

  deletePortfolio(id: number, ownerId: number): Promise<boolean> {
    return changing(this.database, ['portfolios'], async (trx) => changedRows(await trx.deleteFrom('portfolios')
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst()) > 0);
  }
}
