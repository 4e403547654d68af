// The server's CPU a request when requests come alone, a few hundred a second and
// nothing else, where the other tools load a server with 50 connections: what a
// mostly idle server pays for each request, of the same order as what one request of
// another kind costs a loaded server (bench/ab.ts --issuing; docs/performance.md,
// thirty-fifth session). The requests go out evenly spaced on keep-alive sockets
// (bench/issuing.mjs) from this process, pinned to the load core; the variants take
// turns, their order rotating each round. Prints each variant's median CPU a
// request (user + system, from /proc), the event loop's thread's part of it, and
// its median per-round ratio to the first.
//   node --import tsx bench/lone-requests.ts [--rate N] [--seconds S] [--rounds N] [--request token|introspection] NAME=DIST_DIR[:ENV=VALUE,...] ... [bare=@bare]
// token: client_credentials issues, each written and made durable on its own;
// introspection: of a live access token, which writes nothing. @bare is sent the
// same POST, which it answers 404: what waking any Node server for a request costs.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase, sideRequestSpec } from './fixtures.ts';
import { startIssuing } from './issuing.mjs';
import { cpuMs, folioServerEnv, freePort, mainThreadCpuMs, pinToLoadCore, type Server, startServer } from './processes.ts';
import { median, medianRatio, turnOrder } from './report.ts';
import { isBaseline, parseVariant, readyPath, refuseDroppedIndexes, variantArgv, variantEnv } from './variants.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args, positionals } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    request: { type: 'string', default: 'token' },
  },
  allowPositionals: true,
});
const rate = Number(args.rate);
if (!(rate >= 1 && rate <= 1000)) throw new Error('--rate: requests a second, 1 to 1000');
if (args.request !== 'token' && args.request !== 'introspection') throw new Error('--request: token or introspection');
const variants = positionals.map(parseVariant);
refuseDroppedIndexes(variants, 'bench/lone-requests.ts');
if (variants.length === 0) throw new Error('name at least one variant: NAME=DIST_DIR[:ENV=VALUE,...]');
if (variants.some((variant) => isBaseline(variant) && variant.dist !== '@bare')) throw new Error('of the baselines, only @bare answers here');

// bench/issuing.mjs runs in this process, so this process is the load generator.
pinToLoadCore(process.pid);

const work = makeWorkDirectory('lone-requests');
const db = BenchDatabase.open(join(work, 'lone.db'));
const servers: Server[] = [];
try {
  const fixtures = await db.prepare();
  const basic = `Basic ${Buffer.from(`${fixtures.clientId}:${fixtures.clientSecret}`).toString('base64')}`;
  const request = sideRequestSpec(args.request, basic, fixtures.bearerTokens[0]!, rate);
  const bodyFile = join(work, 'body.json');
  writeFileSync(bodyFile, '{"portfolios":[]}');
  for (const variant of variants) {
    const port = await freePort();
    servers.push(await startServer(variant.name, variantArgv(variant, port, db.url, bodyFile), port, readyPath(variant),
      { ...folioServerEnv(db.url, port, 'info'), ...variantEnv(variant) }));
  }
  /** Sends the requests for `seconds`; how many were sent (a 404 from @bare counts). */
  const send = async (server: Server, seconds: number) => {
    const sending = startIssuing({ url: server.url, ...request });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const { issued, refused } = await sending.stop();
    const unexpected = refused.filter((status: string) => status !== '404');
    if (unexpected.length > 0) throw new Error(`${server.url}: ${unexpected.length} requests failed (${unexpected.slice(0, 3).join(', ')})`);
    return issued + refused.length;
  };
  for (const server of servers) await send(server, 1);
  const cpuUs = variants.map((): number[] => []);
  const mainThreadShare = variants.map((): number[] => []);
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const index of turnOrder(variants.length, round)) {
      const pid = servers[index]!.child.pid!;
      const [before, mainBefore] = [cpuMs(pid), mainThreadCpuMs(pid)];
      const sent = await send(servers[index]!, Number(args.seconds));
      const [after, mainAfter] = [cpuMs(pid), mainThreadCpuMs(pid)];
      const spent = after.user + after.system - before.user - before.system;
      cpuUs[index]!.push((spent * 1000) / sent);
      mainThreadShare[index]!.push((mainAfter.user + mainAfter.system - mainBefore.user - mainBefore.system) / spent);
    }
  }
  variants.forEach((variant, index) => {
    const ratio = index === 0 ? '' : `  ratio to ${variants[0]!.name}: ${medianRatio(cpuUs[index]!, cpuUs[0]!).toFixed(2)}×`;
    process.stdout.write(`${variant.name.padEnd(12)} ${median(cpuUs[index]!).toFixed(0).padStart(6)} µs CPU/request`
      + ` (${(median(mainThreadShare[index]!) * 100).toFixed(0)}% on the event loop's thread), ${rate} ${args.request} requests a second${ratio}\n`);
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await db.storage.close();
  rmSync(work, { recursive: true, force: true });
}
