import type { InsertQueryBuilder, InsertResult, Kysely, Updateable } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import type {
  Application, ApplicationChanges, ClientRegistration, NewApplication, NewAuditEvent, NewSelfRegisteredClient, OwnedApplication, SecretReveal,
} from '../../domain/records.ts';
import type { ApplicationRow, ApplicationsTable, Database } from '../schema.ts';
import type { ApplicationStore } from '../stores.ts';
import { recordIfChanged, writeAuditEvent } from './audit.ts';
import { changing } from './changing.ts';
import { columnsOf, everyColumn, fieldsOf, flagFromColumn, flagToColumn, scopeFromColumn, scopeToColumn } from './columns.ts';
import { holdSecretReveal } from './secret-reveals.ts';
import { issuedAlone } from './token-rows.ts';

function toApplication(row: ApplicationRow): Application {
  return {
    ...fieldsOf(row),
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    confidential: flagFromColumn(row.confidential),
    pkceRequired: flagFromColumn(row.pkce_required),
    scopes: scopeFromColumn(row.scopes),
  };
}

function changesToColumns(changes: ApplicationChanges): Updateable<ApplicationsTable> {
  const columns: Updateable<ApplicationsTable> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.redirectUris !== undefined) columns.redirect_uris = JSON.stringify(changes.redirectUris);
  if (changes.confidential !== undefined) columns.confidential = flagToColumn(changes.confidential);
  if (changes.pkceRequired !== undefined) columns.pkce_required = flagToColumn(changes.pkceRequired);
  return columns;
}

const APPLICATION_COLUMNS = everyColumn<ApplicationRow>()([
  'id', 'owner_id', 'name', 'client_id', 'secret_hash', 'redirect_uris', 'confidential', 'pkce_required', 'scopes',
  'created_at', 'updated_at', 'registration',
]);

/** The columns a client's description (its registration, or its metadata document) sets. */
function describedColumns(input: NewSelfRegisteredClient, now: number) {
  return {
    name: input.name,
    redirect_uris: JSON.stringify(input.redirectUris),
    confidential: flagToColumn(input.confidential),
    pkce_required: flagToColumn(input.pkceRequired),
    scopes: scopeToColumn(input.scopes),
    updated_at: now,
  };
}

function newRow(input: NewSelfRegisteredClient, ownerId: number | null, registration: ClientRegistration, now: number) {
  return { ...describedColumns(input, now), ...columnsOf(input, ['client_id', 'secret_hash']), owner_id: ownerId, registration, created_at: now };
}

/** Inserts the application with the audit event of its making, in `trx`; undefined when `query` inserted nothing. */
async function inserted<Made extends Application>(
  trx: Kysely<Database>, query: InsertQueryBuilder<Database, 'applications', InsertResult>, event: (application: Made) => NewAuditEvent,
): Promise<Made | undefined> {
  const row = await query.returning(APPLICATION_COLUMNS).executeTakeFirst();
  if (row === undefined) return undefined;
  const application = toApplication(row) as Made;
  await writeAuditEvent(trx, event(application));
  return application;
}

export class KyselyApplicationStore implements ApplicationStore {
  constructor(private readonly database: OpenDatabase) {}

  createApplication(
    input: NewApplication, now: number, event: (application: OwnedApplication) => NewAuditEvent, reveal?: (application: OwnedApplication) => SecretReveal,
  ): Promise<OwnedApplication> {
    return this.database.db.transaction().execute(async (trx) => {
      const insert = trx.insertInto('applications').values(newRow(input, input.ownerId, 'person', now));
      const application = (await inserted(trx, insert, event))!;
      if (reveal !== undefined) await holdSecretReveal(trx, reveal(application), now);
      return application;
    });
  }

  registerClient(input: NewSelfRegisteredClient, now: number, event: (application: Application) => NewAuditEvent): Promise<Application> {
    return this.database.db.transaction().execute(async (trx) =>
      (await inserted(trx, trx.insertInto('applications').values(newRow(input, null, 'dynamic', now)), event))!);
  }

  upsertMetadataDocumentClient(input: NewSelfRegisteredClient, now: number, event: (application: Application) => NewAuditEvent): Promise<Application> {
    return changing(this.database, ['applications'], async (trx) => {
      // Two instances may meet a new client at once: one inserts, the other updates.
      const insert = trx.insertInto('applications').values(newRow(input, null, 'metadata_document', now))
        .onConflict((conflict) => conflict.column('client_id').doNothing());
      const application = await inserted(trx, insert, event);
      if (application !== undefined) return application;
      // Only a metadata document's row: a client_id of any other kind is never an https URL.
      const updated = await trx.updateTable('applications').set(describedColumns(input, now))
        .where('client_id', '=', input.clientId)
        .where('registration', '=', 'metadata_document')
        .returning(APPLICATION_COLUMNS).executeTakeFirstOrThrow();
      return toApplication(updated);
    });
  }

  async findApplicationByClientId(clientId: string): Promise<Application | undefined> {
    const row = await this.database.db.selectFrom('applications').select(APPLICATION_COLUMNS).where('client_id', '=', clientId).executeTakeFirst();
    return row && toApplication(row);
  }

  async findApplicationById(id: number): Promise<Application | undefined> {
    const row = await this.database.db.selectFrom('applications').select(APPLICATION_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toApplication(row);
  }

  async listApplicationsOwnedBy(ownerId: number): Promise<Application[]> {
    const rows = await this.database.db.selectFrom('applications').select(APPLICATION_COLUMNS)
      .where('owner_id', '=', ownerId)
      .orderBy('id')
      .execute();
    return rows.map(toApplication);
  }

  updateApplication(
    id: number, ownerId: number, changes: ApplicationChanges, now: number, event: (updated: Application) => NewAuditEvent,
  ): Promise<Application | undefined> {
    return changing(this.database, ['applications'], async (trx) => {
      const row = await trx.updateTable('applications')
        .set({ ...changesToColumns(changes), updated_at: now })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .returning(APPLICATION_COLUMNS)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const updated = toApplication(row);
      await writeAuditEvent(trx, event(updated));
      return updated;
    });
  }

  replaceApplicationSecret(id: number, secretHash: string, now: number, event: NewAuditEvent, reveal?: SecretReveal): Promise<boolean> {
    return changing(this.database, ['applications'], async (trx) => {
      const result = await trx.updateTable('applications')
        .set({ secret_hash: secretHash, updated_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      const replaced = await recordIfChanged(trx, result, event);
      if (replaced && reveal !== undefined) await holdSecretReveal(trx, reveal, now);
      return replaced;
    });
  }

  deleteApplication(id: number, ownerId: number, event: NewAuditEvent): Promise<boolean> {
    return changing(this.database, ['applications', 'accessTokens'], async (trx) => {
      const grantsOfIt = trx.selectFrom('grants').select('id')
        .where('application_id', 'in', (eb) => eb.selectFrom('applications').select('id').where('id', '=', id).where('owner_id', '=', ownerId));
      // PostgreSQL: the cascade would lock the grants in an order of its own, and a batch
      // of token writes holds several in id order (token-writes.ts): taken in that order
      // here first, neither can hold a row the other waits for.
      if (this.database.kind === 'postgres') await grantsOfIt.orderBy('id').forUpdate().execute();
      // Access tokens issued alone do not cascade from their grant (migration 0010); the rest go with their refresh tokens.
      await issuedAlone(trx.deleteFrom('access_tokens')).where('grant_id', 'in', grantsOfIt).execute();
      const result = await trx.deleteFrom('applications')
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      return recordIfChanged(trx, result, event);
    });
  }
}
