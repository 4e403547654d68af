// The servers some suites need beside Folio, named by the environment (.ci/run
// sets each when it answers on its usual port). Unset or empty means absent, and
// the suites that need it skip: a shell's `FOLIO_TEST_POSTGRES_URL= node --test …`
// means "without PostgreSQL", not "connect to an empty address".

/** A PostgreSQL server's URL whose user may create and drop databases, or undefined. */
export const postgresServerUrl = process.env.FOLIO_TEST_POSTGRES_URL || undefined;

/** Why a suite that needs PostgreSQL skips, or false when it has one: a test's `skip`. */
export const withoutPostgres = postgresServerUrl === undefined ? 'FOLIO_TEST_POSTGRES_URL is not set' : false;

/** A Redis server's URL, or undefined. */
export const redisServerUrl = process.env.FOLIO_TEST_REDIS_URL || undefined;
