// Log lines gathered into fewer writes (src/platform/log-batching.ts): none lost,
// none reordered, none late by more than the window, none left behind at exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { LOG_BATCH_WINDOW_MS, batchedLines } from '../../src/platform/log-batching.ts';

function sink() {
  const writes: string[] = [];
  return { writes, write: (text: string) => writes.push(text) };
}

test('lines written within the window reach the sink as one write, in order, once the window has passed', async () => {
  const target = sink();
  const lines = batchedLines(target);
  lines.write('one\n');
  lines.write('two\n');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(target.writes, []);
  await new Promise((resolve) => setTimeout(resolve, LOG_BATCH_WINDOW_MS + 20));
  lines.write('three\n');
  await new Promise((resolve) => setTimeout(resolve, LOG_BATCH_WINDOW_MS + 20));
  assert.deepEqual(target.writes, ['one\ntwo\n', 'three\n']);
});

test('a large batch goes out at once, and flush hands on what is held', () => {
  const target = sink();
  const lines = batchedLines(target);
  const long = `${'x'.repeat(1023)}\n`;
  for (let i = 0; i < 64; i++) lines.write(long);
  assert.equal(target.writes.join(''), long.repeat(64));
  lines.write('held\n');
  let flushed = false;
  lines.flush(() => { flushed = true; });
  assert.equal(target.writes.at(-1), 'held\n');
  assert.equal(flushed, true);
});

test('a synchronous flush hands held lines to the sink\'s writeSync, not to its write, which at exit might not finish', () => {
  const asynchronous: string[] = [];
  const synchronous: string[] = [];
  const lines = batchedLines({ write: (text) => asynchronous.push(text), writeSync: (text) => synchronous.push(text) });
  lines.write('one\n');
  lines.write('two\n');
  lines.flushSync!();
  assert.deepEqual(asynchronous, []);
  assert.deepEqual(synchronous, ['one\ntwo\n']);
});

for (const [how, ending] of [['process.exit() in the same turn', 'process.exit(3);'], ['the process running out of work', '']] as const) {
  test(`lines still held are written when the process ends by ${how}`, () => {
    const script = `import { createLogger } from './src/platform/logger.ts';
      const logger = createLogger({ logLevel: 'info' });
      for (let i = 0; i < 3; i++) logger.info('last words ' + i);
      ${ending}`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname });
    const messages = child.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(messages, ['last words 0', 'last words 1', 'last words 2'], child.stderr);
  });
}
