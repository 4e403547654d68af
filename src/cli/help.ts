import type { Command } from './context.ts';

export function helpText(commands: Record<string, Command>): string {
  return [
    'Folio: OAuth 2.0 authorization server and portfolio data API',
    '',
    'Usage:',
    ...Object.values(commands).map((command) => `  ${command.usage}`),
    '  folio help',
    '',
    'Configuration comes from the environment: FOLIO_DATABASE_URL, FOLIO_BASE_URL, FOLIO_HOST,',
    'FOLIO_PORT (or PORT), FOLIO_REDIS_URL, FOLIO_ENV, FOLIO_LOG_LEVEL, FOLIO_RATE_LIMIT_PER_MINUTE,',
    'FOLIO_ALLOW_SIGNUP, FOLIO_TRUST_PROXY, FOLIO_PURGE_INTERVAL_SECONDS, FOLIO_DATABASE_POOL_SIZE.',
    'Verbs that create something print JSON with --json.',
  ].join('\n');
}
