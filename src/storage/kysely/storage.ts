// Every store over one open database, with the caches in front of the reads they keep.
import { sql } from 'kysely';
import { cachingApplications, cachingPortfolios, cachingTokens } from '../cache/caching-stores.ts';
import type { OpenDatabase } from '../database.ts';
import { mappingErrors } from '../errors.ts';
import type { OpenedStorage } from '../stores.ts';
import { KyselyApplicationStore } from './applications.ts';
import { KyselyAuditStore } from './audit.ts';
import { KyselyAuthorizationCodeStore } from './codes.ts';
import { KyselyConsentStore } from './consents.ts';
import { KyselyDeviceStore } from './devices.ts';
import { KyselyGrantStore } from './grants.ts';
import { KyselyLoginThrottleStore } from './login-failures.ts';
import { KyselyPortfolioStore } from './portfolios.ts';
import { KyselySecretRevealStore } from './secret-reveals.ts';
import { KyselySessionStore } from './sessions.ts';
import { KyselyTokenStore } from './tokens.ts';
import { KyselyUserStore } from './users.ts';

export function createStorage(database: OpenDatabase): OpenedStorage {
  const { db, changes } = database;
  let closed = false;
  return {
    kind: database.kind,
    users: mappingErrors(new KyselyUserStore(db)),
    applications: cachingApplications(mappingErrors(new KyselyApplicationStore(database)), changes),
    grants: mappingErrors(new KyselyGrantStore(database)),
    codes: mappingErrors(new KyselyAuthorizationCodeStore(database)),
    tokens: cachingTokens(mappingErrors(new KyselyTokenStore(database)), changes),
    sessions: mappingErrors(new KyselySessionStore(db, database.kind)),
    consents: mappingErrors(new KyselyConsentStore(database)),
    audit: mappingErrors(new KyselyAuditStore(db)),
    portfolios: cachingPortfolios(mappingErrors(new KyselyPortfolioStore(database)), changes),
    loginThrottle: mappingErrors(new KyselyLoginThrottleStore(database)),
    secretReveals: mappingErrors(new KyselySecretRevealStore(db)),
    devices: mappingErrors(new KyselyDeviceStore(database)),
    isReachable: async () => !closed && sql`select 1`.execute(db).then(() => true, () => false),
    readsFromMemory: () => !closed && changes.trusted(),
    migrate: () => database.migrate(),
    settingWarnings: () => database.settingWarnings(),
    async close() {
      if (closed) return;
      closed = true;
      await database.close();
    },
  };
}
