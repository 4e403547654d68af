#!/usr/bin/env node
// Runs every *.test.ts under test/ (and packages/*/test) with node:test through tsx.
// A script rather than a shell glob because npm's sh does not expand `**`.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  let found = [];
  let entries;
  try { entries = readdirSync(dir); } catch { return found; }
  for (const name of entries) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(findTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

function packageTests() {
  let entries;
  try { entries = readdirSync('packages'); } catch { return []; }
  return entries.flatMap((name) => findTests(join('packages', name, 'test')));
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : [...findTests('test'), ...packageTests()].sort();
// The spec reporter ends with every failing test and its error, so the last
// lines of a run (all a CI log may keep) say what failed; TAP says it only inline.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', '--test-reporter-destination=stdout', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
