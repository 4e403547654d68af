import type { OpenDatabase } from '../database.ts';
import type { Portfolio, PortfolioFields } from '../../domain/records.ts';
import type { PortfolioRow, PortfoliosTable } from '../schema.ts';
import type { PortfolioStore } from '../stores.ts';
import { changing } from './changing.ts';
import { changedRows, columnsOf, everyColumn, fieldsOf, flagFromColumn, flagToColumn } from './columns.ts';

type FieldColumns = Omit<PortfoliosTable, 'id' | 'owner_id' | 'created_at' | 'updated_at'>;

const FIELD_COLUMNS = everyColumn<FieldColumns>()([
  'name', 'currency_code', 'country_code', 'financial_year_end', 'inception_date', 'tz_name',
  'default_sale_allocation_method', 'cg_discount', 'rwtr_rate', 'trader', 'disable_automatic_transactions',
  'tax_entity_type', 'interest_method', 'apply_cash_account_adjustments', 'buy_trade_settlement_delay',
  'sell_trade_settlement_delay', 'account_for_delayed_cash_transactions', 'trade_sync_cash_account_id',
  'payout_sync_cash_account_id', 'broker_email_api_enabled', 'broker_email_key', 'external_identifier',
]);
const PORTFOLIO_COLUMNS = everyColumn<PortfolioRow>()([...FIELD_COLUMNS, 'id', 'owner_id', 'created_at', 'updated_at']);

function fieldsToColumns(fields: PortfolioFields): FieldColumns {
  return {
    ...columnsOf(fields, FIELD_COLUMNS),
    trader: fields.trader === null ? null : flagToColumn(fields.trader),
    disable_automatic_transactions: flagToColumn(fields.disableAutomaticTransactions),
    apply_cash_account_adjustments: flagToColumn(fields.applyCashAccountAdjustments),
    account_for_delayed_cash_transactions: flagToColumn(fields.accountForDelayedCashTransactions),
    broker_email_api_enabled: flagToColumn(fields.brokerEmailApiEnabled),
  };
}

function toPortfolio(row: PortfolioRow): Portfolio {
  return {
    ...fieldsOf(row),
    trader: row.trader === null ? null : flagFromColumn(row.trader),
    disableAutomaticTransactions: flagFromColumn(row.disable_automatic_transactions),
    applyCashAccountAdjustments: flagFromColumn(row.apply_cash_account_adjustments),
    accountForDelayedCashTransactions: flagFromColumn(row.account_for_delayed_cash_transactions),
    brokerEmailApiEnabled: flagFromColumn(row.broker_email_api_enabled),
  };
}

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
