import { defineConfig } from 'vitest/config';

// The tests `npm run mutate:store` runs against each mutant of the store's search scan: the paging rules on a list
// held in memory and the windowed reads on an SQLite store in memory. No PostgreSQL, no global setup: the scan is
// the same code on both stores, and the store suites test each store's windows.
export default defineConfig({
  test: {
    include: ['test/search-scan.test.ts', 'test/store/search-scan.test.ts'],
    // As in the domain run: one module graph for every mutant, which Stryker switches at run time.
    isolate: false,
    testTimeout: 30_000,
  },
});
