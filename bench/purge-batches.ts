// `node --import tsx bench/purge-batches.ts [--rows N]`: how long the purge holds
// SQLite's event loop, batch by batch. The load benchmark (run.ts) measures what
// requests see during a purge; this measures the purge alone, on a file database
// holding N dead access tokens and N sign-in failure counters (a million by default).
// With --postgres [--live N]: the token purge on a throwaway PostgreSQL database
// beside N live tokens, and the CPU the database server's processes spent on it.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { PURGE_RETENTION_MS, LOGIN_FAILURE_RETENTION_MS } from '../src/maintenance.ts';
import { BenchDatabase } from './fixtures.ts';
import { createDatabase, dropDatabase, postgresAdminUrl } from './postgres.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args } = parseArgs({ options: {
  rows: { type: 'string', default: '1000000' },
  postgres: { type: 'boolean', default: false },
  live: { type: 'string', default: '1000' },
} });
const rows = Number(args.rows);
const work = makeWorkDirectory('purge');

/** A pause that yields like the server's but does not rest, recording how long each batch held the loop. */
function recordingPause() {
  const batches: number[] = [];
  let resumed = performance.now();
  return {
    batches,
    pause: async () => {
      batches.push(performance.now() - resumed);
      await new Promise((resolve) => setImmediate(resolve));
      resumed = performance.now();
    },
    finish: () => batches.push(performance.now() - resumed),
  };
}

function describe(what: string, deleted: number, recording: ReturnType<typeof recordingPause>, totalMs: number, each = 'held the event loop'): string {
  const sorted = [...recording.batches].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!.toFixed(2);
  return `${what}: ${deleted.toLocaleString('en')} rows in ${(totalMs / 1000).toFixed(1)} s, ${sorted.length.toLocaleString('en')} batches; ` +
    `each ${each} ${at(0.5)} ms (median), ${at(0.99)} ms (p99), ${at(1)} ms (longest)`;
}

/** CPU time (user and system) of every process named postgres on this machine, in ms; Linux only. */
function postgresCpuMs(): number {
  const ticksPerMs = 100 / 1000; // USER_HZ, 100 on Linux
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
  }
  return ticks / ticksPerMs;
}

async function purgeOnPostgres(): Promise<void> {
  const admin = await postgresAdminUrl();
  if (admin === undefined) throw new Error('no PostgreSQL answers at FOLIO_TEST_POSTGRES_URL or 127.0.0.1:5432');
  const { name, url } = await createDatabase(admin, `folio_purge_${process.pid}`);
  try {
    const bench = BenchDatabase.open(url);
    await bench.prepare();
    await bench.addLiveTokens(Number(args.live));
    await bench.addDeadTokens(rows);
    const now = Date.now();
    const recording = recordingPause();
    const cpuBefore = postgresCpuMs();
    const started = performance.now();
    const tokens = await bench.storage.tokens.purgeExpired(now, now - PURGE_RETENTION_MS, recording.pause);
    recording.finish();
    const cpu = postgresCpuMs() - cpuBefore;
    const what = `dead access tokens beside ${Number(args.live).toLocaleString('en')} live ones`;
    process.stdout.write(`${describe(what, tokens.accessTokens, recording, performance.now() - started, 'took')}; the database server's CPU ${(cpu * 1000 / Math.max(1, tokens.accessTokens)).toFixed(1)} µs a row\n`);
    await bench.close();
  } finally {
    await dropDatabase(admin, name);
  }
}

async function purgeOnSqlite(): Promise<void> {
  const bench = BenchDatabase.open(join(work, 'purge.db'));
  await bench.prepare();
  await bench.addLiveTokens(1000);
  await bench.addDeadTokens(rows);
  const now = Date.now();
  const counters = (updatedAt: number) => sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert or replace into login_failures (key, failures, locked_until, updated_at) select 'account:user' || i || '@example.test', 3, null, ${updatedAt} from n`;

  let recording = recordingPause();
  let started = performance.now();
  const tokens = await bench.storage.tokens.purgeExpired(now, now - PURGE_RETENTION_MS, recording.pause);
  recording.finish();
  process.stdout.write(`${describe('dead access tokens', tokens.accessTokens, recording, performance.now() - started)}\n`);

  await counters(now).execute(bench.db);
  recording = recordingPause();
  started = performance.now();
  await bench.storage.loginThrottle.forgetFailuresBefore(now - LOGIN_FAILURE_RETENTION_MS, recording.pause);
  recording.finish();
  process.stdout.write(`${describe('sign-in failure counters, none stale', 0, recording, performance.now() - started)}\n`);

  await counters(now - 2 * LOGIN_FAILURE_RETENTION_MS).execute(bench.db);
  recording = recordingPause();
  started = performance.now();
  const forgotten = await bench.storage.loginThrottle.forgetFailuresBefore(now - LOGIN_FAILURE_RETENTION_MS, recording.pause);
  recording.finish();
  process.stdout.write(`${describe('sign-in failure counters, all stale', forgotten, recording, performance.now() - started)}\n`);
  await bench.close();
}

try {
  await (args.postgres ? purgeOnPostgres() : purgeOnSqlite());
} finally {
  rmSync(work, { recursive: true, force: true });
}
