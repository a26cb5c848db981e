import { inject } from 'vitest';
import { join } from 'node:path';
import type { DatabaseSpec } from '../../src/db/open.js';
import { adminQuery, databaseUrl, onPostgres, PG_TEMPLATE } from './postgres.js';

export { onPostgres };

export interface TestDatabase {
  spec: DatabaseSpec;
  /** postgres://… on the PostgreSQL run (for a daemon's --database), null on SQLite. */
  url: string | null;
  /** Drop the database (PostgreSQL); the SQLite file goes with its temp dir. */
  drop(): Promise<void>;
}

let seq = 0;

/**
 * A fresh, migrated database for one test app or daemon: the SQLite file in `dir`, or on the
 * PostgreSQL run a new database copied from the migrated template (CREATE DATABASE … TEMPLATE
 * copies files: much faster than migrating each one). `unmigrated`: an empty PostgreSQL database
 * instead, for a test that applies the migrations itself (a SQLite file always starts empty).
 */
export async function testDatabase(dir: string, opts: { unmigrated?: boolean } = {}): Promise<TestDatabase> {
  if (!onPostgres) return { spec: { kind: 'sqlite', file: join(dir, 'mailagent.db') }, url: null, drop: async () => {} };
  const admin = inject('pgAdminUrl');
  const name = `t_${process.pid}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(admin, opts.unmigrated ? `create database ${name}` : `create database ${name} template ${PG_TEMPLATE} strategy file_copy`);
  const url = databaseUrl(admin, name);
  return {
    spec: { kind: 'postgres', url, poolSize: 10, statementTimeoutMs: 30_000 },
    url,
    drop: () => adminQuery(admin, `drop database if exists ${name} with (force)`),
  };
}
