import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: several CLI scenario tests spawn a dozen processes each, and a loaded 2-core CI
    // machine must not turn them into timeouts. Speed is measured in bench/, never here.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts a PostgreSQL server only on the PostgreSQL run (MAILAGENT_TEST_DATABASE=postgres).
    globalSetup: ['./test/helpers/pg-global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
