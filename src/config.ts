// Placeholder shape; the parser lands with the configuration work.
export interface Config {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  /** Public base address without a trailing slash; issuer, links and redirects use it. */
  baseUrl: string;
  host: string;
  port: number;
  redisUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}
