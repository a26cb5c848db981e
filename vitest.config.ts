import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Starts a PostgreSQL server only on the PostgreSQL run (MAILAGENT_TEST_DATABASE=postgres).
    globalSetup: ['./test/helpers/pg-global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
