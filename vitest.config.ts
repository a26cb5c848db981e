import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: several CLI scenario tests spawn a dozen processes each, and a loaded 2-core CI
    // machine must not turn them into timeouts. Speed is measured in bench/, never here.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per CPU less one: a single worker on a 2-core machine. Most
    // test files wait (daemons starting, leases expiring, SMTP round trips) rather than compute,
    // so two at least: the suite took 487 s with one worker on an idle 2-core machine and 472 s
    // with two while the machine was loaded to 14-17 by other work.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Starts a PostgreSQL server only on the PostgreSQL run (MAILAGENT_TEST_DATABASE=postgres).
    globalSetup: ['./test/helpers/pg-global-setup.ts'],
    // A query on the root database from inside one of its transactions throws instead of
    // deadlocking (db/open.ts → Holding); passed on to the daemons the tests start (helpers/daemon.ts).
    env: { MAILAGENT_CHECK_TX: '1' },
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
