// A throwaway PostgreSQL database per benchmark run, when a server answers.
import pg from 'pg';

/** FOLIO_TEST_POSTGRES_URL (empty counts as unset, as in the tests), or the local server with trust auth, if it answers within 2 s. */
export async function postgresAdminUrl(): Promise<string | undefined> {
  const url = process.env.FOLIO_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function withAdmin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database `name`, replacing any left by an earlier run. */
export async function createDatabase(adminUrl: string, name: string): Promise<{ name: string; url: string }> {
  await withAdmin(adminUrl, async (client) => {
    await client.query(`drop database if exists ${name}`);
    await client.query(`create database ${name}`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
}
