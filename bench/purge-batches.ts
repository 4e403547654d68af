// `node --import tsx bench/purge-batches.ts [--rows N]`: how long the purge holds
// SQLite's event loop, batch by batch. The load benchmark (run.ts) measures what
// requests see during a purge; this measures the purge alone, on a file database
// holding N dead access tokens and N sign-in failure counters (a million by default).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { PURGE_RETENTION_MS, LOGIN_FAILURE_RETENTION_MS } from '../src/maintenance.ts';
import { BenchDatabase } from './fixtures.ts';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '1000000' } } });
const rows = Number(args.rows);
const work = mkdtempSync(join(tmpdir(), 'folio-purge-'));

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

function describe(what: string, deleted: number, recording: ReturnType<typeof recordingPause>, totalMs: number): string {
  const sorted = [...recording.batches].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!.toFixed(2);
  return `${what}: ${deleted.toLocaleString('en')} rows in ${(totalMs / 1000).toFixed(1)} s, ${sorted.length.toLocaleString('en')} batches; ` +
    `each held the event loop ${at(0.5)} ms (median), ${at(0.99)} ms (p99), ${at(1)} ms (longest)`;
}

try {
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
} finally {
  rmSync(work, { recursive: true, force: true });
}
