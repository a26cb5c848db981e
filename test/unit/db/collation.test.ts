import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { openDatabase, migrate, migrationState, nonBinaryTextColumns, schemaProblems, type OpenedDb } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { adminQuery, databaseUrl, onPostgres } from '../../helpers/postgres.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/server/config.js';
import { runDoctor } from '../../../src/server/doctor.js';

/** `mailagent doctor`'s database check on this database. */
async function doctorDatabase(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-coll-'));
  try {
    const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, minFreeDiskMb: 0, databaseUrl: url }, {});
    const checks = await runDoctor(config, { freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now(), timeoutMs: 2000 });
    return checks.find((c) => c.check === 'database');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// PostgreSQL on a database whose default collation is not "C" (Debian's initdb default is
// C.UTF-8): every migration must apply, the text columns end up "C" (ids and timestamps sort as
// in SQLite), and a failure leaves nothing recorded. The bug: the step switching columns to "C"
// ran after the migrations had committed and failed on the search triggers' `UPDATE OF` columns
// ("cannot alter type of a column used in a trigger definition"), leaving every migration
// recorded over a schema that could not be used, and doctor saying "schema up to date".
let name: string;
let opened: OpenedDb;
const admin = () => inject('pgAdminUrl');

beforeEach(async () => {
  if (!onPostgres) return;
  name = `coll_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(admin(), `create database ${name} template template0 encoding 'UTF8' lc_collate 'C.UTF-8' lc_ctype 'C.UTF-8'`);
  opened = openDatabase({ kind: 'postgres', url: databaseUrl(admin(), name), poolSize: 2, statementTimeoutMs: 0 });
});
afterEach(async () => {
  if (!onPostgres) return;
  await opened.close();
  await adminQuery(admin(), `drop database if exists ${name} with (force)`);
});

const triggers = async (db: Kysely<any>) => (await sql<{ t: string; def: string }>`
  select c.relname || '.' || tgname as t, pg_get_triggerdef(g.oid) as def from pg_trigger g join pg_class c on c.oid = g.tgrelid
  where not tgisinternal order by 1`.execute(db)).rows;

describe.skipIf(!onPostgres)('PostgreSQL on a database whose default collation is not "C"', () => {
  it('every migration applies; every text column is "C"; the search triggers are in place', async () => {
    const { rows: [d] } = await sql<{ c: string }>`select datcollate as c from pg_database where datname = current_database()`.execute(opened.db);
    expect(d.c).toBe('C.UTF-8');
    const applied = await migrate(opened.db);
    expect(applied).toEqual(Object.keys(migrations).sort());
    expect(await nonBinaryTextColumns(opened.db)).toEqual([]);
    expect(await schemaProblems(opened.db)).toEqual([]);
    const t = await triggers(opened.db);
    expect(t.map((r) => r.t)).toEqual(expect.arrayContaining(['sent_messages.sent_messages_search', 'received_messages.received_messages_search']));
    expect(t.find((r) => r.t === 'sent_messages.sent_messages_search')!.def).toMatch(/UPDATE OF .*from_address/);
    await migrate(opened.db); // again: nothing to do, no error
    expect((await migrationState(opened.db)).pending).toEqual([]);
  });

  it('a database migrated by the old runner (all migrations recorded, columns not "C") is reported by the schema check and repaired by migrate()', async () => {
    // The old order: the migrations commit, then the collation step (here: not run at all).
    const { error } = await new Migrator({ db: opened.db, provider: { getMigrations: async () => migrations } }).migrateToLatest();
    expect(error).toBeUndefined();
    expect((await nonBinaryTextColumns(opened.db)).length).toBeGreaterThan(0);
    expect((await schemaProblems(opened.db))[0]).toMatch(/not in the "C" collation/);
    // doctor said "schema up to date" here; it now fails the check and names the repair.
    expect(await doctorDatabase(databaseUrl(admin(), name))).toMatchObject({ status: 'fail', detail: expect.stringMatching(/not in the "C" collation/) });
    const before = await triggers(opened.db);
    expect(await migrate(opened.db)).toEqual([]);
    expect(await schemaProblems(opened.db)).toEqual([]);
    expect(await doctorDatabase(databaseUrl(admin(), name))).toMatchObject({ status: 'ok', detail: expect.stringMatching(/schema up to date/) });
    expect(await triggers(opened.db)).toEqual(before); // dropped and created again as they were
  });

  it('a migration whose collation step fails leaves nothing recorded and nothing created', async () => {
    // A column the step cannot switch (a view reads it): the step fails inside the migrations' transaction.
    const bad: Migration = {
      up: async (db) => {
        await sql`alter table workspaces add column note text`.execute(db);
        await sql`create view workspace_notes as select note from workspaces`.execute(db);
      },
    };
    const list = { ...migrations, '9999_view_over_text': bad };
    await expect(migrate(opened.db, list)).rejects.toThrow(/view/);
    expect((await migrationState(opened.db, list)).applied).toEqual([]);
    const { rows } = await sql`select 1 from information_schema.tables where table_schema = current_schema() and table_name = 'workspaces'`.execute(opened.db);
    expect(rows).toEqual([]);
  });
});
