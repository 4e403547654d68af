// `npm run build`: the server as one bundle in dist/ (dist/main.js and the chunks
// it loads lazily: the PostgreSQL driver, the server itself behind the CLI).
// Resolving and reading the ~700 module files of an unbundled build was half of
// the time from spawn to ready and weighed megabytes of resident memory
// (docs/performance.md). Type checking is tsc's job; esbuild only strips types.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Left to Node to load from node_modules at run time: native addons, packages
 * that find files beside their own sources through __dirname (which an ES
 * module bundle does not have), and ioredis, loaded only when Redis is configured.
 * @fastify/swagger is bundled although it reads its package.json that way: the
 * read is inside a try, and its only use, a default title and version, is
 * overridden by ours. Loaded from node_modules, file by file, it and the `yaml`
 * package it requires cost start-up about 7% more than from the bundle
 * (docs/performance.md).
 */
export const EXTERNAL_PACKAGES = [
  'better-sqlite3', // native addon
  'pg-native', // optional native driver that pg tries to require
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
    // Drops the comments esbuild keeps inside expressions, such as the MCP SDK's
    // JSDoc with an em dash: one character beyond Latin-1 doubles a chunk's heap
    // (filesBeyondLatin1). Names stay, and the linked source map maps positions back.
    minifyWhitespace: true,
    logLevel: 'warning',
  });
}

/**
 * Each JavaScript file of a bundle in `outdir` that holds characters beyond Latin-1,
 * with those characters. V8 keeps a module's source in the heap for as long as the
 * process runs, at a byte a character when every character is Latin-1 and at two
 * otherwise: five arrows and quotes in page templates made the 2 MB server chunk
 * weigh 3.9 MB (docs/performance.md). esbuild escapes them in strings; what it
 * cannot escape is the text of a tagged template, such as the pages' html``, and
 * comments, which minifyWhitespace drops.
 */
export function filesBeyondLatin1(outdir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of readdirSync(outdir).filter((name) => name.endsWith('.js'))) {
    const beyond = [...new Set(readFileSync(join(outdir, file), 'utf8').match(/[^\u0000-\u00ff]/gu))];
    if (beyond.length > 0) found.set(file, beyond);
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleServer('dist');
