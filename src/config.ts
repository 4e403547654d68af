// Configuration is parsed once, here, from the environment (DESIGN §4). Nothing
// else in src/ reads the environment; main.ts asks processEnvironment() for it.
import { isIP } from 'node:net';
import { isLoopbackHost } from './platform/loopback.ts';

export type Environment = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  env: Environment;
  /** Whether FOLIO_ENV was set, rather than development taken by default. */
  envChosen: boolean;
  databaseUrl: string;
  /** Public base address without a trailing slash; issuer, links and redirects use it. */
  baseUrl: string;
  /**
   * FOLIO_BASE_URL is unset: the base address is http://localhost on the port served
   * (`serve --port` moves it too), so links and redirects reach this server.
   */
  baseUrlFollowsPort: boolean;
  host: string;
  port: number;
  redisUrl: string | null;
  logLevel: LogLevel;
  /** Bearer API requests allowed per application and user each minute. */
  rateLimitPerMinute: number;
  /** Whether the sign-up page accepts new accounts. */
  allowSignup: boolean;
  /**
   * Which proxies may set X-Forwarded-For: false (none), a hop count, or the
   * proxies' addresses/CIDRs. Sign-in limits per address and audit IPs depend on it.
   */
  trustProxy: false | number | string[];
  /** How often the server deletes dead tokens, codes and old sign-in failures, in milliseconds. */
  purgeIntervalMs: number;
  /** The server's PostgreSQL connections at most (SQLite has one). */
  databasePoolSize: number;
  /** The bearer token GET /metrics requires; null: /metrics is open to whoever reaches the port. */
  metricsToken: string | null;
  /** RFC 7591 registration at POST /oauth2/register: anyone, holders of the initial access token, or nobody. */
  registration: RegistrationMode;
  /** The initial access token mode `token` requires (RFC 7591 §3); null in the other modes. */
  registrationToken: string | null;
  /** Whether client ID metadata documents may be fetched from private (RFC 1918, unique-local, CGNAT) addresses. */
  clientDocumentsFromPrivateNetworks: boolean;
}

export type RegistrationMode = 'open' | 'token' | 'off';

/** A bad environment value; the message names the variable and the accepted form. */
export class ConfigError extends Error {
  constructor(variable: string, accepted: string, got: string) {
    super(`${variable} must be ${accepted}, got ${JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const ENVIRONMENTS: readonly Environment[] = ['development', 'production', 'test'];
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** An empty variable counts as unset, as it does for most shells' `VAR= cmd`. */
function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `one of ${allowed.join(', ')}`, value);
}

function integer(env: Env, name: string, min: number, max: number, fallback: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    const accepted = max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new ConfigError(name, accepted, value);
  }
  return parsed;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new ConfigError(name, 'true, false, 1 or 0', value);
}

/** Port 0 asks for any free port, unknown until listening: then the usual 3000 stands. */
const defaultBaseUrl = (port: number) => `http://localhost:${port === 0 ? 3000 : port}`;

function baseUrl(env: Env, environment: Environment, port: number): string {
  const name = 'FOLIO_BASE_URL';
  const value = read(env, name) ?? defaultBaseUrl(port);
  const accepted = 'an absolute http(s) URL without query or fragment, like https://folio.example.com';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, accepted, value);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== ''
    || value.includes('?') || value.includes('#') || url.username !== '' || url.password !== '') {
    throw new ConfigError(name, accepted, value);
  }
  // Tokens and passwords cross this address; plain http is only safe on this machine.
  if (environment === 'production' && url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(name, 'an https URL when FOLIO_ENV is production (loopback excepted)', value);
  }
  return url.href.replace(/\/+$/, '');
}

function redisUrl(env: Env): string | null {
  const name = 'FOLIO_REDIS_URL';
  const value = read(env, name);
  if (value === undefined) return null;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch { /* reported below */ }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new ConfigError(name, 'a redis:// or rediss:// URL', value);
  }
  return value;
}

function databaseUrl(env: Env): string {
  const name = 'FOLIO_DATABASE_URL';
  const value = read(env, name) ?? './data/folio.db';
  // Anything with a scheme must be one we speak; everything else is a SQLite file path.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new ConfigError(name, 'a SQLite file path, sqlite::memory: or a postgres:// URL', value);
  }
  return value;
}

function trustProxy(env: Env): false | number | string[] {
  const name = 'FOLIO_TRUST_PROXY';
  const value = read(env, name);
  if (value === undefined || value.toLowerCase() === 'false') return false;
  if (/^[0-9]{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0 || !entries.every(isAddressOrCidr)) {
    throw new ConfigError(name, 'false, a hop count, or comma-separated proxy addresses or CIDRs like 10.0.0.0/8', value);
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function metricsToken(env: Env): string | null {
  const name = 'FOLIO_METRICS_TOKEN';
  const value = read(env, name);
  if (value === undefined) return null;
  // A header value, and long enough that guessing it is hopeless.
  if (!/^[\x21-\x7e]{24,512}$/.test(value)) throw new ConfigError(name, '24 to 512 printable ASCII characters without spaces, like the output of openssl rand -hex 32', '(hidden)');
  return value;
}

/**
 * Open outside production. In production, guarded by the initial access token when
 * one is set, and off when none is, so a deployment that sets neither still starts.
 */
function registration(env: Env, environment: Environment): Pick<Config, 'registration' | 'registrationToken'> {
  const token = read(env, 'FOLIO_REGISTRATION_TOKEN');
  const fallback = environment !== 'production' ? 'open' : token === undefined ? 'off' : 'token';
  const mode = oneOf<RegistrationMode>(env, 'FOLIO_REGISTRATION', ['open', 'token', 'off'], fallback);
  if (mode !== 'token') return { registration: mode, registrationToken: null };
  if (token === undefined) {
    throw new ConfigError('FOLIO_REGISTRATION_TOKEN', 'set when FOLIO_REGISTRATION is token; or set FOLIO_REGISTRATION to open or off', '');
  }
  if (!/^[\x21-\x7e]{24,512}$/.test(token)) throw new ConfigError('FOLIO_REGISTRATION_TOKEN', '24 to 512 printable ASCII characters without spaces', '(hidden)');
  return { registration: mode, registrationToken: token };
}

function port(env: Env): number {
  const name = read(env, 'FOLIO_PORT') !== undefined ? 'FOLIO_PORT' : 'PORT';
  return integer(env, name, 0, 65535, 3000);
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}

/** The process's environment; read here and nowhere else, then parsed by loadConfig. */
export function processEnvironment(): Env {
  return process.env;
}

export function loadConfig(env: Env): Config {
  const environment = oneOf(env, 'FOLIO_ENV', ENVIRONMENTS, 'development');
  const servedPort = port(env);
  return deepFreeze({
    env: environment,
    envChosen: read(env, 'FOLIO_ENV') !== undefined,
    databaseUrl: databaseUrl(env),
    baseUrl: baseUrl(env, environment, servedPort),
    baseUrlFollowsPort: read(env, 'FOLIO_BASE_URL') === undefined,
    host: read(env, 'FOLIO_HOST') ?? '127.0.0.1',
    port: servedPort,
    redisUrl: redisUrl(env),
    logLevel: oneOf(env, 'FOLIO_LOG_LEVEL', LOG_LEVELS, 'info'),
    rateLimitPerMinute: integer(env, 'FOLIO_RATE_LIMIT_PER_MINUTE', 1, Number.MAX_SAFE_INTEGER, 360),
    allowSignup: boolean(env, 'FOLIO_ALLOW_SIGNUP', environment !== 'production'),
    trustProxy: trustProxy(env),
    purgeIntervalMs: integer(env, 'FOLIO_PURGE_INTERVAL_SECONDS', 1, 86_400, 300) * 1000,
    databasePoolSize: integer(env, 'FOLIO_DATABASE_POOL_SIZE', 1, 1000, 10),
    metricsToken: metricsToken(env),
    ...registration(env, environment),
    clientDocumentsFromPrivateNetworks: boolean(env, 'FOLIO_CLIENT_DOCUMENTS_PRIVATE_NETWORKS', false),
  });
}

/**
 * Development mode seeds an account whose password is in the source and opens
 * sign-up: served beyond this machine only when FOLIO_ENV says so on purpose.
 */
export function refuseAccidentalExposure(config: Config): void {
  if (config.envChosen || isLoopbackHost(config.host)) return;
  throw new ConfigError('FOLIO_HOST', 'a loopback address while FOLIO_ENV is unset, since development mode seeds a demo '
    + 'account with a published password and opens sign-up; set FOLIO_ENV=production, or FOLIO_ENV=development to serve '
    + 'it beyond this machine on purpose', config.host);
}

/** The configuration with another port to serve on (`serve --port`), the default base address following it. */
export function withPort(config: Config, servedPort: number): Config {
  return deepFreeze({ ...config, port: servedPort, baseUrl: config.baseUrlFollowsPort ? defaultBaseUrl(servedPort) : config.baseUrl });
}
