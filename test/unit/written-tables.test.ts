// Which statements can change an application, or the bearer API's cached reads
// (src/storage/written-tables.ts),
// read off the SQL texts Kysely compiles for both dialects, as Folio sends them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Database } from '../../src/storage/schema.ts';
import { mayChangeApplications, mayChangeBearerReads } from '../../src/storage/written-tables.ts';

// Compiling needs no connection: neither dialect's driver is ever asked for one.
const dialects = {
  sqlite: new Kysely<Database>({ dialect: new SqliteDialect({ database: async () => { throw new Error('unused'); } }) }),
  postgres: new Kysely<Database>({ dialect: new PostgresDialect({ pool: async () => { throw new Error('unused'); } }) }),
};

for (const [name, db] of Object.entries(dialects)) {
  describe(`mayChangeApplications on ${name}'s SQL`, () => {
    it('says no for the writes of token issue, revocation, sign-in and the purge', () => {
      const texts = [
        db.insertInto('access_tokens').values({
          token_hash: 'h', grant_id: 1, application_id: 1, user_id: 1, scope: 'read', created_at: 0, expires_at: 1, revoked_at: null, origin_code_hash: null,
        }),
        db.insertInto('audit_events').values({ type: 'token.issued', user_id: 1, application_id: 1, ip: null, detail: '{}', created_at: 0 }),
        db.updateTable('grants').set({ last_used_at: 1 }).where('id', '=', 1).where('revoked_at', 'is', null),
        db.updateTable('refresh_tokens').set({ rotated_at: 1 }).where('token_hash', '=', 'h'),
        db.updateTable('authorization_codes').set({ consumed_at: 1 }).where('code_hash', '=', 'h'),
        db.updateTable('access_tokens').set({ revoked_at: 1 }).where('grant_id', 'in', db.selectFrom('grants').select('id').where('application_id', '=', 1)),
        db.insertInto('sessions').values({ id_hash: 'h', user_id: 1, csrf_token: 'c', created_at: 0, expires_at: 1, last_seen_at: 0 }),
        db.deleteFrom('access_tokens').where('expires_at', '<', 1),
      ].map((query) => query.compile().sql);
      for (const text of texts) assert.equal(mayChangeApplications(text), false, text);
    });

    it("says no for one statement of several writes, none of them an application's (PostgreSQL's token issue)", () => {
      const text = sql`with touched as (update grants set last_used_at = 1 where id = 1 returning id),
        issued_access as (insert into "access_tokens" (token_hash) select 'h' from touched),
        issued_event as (insert into "audit_events" (type) select 'token.issued' from touched)
        select id from touched`.compile(db).sql;
      assert.equal(mayChangeApplications(text), false);
    });

    it("says yes for a write to applications or to users, whose deletion cascades to their applications", () => {
      const texts = [
        db.updateTable('applications').set({ secret_hash: 'h', updated_at: 1 }).where('id', '=', 1),
        db.deleteFrom('applications').where('id', '=', 1),
        db.deleteFrom('users').where('id', '=', 1),
        db.updateTable('users').set({ name: 'n' }).where('id', '=', 1),
        db.insertInto('applications').values({
          owner_id: 1, name: 'n', client_id: 'c', secret_hash: 'h', redirect_uris: '[]', confidential: 1, pkce_required: 0, scopes: 'read', created_at: 0, updated_at: 0,
        }),
      ].map((query) => query.compile().sql);
      for (const text of texts) assert.equal(mayChangeApplications(text), true, text);
    });

    it('says yes when one of several writes is to applications, or when it cannot tell', () => {
      const mixed = sql`with revoked as (update access_tokens set revoked_at = 1 returning grant_id)
        delete from applications where id in (select grant_id from revoked)`.compile(db).sql;
      const upsert = db.insertInto('consents').values({ user_id: 1, application_id: 1, scope: 'read', created_at: 0 })
        .onConflict((conflict) => conflict.columns(['user_id', 'application_id']).doUpdateSet({ scope: 'read' })).compile().sql;
      for (const text of [mixed, upsert, 'begin', 'commit', 'rollback', 'savepoint folio_write', 'alter table applications add column x int',
        'drop table applications', 'truncate applications', 'pragma foreign_keys = on', 'with x as (select 1) select * from x']) {
        assert.equal(mayChangeApplications(text), true, text);
      }
    });
  });
}

for (const [name, db] of Object.entries(dialects)) {
  describe(`mayChangeBearerReads on ${name}'s SQL`, () => {
    it("says no for the writes of a token issue, a refresh, a code exchange and a sign-in's session", () => {
      const texts = [
        db.insertInto('access_tokens').values({
          token_hash: 'h', grant_id: 1, application_id: 1, user_id: 1, scope: 'read', created_at: 0, expires_at: 1, revoked_at: null, origin_code_hash: null,
        }),
        db.insertInto('refresh_tokens').values({
          token_hash: 'h', grant_id: 1, application_id: 1, user_id: 1, scope: 'read', created_at: 0, expires_at: 1, revoked_at: null, rotated_at: null, origin_code_hash: null,
        }),
        db.insertInto('audit_events').values({ type: 'token.issued', user_id: 1, application_id: 1, ip: null, detail: '{}', created_at: 0 }),
        db.insertInto('grants').values({ user_id: 1, application_id: 1, scope: 'read', created_at: 0, last_used_at: 0, revoked_at: null }),
        db.updateTable('grants').set({ last_used_at: 1 }).where('id', '=', 1).where('revoked_at', 'is', null),
        db.updateTable('refresh_tokens').set({ rotated_at: 1 }).where('token_hash', '=', 'h'),
        db.updateTable('authorization_codes').set({ consumed_at: 1 }).where('code_hash', '=', 'h'),
        db.insertInto('sessions').values({ id_hash: 'h', user_id: 1, csrf_token: 'c', created_at: 0, expires_at: 1, last_seen_at: 0 }),
        db.deleteFrom('sessions').where('id_hash', '=', 'h'),
        db.deleteFrom('authorization_codes').where('expires_at', '<', 1),
      ].map((query) => query.compile().sql);
      const issue = sql`with touched as (update grants set last_used_at = 1 where id = 1 returning id),
        issued_access as (insert into "access_tokens" (token_hash) select 'h' from touched),
        issued_event as (insert into "audit_events" (type) select 'token.issued' from touched)
        select id from touched`.compile(db).sql;
      // PostgreSQL's batch of rotations (token-exchanges-postgres.ts): a rotated refresh token's access tokens stay live.
      const rotations = sql`with locked as (select token_hash from refresh_tokens where token_hash = any(${['h']}::text[]) for update
        ), spent as (update ${sql.table('refresh_tokens')} set ${sql.ref('rotated_at')} = ${1}
        where token_hash in (select token_hash from locked) returning token_hash as spent, grant_id
        ), issued_access as (insert into "access_tokens" (token_hash) select spent from spent)
        select spent from spent`.compile(db).sql;
      for (const text of [...texts, issue, rotations]) assert.equal(mayChangeBearerReads(text), false, text);
    });

    it('says yes for what can change a token or a portfolio: a revocation, a portfolio written, a deletion that cascades to them', () => {
      const texts = [
        // An access token issued beside a refresh token ends with it (migration 0010).
        db.updateTable('refresh_tokens').set({ revoked_at: 1 }).where('grant_id', '=', 1).where('revoked_at', 'is', null),
        db.updateTable('refresh_tokens').set({ rotated_at: 1, revoked_at: 1 }).where('token_hash', '=', 'h'),
        db.updateTable('refresh_tokens').set({ revoked_at: 1, rotated_at: 1 }).where('token_hash', '=', 'h'),
        db.updateTable('refresh_tokens').set({ expires_at: 1 }).where('token_hash', '=', 'h'),
        db.deleteFrom('refresh_tokens').where('token_hash', '=', 'h'),
        db.updateTable('access_tokens').set({ revoked_at: 1 }).where('token_hash', '=', 'h'),
        db.updateTable('access_tokens').set({ revoked_at: 1 }).where('grant_id', 'in', db.selectFrom('grants').select('id').where('application_id', '=', 1)),
        db.deleteFrom('access_tokens').where('token_hash', '=', 'h'),
        db.insertInto('portfolios').values({ owner_id: 1, name: 'n', created_at: 0, updated_at: 0 } as never),
        db.updateTable('portfolios').set({ name: 'n' }).where('id', '=', 1),
        db.deleteFrom('portfolios').where('id', '=', 1),
        db.deleteFrom('grants').where('id', '=', 1),
        db.deleteFrom('applications').where('id', '=', 1),
        db.deleteFrom('users').where('id', '=', 1),
      ].map((query) => query.compile().sql);
      const revokeThenIssue = sql`with revoked as (update access_tokens set revoked_at = 1 returning grant_id)
        insert into audit_events (type) select 'token.revoked' from revoked`.compile(db).sql;
      // Only a SET list of rotated_at alone passes: here revoked_at follows a subquery's WHERE.
      const hidden = sql`update refresh_tokens set rotated_at = (select 1 where true), revoked_at = 1`.compile(db).sql;
      for (const text of [...texts, revokeThenIssue, hidden]) assert.equal(mayChangeBearerReads(text), true, text);
    });

    it('says yes when it cannot tell: an upsert, a replacing insert, anything but a plain data write', () => {
      const upsert = db.insertInto('consents').values({ user_id: 1, application_id: 1, scope: 'read', created_at: 0 })
        .onConflict((conflict) => conflict.columns(['user_id', 'application_id']).doUpdateSet({ scope: 'read' })).compile().sql;
      for (const text of [upsert, 'insert or replace into grants (id) values (1)', 'INSERT OR REPLACE INTO "grants" (id) VALUES (1)',
        'replace into grants (id) values (1)', 'update unknown_table set x = 1', 'begin', 'commit', 'rollback', 'savepoint folio_write',
        'alter table access_tokens add column x int', 'drop table portfolios', 'truncate access_tokens', 'pragma foreign_keys = on',
        'with x as (select 1) select * from x',
        'delete from refresh_tokens where ctid = any(array(select ctid from refresh_tokens for update skip locked))',
        'insert into public.portfolios (id) values (1)', 'insert into "public"."portfolios" (id) values (1)', 'update main . access_tokens set revoked_at = 1']) {
        assert.equal(mayChangeBearerReads(text), true, text);
      }
      assert.equal(mayChangeBearerReads('insert or ignore into audit_events (type) values (1)'), false);
    });
  });
}
