// Migrations ship in the code rather than as files found at run time, so a bundled
// or compiled build migrates exactly what it was built with. Names sort in order.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { initialMigration } from './0001-initial.ts';
import { secretRevealsMigration } from './0002-secret-reveals.ts';
import { purgeIndexesMigration } from './0003-purge-indexes.ts';
import { loginFailuresAgeIndexMigration } from './0004-login-failures-age-index.ts';
import { tokenOriginCodeMigration } from './0005-token-origin-code.ts';
import { activityIndexMigration } from './0009-activity-index.ts';
import { accessTokensByRefreshTokenMigration } from './0010-access-tokens-by-refresh-token.ts';
import { spentCredentialsUnindexedMigration } from './0011-spent-credentials-unindexed.ts';
import { roomForSpendingMigration } from './0012-room-for-spending.ts';
import { changesAnnouncedByStoresMigration } from './0013-changes-announced-by-stores.ts';
import { trustedDevicesAndNativeCodesMigration } from './0014-trusted-devices-and-native-codes.ts';
import { tokenResourceMigration } from './0015-token-resource.ts';
import { selfRegisteredClientsMigration } from './0016-self-registered-clients.ts';
import { retiredMigration } from './retired.ts';

function migrations(kind: StorageKind): Record<string, Migration> {
  return {
    '0001-initial': initialMigration(kind),
    '0002-secret-reveals': secretRevealsMigration(),
    '0003-purge-indexes': purgeIndexesMigration(),
    '0004-login-failures-age-index': loginFailuresAgeIndexMigration(),
    '0005-token-origin-code': tokenOriginCodeMigration(),
    '0006-change-notices': retiredMigration(),
    '0007-application-notices': retiredMigration(),
    '0008-quiet-purge-notices': retiredMigration(),
    '0009-activity-index': activityIndexMigration(),
    '0010-access-tokens-by-refresh-token': accessTokensByRefreshTokenMigration(kind),
    '0011-spent-credentials-unindexed': spentCredentialsUnindexedMigration(),
    '0012-room-for-spending': roomForSpendingMigration(kind),
    '0013-changes-announced-by-stores': changesAnnouncedByStoresMigration(kind),
    '0014-trusted-devices-and-native-codes': trustedDevicesAndNativeCodesMigration(),
    '0015-token-resource': tokenResourceMigration(),
    '0016-self-registered-clients': selfRegisteredClientsMigration(kind),
  };
}

/**
 * Code-unit order, as the Migrator sorts the provider's names. Its default,
 * localeCompare, loads ICU's collator on first use, which slows every start.
 */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function migrateToLatest(db: Kysely<any>, kind: StorageKind): Promise<void> {
  const { error } = await withoutForeignKeys(db, kind, () => migrator(db, kind).migrateToLatest());
  if (error) throw error;
}

/** Up to the migration `name` and no further: for tests of a later one on the data it meets. */
export async function migrateUpTo(db: Kysely<any>, kind: StorageKind, name: string): Promise<void> {
  const { error } = await withoutForeignKeys(db, kind, () => migrator(db, kind).migrateTo(name));
  if (error) throw error;
}

/**
 * SQLite: a migration that makes a table anew (ALTER TABLE, "other kinds of table
 * schema changes") must not have the DROP of the old table cascade to the rows
 * that refer to it, and foreign keys cannot be turned off inside the migration's
 * transaction: they are off while migrations run (on the one connection), and such
 * a migration checks them itself before it commits.
 */
async function withoutForeignKeys<T>(db: Kysely<any>, kind: StorageKind, work: () => Promise<T>): Promise<T> {
  if (kind !== 'sqlite') return work();
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    return await work();
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

function migrator(db: Kysely<any>, kind: StorageKind): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations(kind) }, nameComparator: byCodeUnits });
}
