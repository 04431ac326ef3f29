import { defineConfig } from 'vitest/config';

// Two projects: the whole suite on the default SQLite store, and the HTTP suite again on PostgreSQL, so that no
// feature can land on one store only. Run one with `npx vitest run --project postgres`.
export default defineConfig({
  test: {
    // Tests start servers, browsers and CLI tools: generous, but a hung test still fails long before CI gives up.
    // (Global setup, which may install Chromium, has no timeout.)
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Child processes (forks) isolate native modules such as better-sqlite3; one worker per core.
    pool: 'forks',
    maxWorkers: 2,
    // Concurrent tests in one file (describe.concurrent) each spawn a CLI process: no more than there are cores.
    maxConcurrency: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          // Bundles the document and builds dist/docs/index.html once; makes sure headless Chromium is installed;
          // the PostgreSQL template for the store conformance suite.
          globalSetup: ['test/setup/build-docs.ts', 'test/setup/chromium.ts', 'test/setup/postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/http/**/*.test.ts'],
          env: { TEST_STORE: 'postgres' },
          globalSetup: ['test/setup/bundle.ts', 'test/setup/postgres.ts'],
        },
      },
    ],
  },
});
