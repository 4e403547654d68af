import { sql, type Kysely } from 'kysely';
import type { OpenedStorage } from '../open.ts';
import type { Database, StorageKind } from '../schema.ts';
import { mappingErrors } from '../errors.ts';
import { migrateToLatest } from '../migrations/provider.ts';
import { KyselyApplicationStore } from './applications.ts';
import { KyselyAuditStore } from './audit.ts';
import { KyselyAuthorizationCodeStore } from './codes.ts';
import { KyselyConsentStore } from './consents.ts';
import { KyselyGrantStore } from './grants.ts';
import { KyselyLoginThrottleStore } from './login-failures.ts';
import { KyselyPortfolioStore } from './portfolios.ts';
import { KyselySecretRevealStore } from './secret-reveals.ts';
import { KyselySessionStore } from './sessions.ts';
import { issueInBatches } from './token-issue-postgres.ts';
import { issueInTransactions } from './token-writes.ts';
import { KyselyTokenStore } from './tokens.ts';
import { groupCommit } from './transactions.ts';
import { cachingBearerReads, cachingClientLookups } from './read-cache.ts';
import { databaseChanges } from '../database-changes.ts';
import { KyselyUserStore } from './users.ts';

/** Every store over one Kysely instance; the caller keeps `db` only in tests that inspect rows. */
export function createKyselyStorage(db: Kysely<Database>, kind: StorageKind): OpenedStorage {
  let closed = false;
  // SQLite has one writer and fsyncs on the event loop: its hot writes share commits.
  const writes = kind === 'sqlite' ? groupCommit(db) : undefined;
  const bearerReads = {
    tokens: mappingErrors(new KyselyTokenStore(db, kind, writes ? issueInTransactions(db, writes) : issueInBatches(db))),
    portfolios: mappingErrors(new KyselyPortfolioStore(db)),
  };
  // The bearer API's reads come from memory while the database is unchanged (read-cache.ts).
  const changes = databaseChanges(db);
  const { tokens, portfolios } = changes === undefined ? bearerReads : cachingBearerReads(bearerReads, () => changes.version());
  const applicationStore = mappingErrors(new KyselyApplicationStore(db, kind));
  const applications = changes === undefined ? applicationStore : cachingClientLookups(applicationStore, () => changes.applicationsVersion());
  return {
    kind,
    users: mappingErrors(new KyselyUserStore(db)),
    applications,
    grants: mappingErrors(new KyselyGrantStore(db)),
    codes: mappingErrors(new KyselyAuthorizationCodeStore(db, kind)),
    tokens,
    sessions: mappingErrors(new KyselySessionStore(db)),
    consents: mappingErrors(new KyselyConsentStore(db, kind)),
    audit: mappingErrors(new KyselyAuditStore(db)),
    portfolios,
    loginThrottle: mappingErrors(new KyselyLoginThrottleStore(db, kind)),
    secretReveals: mappingErrors(new KyselySecretRevealStore(db)),
    async isReachable() {
      if (closed) return false;
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    readsFromMemory: () => !closed && changes !== undefined && changes.trusted(),
    migrate: () => migrateToLatest(db, kind),
    settingWarnings: () => (kind === 'postgres' ? postgresSettingWarnings(db) : Promise.resolve([])),
    async close() {
      if (closed) return;
      closed = true;
      // Kysely only destroys a driver it has initialized, and the SQLite file is opened
      // eagerly; touching a connection first makes sure an unused handle is closed too.
      if (kind === 'sqlite') await db.connection().execute(async () => {});
      await db.destroy();
    },
  };
}

/**
 * PostgreSQL plans Folio's named statements once per connection, from the
 * statistics of that moment (statement-names.ts), and plans them again when
 * ANALYZE renews those statistics. Autovacuum runs ANALYZE as tables grow; without
 * it, a plan made while a table was small or never analyzed stays: a benchmark
 * server whose tables were never analyzed served a tenth of its refreshes
 * (docs/performance.md).
 */
async function postgresSettingWarnings(db: Kysely<Database>): Promise<string[]> {
  // Advice only: a start must not fail because the settings could not be read.
  const rows = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in ('autovacuum', 'track_counts')`.execute(db)
    .then((result) => result.rows, () => []);
  const off = rows.filter((row) => row.setting === 'off').map((row) => row.name);
  if (off.length === 0) return [];
  return [`PostgreSQL runs with ${off.join(' and ')} off, so no table is analyzed as it grows: query plans made while a table was small stay, and token requests may slow to a tenth; turn it on, or run ANALYZE regularly`];
}
