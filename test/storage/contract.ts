// The one storage contract (DESIGN §3): every behaviour is checked against a fresh
// in-memory SQLite, and against PostgreSQL when FOLIO_TEST_POSTGRES_URL is set.
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createPostgresKysely, createSqliteKysely } from '../../src/storage/dialects.ts';
import { createKyselyStorage } from '../../src/storage/kysely/storage.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import type { Database } from '../../src/storage/schema.ts';

export interface StorageUnderTest {
  storage: OpenedStorage;
  /** Direct access to the tables, for checking what is actually stored. */
  db: Kysely<Database>;
}

const TABLES: (keyof Database)[] = [
  'users', 'applications', 'grants', 'authorization_codes', 'access_tokens', 'refresh_tokens',
  'sessions', 'consents', 'audit_events', 'portfolios', 'login_failures',
];

export const postgresServerUrl = process.env.FOLIO_TEST_POSTGRES_URL;

export function describeStorageContract(title: string, define: (target: () => StorageUnderTest) => void): void {
  describe(`${title} (sqlite)`, () => {
    let current: StorageUnderTest | undefined;
    beforeEach(async () => {
      const db = createSqliteKysely(':memory:');
      current = { db, storage: createKyselyStorage(db, 'sqlite') };
      await current.storage.migrate();
    });
    afterEach(async () => {
      await current?.storage.close();
      current = undefined;
    });
    define(() => current ?? assertUnreachable());
  });

  if (postgresServerUrl) {
    describe(`${title} (postgres)`, () => {
      const database = new TemporaryPostgresDatabase(postgresServerUrl);
      let current: StorageUnderTest | undefined;
      before(async () => {
        const db = createPostgresKysely(await database.create());
        current = { db, storage: createKyselyStorage(db, 'postgres') };
        await current.storage.migrate();
      });
      beforeEach(async () => {
        const tables = sql.join(TABLES.map((table) => sql.table(table)));
        await sql`truncate table ${tables} restart identity cascade`.execute(current!.db);
      });
      after(async () => {
        try {
          await current?.storage.close();
        } finally {
          await database.drop();
        }
      });
      define(() => current ?? assertUnreachable());
    });
  }
}

function assertUnreachable(): never {
  throw new Error('storage used outside a test');
}

/** A database of its own on the shared server, so parallel runs never see each other's rows. */
export class TemporaryPostgresDatabase {
  readonly name = `folio_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  private created = false;

  constructor(private readonly serverUrl: string) {}

  async create(): Promise<string> {
    await this.onServer(sql`create database ${sql.id(this.name)}`);
    this.created = true;
    const url = new URL(this.serverUrl);
    url.pathname = `/${this.name}`;
    return url.toString();
  }

  async drop(): Promise<void> {
    if (!this.created) return;
    await this.onServer(sql`drop database if exists ${sql.id(this.name)} with (force)`);
    this.created = false;
  }

  private async onServer(statement: ReturnType<typeof sql>): Promise<void> {
    const admin = createPostgresKysely(this.serverUrl);
    try {
      await statement.execute(admin);
    } finally {
      await admin.destroy();
    }
  }
}
