// A database of its own on the shared PostgreSQL server, so parallel runs never
// see each other's rows; dropped (forcibly) at the end, even after a failure.
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

export class TemporaryPostgresDatabase {
  readonly name: string;
  private created = false;

  constructor(private readonly serverUrl: string, prefix = 'folio_test') {
    this.name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  }

  get url(): string {
    const url = new URL(this.serverUrl);
    url.pathname = `/${this.name}`;
    return url.toString();
  }

  async create(): Promise<string> {
    await this.onServer(sql`create database ${sql.id(this.name)}`);
    this.created = true;
    return this.url;
  }

  async drop(): Promise<void> {
    if (!this.created) return;
    await this.onServer(sql`drop database if exists ${sql.id(this.name)} with (force)`);
    this.created = false;
  }

  private async onServer(statement: ReturnType<typeof sql>): Promise<void> {
    const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: this.serverUrl, max: 1 }) }) });
    try {
      await statement.execute(admin);
    } finally {
      await admin.destroy();
    }
  }
}
