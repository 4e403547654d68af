// Builds of Folio compared by their start-up: each started again and again on one
// prepared database, the builds interleaved (their order rotating each round), timed
// from spawn to the first 2xx of /readyz as bench/run.ts times its start-up check,
// with the CPU the process had spent by then (user + system, from /proc), which
// moves less than the wall time on a shared machine. Prints medians and each
// build's median per-round ratio to the first.
//   node --import tsx bench/start.ts [--rounds N] [--postgres] NAME=DIST_DIR[:ENV=VALUE,...] ...
// With --postgres the builds start on a throwaway database on the local PostgreSQL
// server (FOLIO_TEST_POSTGRES_URL), dropped at the end.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase } from './fixtures.ts';
import { createDatabase, dropDatabase, postgresAdminUrl } from './postgres.ts';
import { cpuMs, folioServerEnv, freePort, startServer } from './processes.ts';
import { median, medianRatio, turnOrder } from './report.ts';
import { isBaseline, parseVariant, refuseDroppedIndexes, variantArgv, variantEnv } from './variants.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    postgres: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const variants = positionals.map(parseVariant);
refuseDroppedIndexes(variants, 'bench/start.ts');
if (variants.length === 0) throw new Error('name at least one build: NAME=DIST_DIR[:ENV=VALUE,...]');
if (variants.some(isBaseline)) throw new Error('only builds of Folio start here, not @bare, @floor or @oidc');

const work = makeWorkDirectory('start');
const adminUrl = args.postgres ? await postgresAdminUrl() : undefined;
if (args.postgres && adminUrl === undefined) throw new Error('--postgres: no PostgreSQL server answers (set FOLIO_TEST_POSTGRES_URL)');
const postgresDatabase = adminUrl === undefined ? undefined : await createDatabase(adminUrl, `folio_start_${process.pid}`);
const db = BenchDatabase.open(postgresDatabase?.url ?? join(work, 'start.db'));
try {
  await db.prepare();
  const readyMs = variants.map((): number[] => []);
  const cpuAtReady = variants.map((): number[] => []);
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const index of turnOrder(variants.length, round)) {
      const variant = variants[index]!;
      const port = await freePort();
      const server = await startServer(variant.name, variantArgv(variant, port, db.url, ''), port, '/readyz',
        { ...folioServerEnv(db.url, port, 'info'), ...variantEnv(variant) });
      const cpu = cpuMs(server.child.pid!);
      await server.stop();
      readyMs[index]!.push(server.readyMs);
      cpuAtReady[index]!.push(cpu.user + cpu.system);
    }
  }
  const ratio = (values: number[][], index: number) => medianRatio(values[index]!, values[0]!).toFixed(2);
  variants.forEach((variant, index) => {
    const ratios = index === 0 ? '' : `  ratio to ${variants[0]!.name}: ready ${ratio(readyMs, index)}×, CPU ${ratio(cpuAtReady, index)}×`;
    process.stdout.write(`${variant.name.padEnd(12)} ready in ${median(readyMs[index]!).toFixed(0).padStart(5)} ms`
      + `  CPU by then ${median(cpuAtReady[index]!).toFixed(0).padStart(5)} ms (median of ${args.rounds})${ratios}\n`);
  });
} finally {
  await db.storage.close();
  if (postgresDatabase !== undefined) await dropDatabase(adminUrl!, postgresDatabase.name);
  rmSync(work, { recursive: true, force: true });
}
