// The benchmark's servers are the ones it started: a port found free by
// freePort() can be taken by another process before the child listens on it.
// And the CPU it charges a server's event loop is that thread's alone.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cpuMs, freePort, listensOn, mainThreadCpuMs, startServer } from '../../bench/processes.ts';

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

  /**
   * A node process that keeps one thread busy for `ms`, the main one or a worker
   * while the main one sleeps, says "done", then waits to be killed.
   */
  async function spinning(where: 'main' | 'worker', ms: number): Promise<ChildProcess> {
    const spin = `const end = Date.now() + ${ms}; while (Date.now() < end);`;
    const script = where === 'main'
      ? `${spin} process.stdout.write('done\\n'); setInterval(() => {}, 1000);`
      : `const { Worker } = require('node:worker_threads');
         new Worker(${JSON.stringify(spin)}, { eval: true }).on('exit', () => process.stdout.write('done\\n'));
         setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`spinning child exited with ${code}`)));
    });
    return child;
  }

  const total = ({ user, system }: { user: number; system: number }) => user + system;

  for (const where of ['main', 'worker'] as const) {
    it(`mainThreadCpuMs counts the main thread's CPU and no other's (a busy ${where} thread)`, { timeout: 30_000 }, async () => {
      const child = await spinning(where, 600);
      try {
        const [whole, main] = [total(cpuMs(child.pid!)), total(mainThreadCpuMs(child.pid!))];
        assert.ok(whole >= 400, `the process spent ${whole} ms`);
        assert.ok(main <= whole, `main ${main} ms of ${whole} ms`);
        // Node's start-up and the worker's own start run on threads of their own too: no exact split.
        if (where === 'main') assert.ok(main >= 400, `main ${main} ms of ${whole} ms`);
        else assert.ok(whole - main >= 400, `main ${main} ms of ${whole} ms`);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});
