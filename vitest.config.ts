import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Bundles the document and builds dist/docs/index.html once; makes sure headless Chromium is installed.
    globalSetup: ['test/setup/build-docs.ts', 'test/setup/chromium.ts', 'test/setup/postgres.ts'],
    // Tests start servers, browsers and CLI tools: generous, but a hung test still fails long before CI gives up.
    // (Global setup, which may install Chromium, has no timeout.)
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Child processes (forks) isolate native modules such as better-sqlite3; one worker per core.
    pool: 'forks',
    maxWorkers: 2,
    // Concurrent tests in one file (describe.concurrent) each spawn a CLI process: no more than there are cores.
    maxConcurrency: 2,
  },
});
