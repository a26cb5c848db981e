/**
 * `npm run test:postgres [-- vitest args]`: the test suite on PostgreSQL instead of SQLite. The
 * global setup (test/helpers/pg-global-setup.ts) starts a throwaway server; when PostgreSQL is
 * not installed here, the run is skipped with the reason (exit 0), as CI's other optional parts.
 */
import { spawnSync } from 'node:child_process';
import { postgresUnavailable } from '../test/helpers/postgres.js';

const missing = postgresUnavailable();
if (missing) {
  process.stdout.write(`PostgreSQL run skipped: ${missing}\n`);
  process.exit(0);
}
const r = spawnSync('npx', ['vitest', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, MAILAGENT_TEST_DATABASE: 'postgres' },
});
process.exit(r.status ?? 1);
