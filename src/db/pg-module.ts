import { createRequire } from 'node:module';
import type PgModule from 'pg';

const require = createRequire(import.meta.url);

/**
 * The PostgreSQL driver, loaded when a PostgreSQL store is opened rather than with db/open.ts: a
 * daemon on SQLite (the default) never needs it, and it costs every process that loads it ~3 MB of
 * heap. A CommonJS package, so a synchronous require does it (openDatabase stays synchronous).
 */
let pg: typeof PgModule | null = null;
export function loadPg(): typeof PgModule {
  pg ??= require('pg') as typeof PgModule;
  return pg;
}
