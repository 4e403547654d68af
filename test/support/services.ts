// The servers some suites need beside Folio, named by the environment (.ci/run
// sets each when it answers on its usual port). Unset or empty means absent, and
// the suites that need it skip: a shell's `FOLIO_TEST_POSTGRES_URL= node --test …`
// means "without PostgreSQL", not "connect to an empty address". In CI (CI=true)
// absent is a failure instead: a run that quietly skipped PostgreSQL or Redis
// would pass without proving what it is there to prove.

function serverUrl(variable: string, server: string): string | undefined {
  const url = process.env[variable] || undefined;
  if (url === undefined && process.env.CI === 'true') {
    throw new Error(`${variable} is not set and CI=true: ${server} did not answer where .ci/run looks, so its suites cannot run`);
  }
  return url;
}

/** A PostgreSQL server's URL whose user may create and drop databases, or undefined. */
export const postgresServerUrl = serverUrl('FOLIO_TEST_POSTGRES_URL', 'PostgreSQL (127.0.0.1:5432)');

/** Why a suite that needs PostgreSQL skips, or false when it has one: a test's `skip`. */
export const withoutPostgres = postgresServerUrl === undefined ? 'FOLIO_TEST_POSTGRES_URL is not set' : false;

/** A Redis server's URL, or undefined. */
export const redisServerUrl = serverUrl('FOLIO_TEST_REDIS_URL', 'Redis (127.0.0.1:6379)');
