import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { sql, type Kysely, type Migration } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, migrate, migrationState, type OpenedDb } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { hasTable } from '../../../src/db/dialect.js';
import { MigrationFailedError, schemaDrift, describeDrift } from '../../../src/db/migrator.js';
import { adminQuery, databaseUrl, onPostgres } from '../../helpers/postgres.js';

// The migration runner (db/migrator.ts) on a real, empty database of the run's engine: a SQLite
// file, or on the PostgreSQL run (scripts/test-postgres.ts) a new database. The bug: kysely's
// Migrator ran SQLite migrations without a transaction, so a start killed inside one left its
// tables without its record, and every later start failed with `table … already exists`.
let dir: string;
let opened: OpenedDb;
let pgName: string | null = null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-migrator-'));
  if (onPostgres) {
    pgName = `migr_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await adminQuery(inject('pgAdminUrl'), `create database ${pgName} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
    opened = openDatabase({ kind: 'postgres', url: databaseUrl(inject('pgAdminUrl'), pgName), poolSize: 2, statementTimeoutMs: 0 });
  } else {
    opened = openDatabase(join(dir, 'mailagent.db'));
  }
});
afterEach(async () => {
  await opened.close();
  if (pgName) await adminQuery(inject('pgAdminUrl'), `drop database if exists ${pgName} with (force)`);
  pgName = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A migration that makes a table and a column, then fails (as a kill half-way would stop it). */
const failing: Migration = {
  up: async (db) => {
    await sql`create table half_made (id text primary key)`.execute(db);
    await sql`alter table workspaces add column half_note text`.execute(db);
    throw new Error('boom half-way');
  },
};

const columnsOf = async (db: Kysely<any>, table: string) => (onPostgres
  ? (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db)).rows
  : (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows).map((r) => r.name);

describe('the migration runner', () => {
  it('a migration that fails half-way leaves none of its objects and no record; the next run applies it and the rest', async () => {
    const list = { ...migrations, '9998_half': failing };
    const err = await migrate(opened.db, list).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationFailedError);
    expect((err as MigrationFailedError).migration).toBe('9998_half');
    expect((err as Error).message).toMatch(/migration 9998_half failed and was rolled back .*boom half-way/);
    expect(await hasTable(opened.db, 'half_made')).toBe(false);
    expect(await columnsOf(opened.db, 'workspaces')).not.toContain('half_note');
    const state = await migrationState(opened.db, list);
    // SQLite: every migration before it committed on its own; PostgreSQL: one transaction, none.
    expect(state.applied).toEqual(onPostgres ? [] : Object.keys(migrations).sort());
    expect(state.pending).toEqual(onPostgres ? Object.keys(list).sort() : ['9998_half']);
    if (!onPostgres) expect(await schemaDrift(opened.db, list)).toBeNull();
    // Fixed, it applies (with whatever was still pending).
    const fixed = { ...migrations, '9998_half': { up: async (db: Kysely<any>) => { await sql`create table half_made (id text primary key)`.execute(db); } } };
    expect(await migrate(opened.db, fixed)).toEqual(onPostgres ? Object.keys(fixed).sort() : ['9998_half']);
    expect(await hasTable(opened.db, 'half_made')).toBe(true);
    expect(await migrate(opened.db, fixed)).toEqual([]);
  });

  it('an afterCommit step runs outside the transaction, after the commit, and again at later runs until it succeeds', async () => {
    let runs = 0;
    let fail = true;
    const list = {
      ...migrations,
      '9997_outside': {
        up: async (db: Kysely<any>) => { await sql`create table outside_step (n integer)`.execute(db); },
        afterCommit: async (db: Kysely<any>) => {
          runs++;
          // Committed before the step: another connection's view would see it; here, the table is there.
          expect(await hasTable(db, 'outside_step')).toBe(true);
          if (!onPostgres) await sql.raw('VACUUM').execute(db); // refused inside a transaction: proves it is outside
          if (fail) throw new Error('step failed');
        },
      } as Migration,
    };
    await expect(migrate(opened.db, list)).rejects.toThrow(/step failed/);
    expect((await migrationState(opened.db, list)).pending).toEqual([]); // the migration itself committed
    fail = false;
    expect(await migrate(opened.db, list)).toEqual([]);
    expect(runs).toBe(2); // run again by the next migrate, then it succeeded
  });

  it.skipIf(onPostgres)('SQLite: a VACUUM inside a migration fails loudly and is rolled back (it belongs in afterCommit)', async () => {
    const list = { ...migrations, '9996_vacuum_inside': { up: async (db: Kysely<any>) => { await sql`create table v (n integer)`.execute(db); await sql.raw('VACUUM').execute(db); } } };
    await expect(migrate(opened.db, list)).rejects.toThrow(/9996_vacuum_inside failed .*cannot VACUUM from within a transaction/);
    expect(await hasTable(opened.db, 'v')).toBe(false);
  });

  it.skipIf(onPostgres)('SQLite: schemaDrift names the migration a non-transactional run left half-made, and nothing for a whole file', async () => {
    const upTo = Object.fromEntries(Object.entries(migrations).filter(([n]) => n < '0018'));
    await migrate(opened.db, upTo);
    expect(await schemaDrift(opened.db, migrations)).toBeNull(); // pending migrations alone are not drift
    // What the old runner left after a kill between 0018's statements and its record.
    await migrations['0018_blob_chunks'].up(opened.db);
    const drift = await schemaDrift(opened.db, migrations);
    expect(drift).toMatchObject({ interrupted: '0018_blob_chunks', missing: [] });
    expect(drift!.extra).toEqual(expect.arrayContaining(['table:blob_chunks', 'column:received_messages.raw_blob']));
    expect(describeDrift(drift!)).toMatch(/migration 0018_blob_chunks was interrupted half-way and is not recorded \(it already made table blob_chunks, column inbound_queue.raw_blob/);
    // Something no migration makes is drift too, but not an interrupted migration.
    await sql`create table stray (n integer)`.execute(opened.db);
    expect(await schemaDrift(opened.db, migrations)).toMatchObject({ interrupted: null, extra: expect.arrayContaining(['table:stray']) });
  });
});
