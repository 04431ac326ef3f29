import { defineConfig } from 'vitest/config';

// The tests `npm run mutate` runs against each mutant of src/domain: the plain unit tests, without the global setup
// (bundle, docs page, Chromium) the HTTP and docs tests need. Stryker picks, for each mutant, only the tests that
// executed its code in the first run. The export and scan bounds are domain code tested at the top of test/.
export default defineConfig({
  test: {
    include: ['test/domain/**/*.test.ts', 'test/concurrency-slots.test.ts'],
    // Stryker switches mutants at run time, so one module graph serves every run: not re-importing the modules for
    // each test file makes a mutant's run several times faster.
    isolate: false,
    // The properties run once per mutant that their code holds: fewer inputs, from a fixed seed.
    env: { PROPERTY_RUNS: '40' },
    setupFiles: ['test/mutation/fast-check.setup.ts'],
    testTimeout: 30_000,
  },
});
