// The builds a comparison names on its command line, NAME=DIST_DIR[:ENV=VALUE,...],
// and the command each is started with. Shared by bench/ab.ts (time) and
// bench/instructions.ts (instructions).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serveScript } from './processes.ts';

export interface Variant {
  name: string;
  /** A build's dist directory, or @bare / @bare-token / @floor / @oidc for bench/run.ts's baselines. */
  dist: string;
  env: Record<string, string>;
  /** NODE_FLAGS=... among the settings: replaces the production command's node flags. */
  nodeFlags: string[] | undefined;
  /**
   * DROP_INDEXES=a+b among the settings: indexes dropped from the variant's own copy of
   * the database before it starts (bench/ab.ts --own-databases only), to measure what
   * an index costs without a one-off build.
   */
  dropIndexes: string[] | undefined;
  /**
   * BESIDE=token|introspection|reading|nothing among the settings: what bench/ab.ts
   * --issuing sends this variant beside its GET (token issues unless it says
   * otherwise), so that one run compares a GET beside writes, beside requests that
   * write nothing, beside more of the same GET on sockets of their own, and alone.
   */
  beside: 'token' | 'introspection' | 'reading' | 'nothing';
}

const BESIDE = ['token', 'introspection', 'reading', 'nothing'] as const;

export function parseVariant(word: string): Variant {
  const [name, rest] = word.split(/=(.*)/s) as [string, string | undefined];
  if (!name || !rest) throw new Error(`a variant is NAME=DIST_DIR[:ENV=VALUE,...], got ${word}`);
  const [dist, envList] = rest.split(/:(.*)/s) as [string, string | undefined];
  const { NODE_FLAGS: nodeFlags, DROP_INDEXES: dropIndexes, BESIDE: beside = 'token', ...env } = Object.fromEntries((envList ?? '').split(',').filter(Boolean).map((pair) => pair.split(/=(.*)/s))) as Record<string, string>;
  if (!(BESIDE as readonly string[]).includes(beside)) throw new Error(`${name}: BESIDE is one of ${BESIDE.join(', ')}, got ${beside}`);
  return {
    name, dist, env, nodeFlags: nodeFlags?.split(' ').filter(Boolean), dropIndexes: dropIndexes?.split('+').filter(Boolean),
    beside: beside as Variant['beside'],
  };
}

/** For the tools that serve every variant one database: DROP_INDEXES would reach them all. */
export function refuseDroppedIndexes(variants: readonly Variant[], tool: string): void {
  const dropping = variants.find((variant) => variant.dropIndexes !== undefined);
  if (dropping) throw new Error(`${dropping.name}: DROP_INDEXES needs a database of its own, which ${tool} does not give; use bench/ab.ts --own-databases`);
}

export const isBaseline = (variant: Variant): boolean => variant.dist.startsWith('@');

/** The baselines that answer client_credentials token requests and nothing else a tool sends. */
export const TOKEN_BASELINES: readonly string[] = ['@oidc', '@bare-token'];

/** The one client_credentials client @oidc (node-oidc-provider) knows. */
export const OIDC_CLIENT = { id: 'bench-client', secret: 'bench-secret' };

/** Where a variant answers once it has started. */
export const readyPath = (variant: Variant): string => (variant.dist === '@oidc' ? '/.well-known/openid-configuration' : '/readyz');

/** Where a variant's token endpoint is. */
export const tokenPath = (variant: Variant): string => (variant.dist === '@oidc' ? '/token' : '/oauth2/token');

/**
 * Node's arguments for a variant. @bare serves `bodyFile` (a Folio build's answer,
 * so it must come after one); @bare-token answers every token request with a
 * constant token; @floor reads the SQLite file at `databaseUrl`; @oidc issues
 * client_credentials tokens to OIDC_CLIENT, from memory.
 */
export function variantArgv(variant: Variant, port: number, databaseUrl: string, bodyFile: string): string[] {
  switch (variant.dist) {
    case '@bare':
      return ['bench/baselines/bare-fastify.mjs', String(port), bodyFile];
    case '@bare-token':
      return ['bench/baselines/bare-fastify-token.mjs', String(port)];
    case '@floor':
      if (databaseUrl.startsWith('postgres')) throw new Error('@floor reads a SQLite file: not with --postgres');
      return ['bench/baselines/fastify-sqlite.mjs', String(port), databaseUrl];
    case '@oidc':
      return ['bench/baselines/oidc-provider.mjs', String(port), OIDC_CLIENT.id, OIDC_CLIENT.secret];
    default:
      return [...(variant.nodeFlags ?? serveScript().nodeFlags), join(resolve(variant.dist), 'main.js'), 'serve'];
  }
}

/** The variant's environment on top of folioServerEnv: for a build, the serve script's and then its own. */
export function variantEnv(variant: Variant): Record<string, string> {
  return { ...(isBaseline(variant) ? {} : serveScript().env), ...variant.env };
}

/** Saves a running build's portfolio list, the answer @bare serves, to `bodyFile`. */
export async function saveBareBody(serverUrl: string, bearerToken: string, bodyFile: string): Promise<void> {
  const answer = await fetch(`${serverUrl}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${bearerToken}` } });
  // An error's body would have @bare answer the load with what Folio says to a refused token.
  if (!answer.ok) throw new Error(`the portfolio list for @bare was answered ${answer.status}: ${await answer.text()}`);
  writeFileSync(bodyFile, await answer.text());
}
