// `npm run build`: the server as one bundle in dist/ (dist/main.js and the chunks
// it loads lazily: the PostgreSQL driver, the server itself behind the CLI).
// Resolving and reading the ~700 module files of an unbundled build was half of
// the time from spawn to ready and weighed megabytes of resident memory
// (docs/performance.md). Type checking is tsc's job; esbuild only strips types.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Left to Node to load from node_modules at run time: native addons, packages
 * that find files beside their own sources through __dirname (which an ES
 * module bundle does not have), and ioredis, loaded only when Redis is configured.
 */
export const EXTERNAL_PACKAGES = [
  'better-sqlite3', // native addon
  'pg-native', // optional native driver that pg tries to require
  '@fastify/swagger', // reads its package.json through __dirname
  '@fastify/swagger-ui', // serves the static files shipped beside it
  'ioredis', // reads its package.json through __dirname
];

/** Bundles src/main.ts into `outdir`, emptied first. `outdir` must be inside the project so the externals resolve. */
export async function bundleServer(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    external: EXTERNAL_PACKAGES,
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleServer('dist');
