// bench/instructions.ts judges builds by these counts: they must be read from
// callgrind's real output, and the variants it compares must be the ones named.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countWindow, inclusiveInstructions, totalInstructions } from '../../bench/callgrind.ts';
import { parseVariant } from '../../bench/variants.ts';

const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;

describe('callgrind counts', () => {
  it('reads the totals and a function\'s inclusive count from a real dump', { skip: !hasValgrind && 'valgrind is not installed' }, () => {
    const work = mkdtempSync(join(tmpdir(), 'folio-callgrind-'));
    try {
      const dump = join(work, 'callgrind.out');
      const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${dump}`, '/bin/true']);
      assert.equal(run.status, 0, run.stderr.toString());
      const total = totalInstructions(readFileSync(dump, 'utf8'));
      assert.ok(total > 10_000, `a program's start-up takes more than ${total} instructions`);
      const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump]).stdout.toString();
      const loader = inclusiveInstructions(annotated, /_dl_start\b/);
      assert.ok(loader > 0 && loader <= total, `the dynamic loader's share ${loader} lies within the total ${total}`);
      assert.equal(inclusiveInstructions(annotated, /no such function anywhere/), 0);
      // /bin/true runs no V8: nothing of the total is compiling or migrating objects.
      assert.deepEqual(countWindow(dump), { total, compiling: 0, migrating: 0 });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('takes a recursive function\'s outermost entry, which holds the deeper ones', () => {
    const annotated = [
      '1,000 (100.0%)  PROGRAM TOTALS',
      '  700 (70.00%)  ???:walk [/usr/bin/node]',
      '  300 (30.00%)  ???:walk\'2 [/usr/bin/node]',
    ].join('\n');
    assert.equal(inclusiveInstructions(annotated, /:walk/), 700);
  });

  it('refuses a file that is not a dump', () => {
    assert.throws(() => totalInstructions('events: Ir\n'), /no totals line/);
  });
});

describe('variants on the command line', () => {
  it('splits a name, a build and its settings, node flags apart', () => {
    assert.deepEqual(parseVariant('semi=dist:NODE_FLAGS=--max-semi-space-size=4 --expose-gc,FOLIO_LOG_LEVEL=warn'), {
      name: 'semi', dist: 'dist', env: { FOLIO_LOG_LEVEL: 'warn' }, nodeFlags: ['--max-semi-space-size=4', '--expose-gc'],
    });
    assert.deepEqual(parseVariant('bare=@bare'), { name: 'bare', dist: '@bare', env: {}, nodeFlags: undefined });
    assert.throws(() => parseVariant('dist'), /NAME=DIST_DIR/);
  });
});
