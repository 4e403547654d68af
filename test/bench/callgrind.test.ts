// bench/instructions.ts judges builds by these counts: they must be read from
// callgrind's real output, and the variants it compares must be the ones named.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countWindow, eventTotals, inclusiveInstructions, totalInstructions } from '../../bench/callgrind.ts';
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
      assert.deepEqual(countWindow(dump), { total, events: { Ir: total }, compiling: 0, migrating: 0 });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('reads the simulated cache misses of a dump made with --cache-sim', { skip: !hasValgrind && 'valgrind is not installed' }, () => {
    const work = mkdtempSync(join(tmpdir(), 'folio-callgrind-'));
    try {
      const dump = join(work, 'callgrind.out');
      const run = spawnSync('valgrind', ['--tool=callgrind', '--cache-sim=yes', `--callgrind-out-file=${dump}`, '/bin/true']);
      assert.equal(run.status, 0, run.stderr.toString());
      const events = eventTotals(readFileSync(dump, 'utf8'));
      assert.equal(events.Ir, totalInstructions(readFileSync(dump, 'utf8')));
      for (const miss of ['I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw']) assert.ok(events[miss]! >= 0, `${miss} is counted`);
      // A program that has just been loaded misses on its first fetch of each line at least.
      assert.ok(events.I1mr! > 0 && events.I1mr! < events.Ir!, `instruction misses ${events.I1mr} among ${events.Ir}`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('names each total by its event', () => {
    assert.deepEqual(eventTotals('events: Ir I1mr\nsummary: 1 1\ntotals: 1200 34\n'), { Ir: 1200, I1mr: 34 });
    assert.throws(() => eventTotals('totals: 12\n'), /no events or totals line/);
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
      name: 'semi', dist: 'dist', env: { FOLIO_LOG_LEVEL: 'warn' }, nodeFlags: ['--max-semi-space-size=4', '--expose-gc'], dropIndexes: undefined,
      beside: 'token',
    });
    assert.deepEqual(parseVariant('bare=@bare'), { name: 'bare', dist: '@bare', env: {}, nodeFlags: undefined, dropIndexes: undefined, beside: 'token' });
    assert.throws(() => parseVariant('dist'), /NAME=DIST_DIR/);
  });

  it('takes what bench/ab.ts --issuing sends beside the GET apart from the environment, and only what it can send', () => {
    const reads = parseVariant('reads=dist:BESIDE=introspection,FOLIO_LOG_LEVEL=warn');
    assert.equal(reads.beside, 'introspection');
    assert.deepEqual(reads.env, { FOLIO_LOG_LEVEL: 'warn' });
    assert.equal(parseVariant('alone=dist:BESIDE=nothing').beside, 'nothing');
    assert.equal(parseVariant('more=dist:BESIDE=reading').beside, 'reading');
    assert.throws(() => parseVariant('odd=dist:BESIDE=revocation'), /odd: BESIDE is one of token, introspection, reading, nothing/);
  });
});
