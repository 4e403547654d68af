import type { Kysely } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import { refusedWhenGone } from '../errors.ts';
import type { ClientRegistration, ConnectedApplication, Grant, NewAuditEvent } from '../../domain/records.ts';
import type { Database, GrantRow } from '../schema.ts';
import type { GrantStore } from '../stores.ts';
import { writeAuditEvent } from './audit.ts';
import { changing } from './changing.ts';
import { everyColumn, fieldsOf, scopeFromColumn, scopeToColumn } from './columns.ts';
import { forgetConsentWith } from './consents.ts';
import { issuedAlone } from './token-rows.ts';

// Each lost race means another caller just settled the grant, so a handful of rounds is plenty.
const MAX_SETTLE_ATTEMPTS = 5;

function toGrant(row: GrantRow): Grant {
  return { ...fieldsOf(row), scope: scopeFromColumn(row.scope) };
}

const GRANT_COLUMNS = everyColumn<GrantRow>()(['id', 'user_id', 'application_id', 'scope', 'created_at', 'last_used_at', 'revoked_at']);

export class KyselyGrantStore implements GrantStore {
  constructor(private readonly database: OpenDatabase) {}

  // No transaction: the partial unique index on live grants decides concurrent inserts,
  // and a scope widening only applies if nobody changed the scope since it was read.
  async findOrCreateActiveGrant(userId: number, applicationId: number, scope: string[], now: number): Promise<Grant> {
    for (let attempt = 0; attempt < MAX_SETTLE_ATTEMPTS; attempt++) {
      const active = await this.database.db.selectFrom('grants').select(GRANT_COLUMNS)
        .where('user_id', '=', userId).where('application_id', '=', applicationId).where('revoked_at', 'is', null)
        .executeTakeFirst();
      const settled = active ? await this.widenScope(active, scope) : await this.insertActive(userId, applicationId, scope, now);
      if (settled) return toGrant(settled);
    }
    throw new Error(`could not settle the active grant of user ${userId} for application ${applicationId}`);
  }

  private async widenScope(active: GrantRow, requested: string[]): Promise<GrantRow | undefined> {
    const current = scopeFromColumn(active.scope);
    const wanted = [...current, ...requested.filter((item) => !current.includes(item))];
    if (wanted.length === current.length) return active;
    return this.database.db.updateTable('grants')
      .set({ scope: scopeToColumn(wanted) })
      .where('id', '=', active.id)
      .where('scope', '=', active.scope)
      .where('revoked_at', 'is', null)
      .returning(GRANT_COLUMNS)
      .executeTakeFirst();
  }

  private insertActive(userId: number, applicationId: number, scope: string[], now: number): Promise<GrantRow | undefined> {
    return refusedWhenGone(() => this.database.db.insertInto('grants')
      .values({ user_id: userId, application_id: applicationId, scope: scopeToColumn(scope), created_at: now })
      .onConflict((conflict) => conflict.columns(['user_id', 'application_id']).where('revoked_at', 'is', null).doNothing())
      .returning(GRANT_COLUMNS)
      .executeTakeFirst());
  }

  async findGrant(id: number): Promise<Grant | undefined> {
    const row = await this.database.db.selectFrom('grants').select(GRANT_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toGrant(row);
  }

  async disconnectApplication(grantId: number, now: number, event: NewAuditEvent): Promise<void> {
    await changing(this.database, ['accessTokens'], async (trx) => {
      const grant = await trx.selectFrom('grants').select(['user_id', 'application_id']).where('id', '=', grantId).executeTakeFirst();
      if (grant === undefined) return;
      await revokeGrantWith(trx, grantId, now);
      await forgetConsentWith(trx, grant.user_id, grant.application_id);
      await writeAuditEvent(trx, event);
    });
  }

  async revokeAuthorization(grantId: number, codeHash: string | null, now: number, event: NewAuditEvent): Promise<void> {
    await changing(this.database, ['accessTokens'], async (trx) => {
      // The grant row first, which token writes hold shared (token-writes.ts): on
      // PostgreSQL a rotation under way in this authorization commits before the
      // statements below start, so the tokens it issued are revoked with the rest.
      await trx.updateTable('grants').set((eb) => ({ last_used_at: eb.ref('last_used_at') })).where('id', '=', grantId).execute();
      await revokeAuthorizationWith(trx, grantId, codeHash, now);
      await writeAuditEvent(trx, event);
    });
  }

  async listConnectedApplications(userId: number): Promise<ConnectedApplication[]> {
    const rows = await this.database.db.selectFrom('grants')
      .innerJoin('applications', 'applications.id', 'grants.application_id')
      .leftJoin('users as owners', 'owners.id', 'applications.owner_id')
      .select([
        'grants.id as grantId',
        'grants.application_id as applicationId',
        'applications.name as applicationName',
        'applications.client_id as clientId',
        'owners.name as ownerName',
        'applications.registration as registration',
        'grants.scope as scope',
        'grants.created_at as grantedAt',
        'grants.last_used_at as lastUsedAt',
      ])
      .where('grants.user_id', '=', userId)
      .where('grants.revoked_at', 'is', null)
      .orderBy('grants.created_at')
      .orderBy('grants.id')
      .execute();
    return rows.map((row) => ({ ...row, registration: row.registration as ClientRegistration, scope: scopeFromColumn(row.scope) }));
  }
}

async function revokeAuthorizationWith(trx: Kysely<Database>, grantId: number, codeHash: string | null, now: number): Promise<void> {
  // A token from before tokens recorded their code (migration 0005) may belong to
  // any authorization: revoking one, or one while the grant holds a live one, ends all of it.
  if (codeHash === null || await liveRefreshTokens(trx, grantId, now).where('origin_code_hash', 'is', null).executeTakeFirst()) {
    return revokeGrantWith(trx, grantId, now);
  }
  await revokeTokensWith(trx, grantId, now, codeHash);
  // A grant left with nothing live ends, as revoking its one authorization always
  // ended it: the Connections page lists the applications that hold access.
  if (!(await holdsAnythingLive(trx, grantId, now))) await revokeGrantWith(trx, grantId, now);
}

async function revokeGrantWith(trx: Kysely<Database>, grantId: number, now: number): Promise<void> {
  await trx.updateTable('grants').set({ revoked_at: now })
    .where('id', '=', grantId).where('revoked_at', 'is', null).execute();
  await revokeTokensWith(trx, grantId, now);
  // A consumed code can no longer be redeemed, so this closes codes still in flight.
  await trx.updateTable('authorization_codes').set({ consumed_at: now })
    .where('grant_id', '=', grantId).where('consumed_at', 'is', null).execute();
}

/** Revokes the grant's refresh tokens and the access tokens issued alone: of the authorization `originCodeHash`, or all. */
async function revokeTokensWith(trx: Kysely<Database>, grantId: number, now: number, originCodeHash?: string): Promise<void> {
  await trx.updateTable('refresh_tokens').set({ revoked_at: now }).where('grant_id', '=', grantId).where('revoked_at', 'is', null)
    .$if(originCodeHash !== undefined, (query) => query.where('origin_code_hash', '=', originCodeHash!)).execute();
  await issuedAlone(trx.updateTable('access_tokens').set({ revoked_at: now })).where('grant_id', '=', grantId).where('revoked_at', 'is', null)
    .$if(originCodeHash !== undefined, (query) => query.where('origin_code_hash', '=', originCodeHash!)).execute();
}

function liveRefreshTokens(trx: Kysely<Database>, grantId: number, now: number) {
  return trx.selectFrom('refresh_tokens').select('token_hash')
    .where('grant_id', '=', grantId).where('revoked_at', 'is', null).where('rotated_at', 'is', null).where('expires_at', '>', now)
    .limit(1);
}

/**
 * Any token or code of the grant that still works. Of the access tokens only those
 * issued alone need looking at: while one bound to a refresh token lives, so does
 * the newest refresh token of its authorization, issued no earlier and living longer.
 */
async function holdsAnythingLive(trx: Kysely<Database>, grantId: number, now: number): Promise<boolean> {
  const access = await issuedAlone(trx.selectFrom('access_tokens').select('token_hash'))
    .where('grant_id', '=', grantId).where('revoked_at', 'is', null).where('expires_at', '>', now)
    .limit(1).executeTakeFirst();
  if (access !== undefined) return true;
  if (await liveRefreshTokens(trx, grantId, now).executeTakeFirst() !== undefined) return true;
  const code = await trx.selectFrom('authorization_codes').select('code_hash')
    .where('grant_id', '=', grantId).where('consumed_at', 'is', null).where('expires_at', '>', now)
    .limit(1).executeTakeFirst();
  return code !== undefined;
}
