// The process logger writes standard output asynchronously (src/platform/logger.ts):
// no line may be lost when the process ends, nor held back while it runs.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;

for (const [how, ending] of [['process.exit() in the same turn', 'process.exit(3);'], ['the process running out of work', '']] as const) {
  test(`lines still held are written when the process ends by ${how}`, () => {
    const script = `import { createLogger } from './src/platform/logger.ts';
      const logger = createLogger({ logLevel: 'info' });
      for (let i = 0; i < 3; i++) logger.info('last words ' + i);
      ${ending}`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: root });
    const messages = child.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(messages, ['last words 0', 'last words 1', 'last words 2'], child.stderr);
  });
}

test('a line reaches standard output while the process runs on, though it fills no buffer', async () => {
  const script = `import { createLogger } from './src/platform/logger.ts';
    createLogger({ logLevel: 'info' }).info('alone');
    setTimeout(() => undefined, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').once('data', resolve);
      child.once('exit', () => reject(new Error('the process ended first')));
    });
    assert.equal((JSON.parse(line) as { msg: string }).msg, 'alone');
  } finally {
    child.kill();
  }
});
