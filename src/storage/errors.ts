// The errors storage throws, and the one place that reads driver errors.

/** Thrown when a unique constraint (e.g. an email already taken) refuses a write. */
export class StorageConflictError extends Error {
  constructor(readonly what: string) {
    super(`${what} already exists`);
    this.name = 'StorageConflictError';
  }
}

/** The browser session a write was for ended (signed out) before it committed; nothing is written. */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended before the write committed');
    this.name = 'SessionEndedError';
  }
}

/**
 * The application a write names was deleted (by its owner, in another tab) after the request
 * was verified and before the write committed; nothing is written, and no redirect is safe.
 */
export class ApplicationGoneError extends Error {
  constructor() {
    super('the application was deleted before the write committed');
    this.name = 'ApplicationGoneError';
  }
}

/** Thrown when the database cannot be reached or fails; routes answer 503. */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super('storage unavailable', { cause });
    this.name = 'StorageUnavailableError';
  }
}

const UNIQUE_VIOLATIONS = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

const UNAVAILABLE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH']);
// PostgreSQL SQLSTATEs: 57P01-03 server shutting down or starting, 53300 too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|NOTADB|CORRUPT)/;
// node-postgres reports pool and connection trouble as plain Errors with these messages.
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect', 'Connection terminated', 'Cannot use a pool after calling end',
  'Client has encountered a connection error', 'Client was closed and is not queryable', 'Query read timeout',
  'The database connection is not open', 'driver has already been destroyed',
];

/**
 * Runs `write`, turning a foreign key's refusal into `gone()`: the error for the one
 * parent of the row that can have gone since the request was read. By default the
 * application, for rows whose parents can go only with one: users are never deleted,
 * and grants (and their consents and codes) go in the cascade from their application.
 */
export async function refusedWhenGone<T>(write: () => Promise<T>, gone: () => Error = () => new ApplicationGoneError()): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw gone();
    throw error;
  }
}

function isUnavailable(error: { code?: unknown; message?: unknown }): boolean {
  // AggregateError: node-postgres may report every address it tried (IPv4 and IPv6).
  if (error instanceof AggregateError && error.errors.some((inner) => isUnavailable(inner ?? {}))) return true;
  const code = typeof error.code === 'string' ? error.code : '';
  if (UNAVAILABLE_NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  if (code.startsWith('08') && code.length === 5) return true;
  if (UNAVAILABLE_SQLITE_CODES.test(code)) return true;
  const message = typeof error.message === 'string' ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment));
}

export function toStorageError(error: unknown): unknown {
  if (error instanceof StorageConflictError || error instanceof StorageUnavailableError) return error;
  if (typeof error !== 'object' || error === null) return error;
  if (UNIQUE_VIOLATIONS.has(String((error as { code?: unknown }).code))) return new StorageConflictError('record');
  return isUnavailable(error) ? new StorageUnavailableError(error) : error;
}

/** Wraps every method of a store so callers only ever see the storage errors above. */
export function mappingErrors<T extends object>(store: T): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await value.apply(target, args);
        } catch (error) {
          throw toStorageError(error);
        }
      };
    },
  });
}
