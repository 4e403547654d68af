// Summarises V8 .cpuprofile files (node --cpu-prof): the functions with the most
// self time, and the share under each of a few subsystems, so a change to a hot
// path can be judged by numbers rather than by eye. Flame graphs: open the same
// files in Chrome DevTools or speedscope.
//   node --import tsx bench/profile-summary.ts DIR [TOP]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const [directory = '.', top = '25'] = process.argv.slice(2);

/** Time under each function, its callees included, counted once per stack even when it recurses. */
function inclusiveTimes(profile: Profile, self: Map<number, number>, keyOf: (node: ProfileNode) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, time] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const key = keyOf(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + time);
    }
  }
  return inclusive;
}
/** For each file of the esbuild bundle: the line where each source module starts (esbuild marks it "// path"). */
const bundleModules = new Map<string, { line: number; path: string }[]>();

/** The source module (node_modules/... or src/...) a line of a bundle chunk in dist/ came from. */
function sourceOf(url: string, lineNumber: number): string | undefined {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return undefined;
  let starts = bundleModules.get(url);
  if (starts === undefined) {
    starts = [];
    try {
      readFileSync(fileURLToPath(url), 'utf8').split('\n').forEach((text, line) => {
        const marker = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(text);
        if (marker) starts!.push({ line, path: marker[1]! });
      });
    } catch { /* the build changed since the profile: keep the chunk's name */ }
    bundleModules.set(url, starts);
  }
  let found: string | undefined;
  for (const start of starts) {
    if (start.line > lineNumber) break;
    found = start.path;
  }
  return found;
}

function whereOf(node: ProfileNode): string {
  const { url, lineNumber } = node.callFrame;
  return sourceOf(url, lineNumber) ?? url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/');
}

/** Function, source and line; for bundled code the line is the bundle chunk's. */
function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const bundled = sourceOf(url, lineNumber);
  const where = bundled === undefined ? `${whereOf(node)}:${lineNumber + 1}` : `${bundled} (${url.replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1})`;
  return `${functionName || '(anonymous)'} ${where}`;
}

for (const file of readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as Profile;
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const time = self.get(node.id) ?? 0;
    total += time;
    const key = keyOf(node);
    const { functionName, url } = node.callFrame;
    byFunction.set(key, (byFunction.get(key) ?? 0) + time);
    const where = whereOf(node);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1]
      ?? (/^(dist|src)\//.test(where) ? 'folio' : url.startsWith('node:') ? 'node' : functionName.startsWith('(') ? functionName : 'other');
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
  }
  const share = (time: number) => `${((time / total) * 100).toFixed(1).padStart(5)}%`;
  process.stdout.write(`\n${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
  for (const [name, time] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12)) process.stdout.write(`  ${share(time)}  ${name}\n`);
  process.stdout.write('  --\n');
  for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) process.stdout.write(`  ${share(time)}  ${name}\n`);
  process.stdout.write('  -- inclusive (callees counted too)\n');
  const inclusive = inclusiveTimes(profile, self, keyOf);
  for (const [name, time] of [...inclusive].filter(([name]) => !name.startsWith('(')).sort((a, b) => b[1] - a[1]).slice(0, Number(top))) process.stdout.write(`  ${share(time)}  ${name}\n`);
}
