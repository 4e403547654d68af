// What the SQLite side of a refresh costs, without HTTP, Kysely or the machine's
// other load in the way: a database migrated as Folio migrates it, holding
// `--tokens` refresh tokens, then `--batches` group commits of `--batch` refreshes
// over `--chains` rotation chains (one user and grant each, as the benchmark's
// refresh load has), each batch the look-ups of the tokens it rotates, then one
// transaction of each refresh's statements (the access token's insert, which finds
// its grant live, the rotation, the refresh token's insert, the audit event, and
// the grant's last use once a second), committed with synchronous=FULL (unless `normal`). Prints what
// a refresh spends in each part. Each variant NAME=CHANGE,... has a database of its
// own with those changes made (NAME= makes none), which prices them: an index's
// name drops it, `without-rowid` makes the two token tables WITHOUT ROWID ones,
// `normal` commits under synchronous=NORMAL, as the server's group commit does
// (its fsync then runs on the thread pool, not timed here: sqlite-dialect.ts), and
// `autocheckpoint=N` checkpoints the WAL at N pages instead of the server's
// WAL_AUTOCHECKPOINT_PAGES. The commit is shown as its median, its mean (which the
// checkpoints, a commit in tens, move) and its longest. The variants' batches
// interleave, a hundred at a time, as the machine's speed drifts:
//   node --import tsx bench/sqlite-writes.ts [--tokens N] [--batches N] [--batch N] [--chains N] shipped= grants=access_tokens_grant,refresh_tokens_grant clustered=without-rowid
//   node --import tsx bench/sqlite-writes.ts --batches 3000 shipped=normal default=normal,autocheckpoint=1000 none=normal,autocheckpoint=0
// The statements are written here as Folio's compile them (token-writes.ts), not
// through Folio's code, so that the database's own cost is what is timed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { cryptoRandom } from '../src/platform/random.ts';
import { generateCredential, hashCredential } from '../src/platform/secrets.ts';
import { WAL_AUTOCHECKPOINT_PAGES, createSqliteKysely } from '../src/storage/dialects.ts';
import { createKyselyStorage } from '../src/storage/kysely/storage.ts';
import { LAST_USE_RESOLUTION_MS } from '../src/storage/kysely/token-writes.ts';
import { median } from './report.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args, positionals } = parseArgs({
  options: {
    tokens: { type: 'string', default: '200000' },
    batches: { type: 'string', default: '2000' },
    batch: { type: 'string', default: '33' },
    chains: { type: 'string', default: '50' },
  },
  allowPositionals: true,
});
const [tokens, batches, batchSize, chainCount] = [args.tokens, args.batches, args.batch, args.chains].map(Number) as [number, number, number, number];
const WITHOUT_ROWID = 'without-rowid';
const NORMAL = 'normal';
const AUTOCHECKPOINT = /^autocheckpoint=(\d+)$/;
const variants = (positionals.length > 0 ? positionals : ['shipped=']).map((word) => {
  const [name, changes] = word.split(/=(.*)/s) as [string, string | undefined];
  if (!name || changes === undefined) throw new Error(`a variant is NAME=CHANGE,... (NAME= makes none), got ${word}`);
  const words = changes.split(',').filter(Boolean);
  const autocheckpoint = words.map((change) => AUTOCHECKPOINT.exec(change)?.[1]).find((pages) => pages !== undefined);
  return {
    name,
    withoutRowid: words.includes(WITHOUT_ROWID),
    synchronous: words.includes(NORMAL) ? 'NORMAL' : 'FULL',
    autocheckpoint: autocheckpoint === undefined ? WAL_AUTOCHECKPOINT_PAGES : Number(autocheckpoint),
    dropped: words.filter((change) => change !== WITHOUT_ROWID && change !== NORMAL && !AUTOCHECKPOINT.test(change)),
  };
});
const INTERLEAVE = 100;

interface Costs { lookUp: number[]; statements: number[]; commit: number[] }

/** The token tables made again, empty, as WITHOUT ROWID tables: their rows kept in their key's b-tree, with no second one by rowid. */
function rebuildTokenTablesWithoutRowid(db: SqliteDatabase.Database): void {
  for (const table of ['access_tokens', 'refresh_tokens']) {
    const schema = db.prepare('select type, sql from sqlite_master where tbl_name = ? and sql is not null').all(table) as { type: string; sql: string }[];
    db.exec(`drop table ${table}`);
    for (const { type, sql } of schema) db.exec(type === 'table' ? `${sql} without rowid` : sql);
  }
}

/** A database as Folio migrates it, with `variant`'s changes made and `tokens` refresh tokens in it; runs one batch a call. */
async function preparedDatabase(file: string, variant: (typeof variants)[number]): Promise<{ runBatch(batch: number, costs: Costs): void; close(): void }> {
  const storage = createKyselyStorage(createSqliteKysely(file), 'sqlite');
  await storage.migrate();
  await storage.close();

  // The settings Folio's server runs with (sqlite-dialect.ts).
  const db = new SqliteDatabase(file);
  if (variant.withoutRowid) rebuildTokenTablesWithoutRowid(db);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${variant.synchronous}`);
  db.pragma('cache_size = -4000');
  db.pragma(`wal_autocheckpoint = ${variant.autocheckpoint}`);

  const now = Date.now();
  const owner = db.prepare(`insert into users (email, name, password_hash, created_at, updated_at) values ('bench@folio.test', 'Bench', 'unused', ?, ?)`).run(now, now);
  const applicationId = Number(db.prepare(`insert into applications (owner_id, name, client_id, secret_hash, redirect_uris, confidential, pkce_required, scopes, created_at, updated_at)
    values (?, 'Bench', 'bench', 'unused', '[]', 1, 0, 'read', ?, ?)`).run(owner.lastInsertRowid, now, now).lastInsertRowid);
  const chains = Array.from({ length: chainCount }, (_, index) => {
    const userId = Number(db.prepare(`insert into users (email, name, password_hash, created_at, updated_at) values (?, 'Chain', 'unused', ?, ?)`)
      .run(`chain-${index}@folio.test`, now, now).lastInsertRowid);
    const grantId = Number(db.prepare(`insert into grants (user_id, application_id, scope, created_at) values (?, ?, 'read', ?)`)
      .run(userId, applicationId, now).lastInsertRowid);
    return { userId, grantId, tokenHash: '' };
  });

  const insertRefresh = db.prepare(`insert into refresh_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, rotated_at, revoked_at, origin_code_hash)
    values (?, ?, ?, ?, 'read', ?, ?, ?, null, null)`);
  const newHash = (kind: 'accessToken' | 'refreshToken', at: number) => hashCredential(generateCredential(kind, cryptoRandom, at));
  // The tokens already there, issued one a millisecond before now, every other one rotated.
  db.transaction(() => {
    for (let index = 0; index < tokens; index++) {
      const chain = chains[index % chainCount]!;
      const issuedAt = now - tokens + index;
      chain.tokenHash = newHash('refreshToken', issuedAt);
      insertRefresh.run(chain.tokenHash, chain.grantId, applicationId, chain.userId, issuedAt, issuedAt + 86_400_000, index % 2 === 0 ? issuedAt : null);
    }
  })();
  // The last token of each chain must be live to be rotated.
  const revive = db.prepare('update refresh_tokens set rotated_at = null where token_hash = ?');
  for (const chain of chains) revive.run(chain.tokenHash);
  for (const index of variant.dropped) db.exec(`drop index ${index}`);
  db.pragma('wal_checkpoint(TRUNCATE)');

  const lookUp = db.prepare(`select token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, revoked_at, origin_code_hash, rotated_at
    from refresh_tokens where token_hash = ?`).raw();
  const rotate = db.prepare('update refresh_tokens set rotated_at = ? where token_hash = ? and rotated_at is null and revoked_at is null');
  // Bound to the refresh token issued beside it, as the server writes it (migration 0010).
  const insertAccess = db.prepare(`insert into access_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, revoked_at, origin_code_hash, refresh_token_hash)
    select ?, ?, ?, ?, 'read', ?, ?, null, null, ? where exists (select 1 from grants where id = ? and revoked_at is null)`);
  const touch = db.prepare('update grants set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?)');
  const lastUses = new Map<number, number>();
  const insertEvent = db.prepare(`insert into audit_events (type, user_id, application_id, ip, detail, created_at) values ('token.refreshed', ?, ?, '127.0.0.1', ?, ?)`);
  const [begin, commit] = [db.prepare('begin'), db.prepare('commit')];
  const elapsedUs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1000;

  return {
    runBatch(batch, costs) {
      const picked = Array.from({ length: batchSize }, (_, index) => chains[(batch * batchSize + index) % chainCount]!);
      let started = process.hrtime.bigint();
      for (const chain of picked) lookUp.all(chain.tokenHash);
      costs.lookUp.push(elapsedUs(started) / batchSize);

      started = process.hrtime.bigint();
      begin.run();
      const at = Date.now();
      for (const chain of picked) {
        const next = newHash('refreshToken', at);
        insertAccess.run(newHash('accessToken', at), chain.grantId, applicationId, chain.userId, at, at + 1_800_000, next, chain.grantId);
        rotate.run(at, chain.tokenHash);
        chain.tokenHash = next;
        insertRefresh.run(chain.tokenHash, chain.grantId, applicationId, chain.userId, at, at + 86_400_000, null);
        insertEvent.run(chain.userId, applicationId, `{"grant_id":${chain.grantId}}`, at);
        // As the server does: a grant's last use written when what it last wrote is a second old.
        if ((lastUses.get(chain.grantId) ?? -Infinity) <= at - LAST_USE_RESOLUTION_MS) {
          touch.run(at, chain.grantId, at - LAST_USE_RESOLUTION_MS);
          lastUses.set(chain.grantId, at);
        }
      }
      costs.statements.push(elapsedUs(started) / batchSize);
      started = process.hrtime.bigint();
      commit.run();
      costs.commit.push(elapsedUs(started) / batchSize);
    },
    close: () => db.close(),
  };
}

const work = makeWorkDirectory('sqlite-writes');
try {
  const databases = await Promise.all(variants.map((variant, index) => preparedDatabase(join(work, `${index}.db`), variant)));
  const costs: Costs[] = variants.map(() => ({ lookUp: [], statements: [], commit: [] }));
  for (let first = 0; first < batches; first += INTERLEAVE) {
    databases.forEach((database, index) => {
      for (let batch = first; batch < Math.min(first + INTERLEAVE, batches); batch++) database.runBatch(batch, costs[index]!);
    });
  }
  for (const database of databases) database.close();
  const shown = (values: number[]) => median(values).toFixed(1).padStart(6);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  process.stdout.write(`a refresh's database side, medians of ${batches} batches of ${batchSize} over ${chainCount} chains, ${tokens} refresh tokens before (two credentials made and hashed counted with the statements):\n`);
  variants.forEach((variant, index) => {
    const { lookUp, statements, commit } = costs[index]!;
    const longestCommitMs = Math.max(...commit) * batchSize / 1000;
    process.stdout.write(`${variant.name.padEnd(12)} look-up ${shown(lookUp)} µs  statements ${shown(statements)} µs  share of the commit ${shown(commit)} µs`
      + ` (mean ${mean(commit).toFixed(1)} µs, longest commit ${longestCommitMs.toFixed(1)} ms)`
      + `  total ${median(lookUp.map((value, batch) => value + statements[batch]! + commit[batch]!)).toFixed(1).padStart(6)} µs`
      + `  [synchronous=${variant.synchronous}, checkpoint at ${variant.autocheckpoint} pages]`
      + `${variant.dropped.length > 0 ? `  (dropped: ${variant.dropped.join(', ')})` : ''}${variant.withoutRowid ? '  (token tables without rowid)' : ''}\n`);
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
