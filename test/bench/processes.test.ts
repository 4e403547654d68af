// The benchmark's servers are the ones it started: a port found free by
// freePort() can be taken by another process before the child listens on it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, listensOn, startServer } from '../../bench/processes.ts';

const linux = listensOn(process.pid, 1) !== undefined;

function listen(server: HttpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

describe('bench/processes.ts', { skip: linux ? false : 'reads /proc' }, () => {
  let directory: string;
  let bodyFile: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'folio-bench-processes-'));
    bodyFile = join(directory, 'body.json');
    writeFileSync(bodyFile, '{"portfolios":[]}');
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('listensOn tells the process holding a listening port from one that does not', async () => {
    const port = await freePort();
    assert.equal(listensOn(process.pid, port), false);
    const server = createServer((_request, response) => response.end());
    await listen(server, port);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      assert.equal(listensOn(process.pid, port), true);
      assert.equal(listensOn(other.pid!, port), false);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('startServer fails when another process answers on the port and its own server cannot listen', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const impostor = createServer((_request, response) => response.end('{"status":"ready"}'));
    await listen(impostor, port);
    try {
      await assert.rejects(startServer('bare-fastify', ['bench/baselines/bare-fastify.mjs', String(port), bodyFile], port, '/readyz'), /bare-fastify exited with 1/);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });

  it('startServer is ready once its own server answers', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const server = await startServer('bare-fastify', ['bench/baselines/bare-fastify.mjs', String(port), bodyFile], port, '/readyz');
    try {
      assert.equal(listensOn(server.child.pid!, port), true);
      assert.ok(server.readyMs > 0);
      assert.deepEqual(await (await fetch(`${server.url}/api/v2/portfolios.json`)).json(), { portfolios: [] });
    } finally {
      await server.stop();
    }
  });
});
