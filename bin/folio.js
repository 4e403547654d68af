#!/usr/bin/env node
// `npx folio ...`: the compiled CLI when `npm run build` has produced it,
// otherwise the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/main.js', import.meta.url);

let entry;
if (existsSync(fileURLToPath(compiled))) {
  entry = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import(new URL('../src/main.ts', import.meta.url).href);
}
await entry.runFromProcess();
