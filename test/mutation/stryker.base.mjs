// Settings shared by the two mutation runs (`npm run mutate`, `npm run mutate:http`).
/** @param {string} name the run's name: its reports are dist/mutation/<name>.html and .json */
export function strykerConfig(name) {
  return {
    $schema: '../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    packageManager: 'npm',
    testRunner: 'vitest',
    // Each mutant runs only the tests that executed its code in the first, unmutated run.
    coverageAnalysis: 'perTest',
    // Two cores, shared: one test process per core at most.
    concurrency: 2,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    clearTextReporter: { allowColor: true, logTests: false, reportMutants: true, reportScoreTable: true },
    htmlReporter: { fileName: `dist/mutation/${name}.html` },
    jsonReporter: { fileName: `dist/mutation/${name}.json` },
    // Re-test only the mutants whose code or tests changed since the last run; `-- --force` tests them all.
    incremental: true,
    incrementalFile: `dist/mutation/${name}-incremental.json`,
    // The copy Stryker tests in needs the sources, the document and the tests, not build output or local data.
    ignorePatterns: ['dist', 'data', 'coverage', '*.log'],
    // Under load a mutant that turns a loop infinite must not hold a core for minutes.
    timeoutMS: 10_000,
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
  };
}
