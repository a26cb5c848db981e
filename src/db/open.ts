import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';

export interface OpenedDb {
  db: Kysely<Database>;
  /** The pragmas in force, read back after setting them (tests check they stuck). */
  pragmas: { journal_mode: string; synchronous: number; foreign_keys: number; busy_timeout: number };
  close(): Promise<void>;
}

/**
 * Every SQLite pragma lives here. synchronous=FULL is set explicitly: better-sqlite3's build
 * defaults WAL databases to NORMAL, and an SMTP 250 / HTTP 201 must mean the row is on disk.
 */
export function openDatabase(file: string): OpenedDb {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const pragmas = {
    journal_mode: String(sqlite.pragma('journal_mode', { simple: true })),
    synchronous: Number(sqlite.pragma('synchronous', { simple: true })),
    foreign_keys: Number(sqlite.pragma('foreign_keys', { simple: true })),
    busy_timeout: Number(sqlite.pragma('busy_timeout', { simple: true })),
  };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, pragmas, close: () => db.destroy() };
}

export async function migrate(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the database already holds a workspace (the data dir is initialised). */
export async function isInitialised(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
