// Initial schema. Times are bigint Unix milliseconds and booleans 0/1 integers in
// both dialects; list values are text (JSON for redirect URIs, space-separated scopes).
import { sql, type Kysely, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { cascadingTo, flag, required, withId } from './columns.ts';

async function createAccountTables(db: Kysely<any>, kind: StorageKind): Promise<void> {
  await withId(db.schema.createTable('users'), kind)
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', required)
    .addColumn('password_hash', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('updated_at', 'bigint', required)
    .execute();

  await withId(db.schema.createTable('applications'), kind)
    .addColumn('owner_id', 'integer', cascadingTo('users.id'))
    .addColumn('name', 'text', required)
    .addColumn('client_id', 'text', (col) => col.notNull().unique())
    .addColumn('secret_hash', 'text', required)
    .addColumn('redirect_uris', 'text', required)
    .addColumn('confidential', 'integer', flag(1))
    .addColumn('pkce_required', 'integer', flag(0))
    .addColumn('scopes', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('updated_at', 'bigint', required)
    .execute();
  await db.schema.createIndex('applications_owner').on('applications').column('owner_id').execute();

  await db.schema.createTable('sessions')
    .addColumn('id_hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', cascadingTo('users.id'))
    .addColumn('csrf_token', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('last_seen_at', 'bigint', required)
    .addColumn('expires_at', 'bigint', required)
    .execute();

  await db.schema.createTable('login_failures')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('failures', 'integer', required)
    .addColumn('locked_until', 'bigint')
    .addColumn('updated_at', 'bigint', required)
    .execute();
}

// Codes and tokens reference their grant only: grants cascade from both users and
// applications, so deleting either removes every descendant through one path and the
// hot token tables need no extra indexes for the cascade.
async function createAuthorizationTables(db: Kysely<any>, kind: StorageKind): Promise<void> {
  await withId(db.schema.createTable('grants'), kind)
    .addColumn('user_id', 'integer', cascadingTo('users.id'))
    .addColumn('application_id', 'integer', cascadingTo('applications.id'))
    .addColumn('scope', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  // At most one live grant per user and application; concurrent creators race on this index.
  await db.schema.createIndex('grants_one_active').unique().on('grants')
    .columns(['user_id', 'application_id']).where(sql.ref('revoked_at'), 'is', null).execute();
  await db.schema.createIndex('grants_application').on('grants').column('application_id').execute();

  await db.schema.createTable('authorization_codes')
    .addColumn('code_hash', 'text', (col) => col.primaryKey())
    .addColumn('grant_id', 'integer', cascadingTo('grants.id'))
    .addColumn('application_id', 'integer', required)
    .addColumn('user_id', 'integer', required)
    .addColumn('redirect_uri', 'text', required)
    .addColumn('scope', 'text', required)
    .addColumn('code_challenge', 'text')
    .addColumn('created_at', 'bigint', required)
    .addColumn('expires_at', 'bigint', required)
    .addColumn('consumed_at', 'bigint')
    .execute();
  await db.schema.createIndex('authorization_codes_grant').on('authorization_codes').column('grant_id').execute();
  await db.schema.createIndex('authorization_codes_expires').on('authorization_codes').column('expires_at').execute();

  for (const table of ['access_tokens', 'refresh_tokens'] as const) {
    let builder = db.schema.createTable(table)
      .addColumn('token_hash', 'text', (col) => col.primaryKey())
      .addColumn('grant_id', 'integer', cascadingTo('grants.id'))
      .addColumn('application_id', 'integer', required)
      .addColumn('user_id', 'integer', required)
      .addColumn('scope', 'text', required)
      .addColumn('created_at', 'bigint', required)
      .addColumn('expires_at', 'bigint', required);
    if (table === 'refresh_tokens') builder = builder.addColumn('rotated_at', 'bigint');
    await builder.addColumn('revoked_at', 'bigint').execute();
    await db.schema.createIndex(`${table}_grant`).on(table).column('grant_id').execute();
    await db.schema.createIndex(`${table}_expires`).on(table).column('expires_at').execute();
  }

  await db.schema.createTable('consents')
    .addColumn('user_id', 'integer', cascadingTo('users.id'))
    .addColumn('application_id', 'integer', cascadingTo('applications.id'))
    .addColumn('scope', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addPrimaryKeyConstraint('consents_pk', ['user_id', 'application_id'])
    .execute();
  await db.schema.createIndex('consents_application').on('consents').column('application_id').execute();
}

// Audit rows outlive the users and applications they mention, so no foreign keys.
async function createAuditTable(db: Kysely<any>, kind: StorageKind): Promise<void> {
  await withId(db.schema.createTable('audit_events'), kind)
    .addColumn('type', 'text', required)
    .addColumn('user_id', 'integer')
    .addColumn('application_id', 'integer')
    .addColumn('ip', 'text')
    .addColumn('detail', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .execute();
  await db.schema.createIndex('audit_events_user').on('audit_events').columns(['user_id', 'created_at']).execute();
}

async function createPortfolioTable(db: Kysely<any>, kind: StorageKind): Promise<void> {
  await withId(db.schema.createTable('portfolios'), kind)
    .addColumn('owner_id', 'integer', cascadingTo('users.id'))
    .addColumn('name', 'text', required)
    .addColumn('currency_code', 'text', required)
    .addColumn('country_code', 'text', required)
    .addColumn('financial_year_end', 'text', required)
    .addColumn('inception_date', 'text', required)
    .addColumn('tz_name', 'text', required)
    .addColumn('default_sale_allocation_method', 'text', required)
    .addColumn('cg_discount', 'text')
    .addColumn('rwtr_rate', 'double precision')
    .addColumn('trader', 'integer')
    .addColumn('disable_automatic_transactions', 'integer', flag(0))
    .addColumn('tax_entity_type', 'text')
    .addColumn('interest_method', 'text', required)
    .addColumn('apply_cash_account_adjustments', 'integer', flag(0))
    .addColumn('buy_trade_settlement_delay', 'integer')
    .addColumn('sell_trade_settlement_delay', 'integer')
    .addColumn('account_for_delayed_cash_transactions', 'integer', flag(0))
    .addColumn('trade_sync_cash_account_id', 'integer')
    .addColumn('payout_sync_cash_account_id', 'integer')
    .addColumn('broker_email_api_enabled', 'integer', flag(0))
    .addColumn('broker_email_key', 'text')
    .addColumn('external_identifier', 'text')
    .addColumn('created_at', 'bigint', required)
    .addColumn('updated_at', 'bigint', required)
    .execute();
  await db.schema.createIndex('portfolios_owner').on('portfolios').column('owner_id').execute();
}

export function initialMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      await createAccountTables(db, kind);
      await createAuthorizationTables(db, kind);
      await createAuditTable(db, kind);
      await createPortfolioTable(db, kind);
    },
  };
}
