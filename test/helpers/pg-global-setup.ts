import type { TestProject } from 'vitest/node';
import { openDatabase, migrate } from '../../src/db/open.js';
import { adminQuery, databaseUrl, onPostgres, PG_TEMPLATE, postgresUnavailable, startPostgres, type PgServer } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/**
 * The PostgreSQL run (MAILAGENT_TEST_DATABASE=postgres): one server for the whole run, and a
 * template database migrated once; every test app or daemon then gets its own database copied
 * from the template (test/helpers/db.ts), dropped when it closes.
 */
let server: PgServer | null = null;

export async function setup(project: TestProject): Promise<void> {
  if (!onPostgres) return;
  const missing = postgresUnavailable();
  if (missing) throw new Error(`MAILAGENT_TEST_DATABASE=postgres, but ${missing}. \`npm run test:postgres\` skips with this reason instead.`);
  server = await startPostgres();
  // A run interrupted (Ctrl-C, a killed runner) must not leave the server behind either.
  process.once('exit', teardown);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  await adminQuery(server.adminUrl, `create database ${PG_TEMPLATE}`);
  const opened = openDatabase({ kind: 'postgres', url: databaseUrl(server.adminUrl, PG_TEMPLATE), poolSize: 2, statementTimeoutMs: 0 });
  try {
    await migrate(opened.db);
  } finally {
    await opened.close();
  }
  project.provide('pgAdminUrl', server.adminUrl);
}

export function teardown(): void {
  server?.stop();
  server = null;
}
