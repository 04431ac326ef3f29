import { configDefaults, defineConfig } from 'vitest/config';

// Projects, so that a unit test file runs in a second: global setup (bundling the document, building the docs
// page, installing Chromium, naming the PostgreSQL run) runs only for a project that has test files in the run.
// What each project needs, and the knobs: docs/testing.md.
//   npx vitest run test/domain/walk-path.test.ts   one file (its project's setup only)
//   npx vitest run --project unit                  one project

/** Test files that start processes (npm, tsc, node): the `processes` project, so that `unit` starts none. */
const processTestFiles = ['test/cli/command-line.test.ts', 'test/client/pack.test.ts', 'test/stubs/**/*.test.ts'];

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
        // Plain TypeScript: the domain, the mail (through an SMTP server in the test process), the client against a
        // fake transport, CLI logic, the README, the architecture rules. No global setup, and no process: the setup
        // file makes starting one an error.
        test: {
          name: 'unit',
          include: [
            'test/*.test.ts',
            'test/domain/**/*.test.ts',
            'test/mail/**/*.test.ts',
            'test/client/**/*.test.ts',
            'test/cli/**/*.test.ts',
            'test/docs/readme.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...processTestFiles],
          setupFiles: ['test/setup/no-processes.ts'],
          // As in `api`: a worker runs its files in one module graph instead of a fresh process each (the fresh
          // processes took more than half of this project's time). Spies, stubbed globals and environment
          // variables are restored between files; test/architecture.test.ts keeps out module mocks, and fake timers
          // not restored after each test.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
        },
      },
      {
        extends: true,
        // The command line as operators run it (`npm run admin`, `npm start`) and the client package as partners
        // install it (packed, installed into new ESM and CommonJS projects, type-checked and run); generated server
        // stub projects, type-checked, started and regenerated. No global setup.
        test: {
          name: 'processes',
          include: processTestFiles,
        },
      },
      {
        extends: true,
        // The store suites, each on both stores: SQLite in memory and a PostgreSQL database of its own per test.
        test: {
          name: 'store',
          include: ['test/store/**/*.test.ts'],
          // As in `api`: one module graph per worker. A fresh process per file imported both stores again and copied
          // the PostgreSQL template again, where a worker now hands a released test database to its next file (about
          // half of this project's time). Each test opens its own store; test/architecture.test.ts keeps module mocks
          // and fake timers out of test/store.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          globalSetup: ['test/setup/postgres.ts'],
        },
      },
      {
        extends: true,
        // The app, Prism and the gate read the bundled document (dist/openapi.json, dist/openapi.yaml); the
        // multi-process test runs its cluster on a PostgreSQL database copied from the run's template.
        test: {
          name: 'api',
          include: [
            'test/http/**/*.test.ts',
            'test/contract/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/conformance/**/*.test.ts',
            'test/hosted/**/*.test.ts',
          ],
          // Faults of the PostgreSQL store (a lost connection) have no SQLite counterpart: they run in api-postgres only.
          exclude: ['test/http/faults.test.ts'],
          // A worker runs its files one after another in one module graph instead of a fresh one each: importing
          // the app (Express, the validator, Ajv, pino, both stores) took about 130 s of the run's CPU. Each file
          // builds its own app and store (useWatchedApi), so no test state is shared. Between files vitest restores
          // spies, and here stubbed globals and environment variables too; module mocks and fake timers would leak
          // into the next file, so test/architecture.test.ts keeps them out of these directories.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          globalSetup: ['test/setup/bundle.ts', 'test/setup/postgres.ts', 'test/setup/hosted-page.ts', 'test/setup/chromium.ts'],
        },
      },
      {
        extends: true,
        // The HTTP suite again, on PostgreSQL (TEST_STORE): each test API on a database of its own, copied from the
        // run's migrated template. No feature lands on one store only.
        test: {
          name: 'api-postgres',
          include: ['test/http/**/*.test.ts'],
          // The hosted page's own behaviour in a browser (keyboard, saved progress, the embed) does not depend on the
          // store; the page's walk with a scored, delivered lead runs here too (hosted-browser.test.ts).
          // The people pages' views (their HTML, in a browser, and the passkey script against a stub server) touch no
          // store either; the pages' own flow runs here (people-pages.test.ts, people-browser.test.ts).
          // The embed's frame in a browser (its height, redirect, console) neither; the pages' answers it relies on
          // run here (hosted-page.test.ts, hosted-not-found.test.ts). Nor the page's screens, languages and live
          // errors (hosted-page-screens.test.ts): the screens, language and logo they read are stored on both stores
          // by the forms' own tests.
          // The dashboard's screens are an API client of the same API, so one store checks them; the dashboard's walk
          // through every action the seed lists runs here too (dashboard-walk.test.ts).
          exclude: [
            'test/http/hosted-page-behaviour.test.ts',
            'test/http/hosted-embed.test.ts',
            'test/http/hosted-page-screens.test.ts',
            'test/http/people-views*.test.ts',
            'test/http/dashboard-screens-*.test.ts',
          ],
          // As in `api`: one module graph per worker (vitest keeps a worker to one project; store-kind.test.ts checks
          // that each project's APIs stand on its store).
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          env: { TEST_STORE: 'postgres' },
          globalSetup: ['test/setup/bundle.ts', 'test/setup/postgres.ts', 'test/setup/hosted-page.ts', 'test/setup/chromium.ts'],
        },
      },
      {
        extends: true,
        // The docs page (dist/docs/index.html, built from the bundle) in headless Chromium.
        test: {
          name: 'docs',
          include: ['test/docs/**/*.test.ts'],
          exclude: ['test/docs/readme.test.ts'],
          globalSetup: ['test/setup/build-docs.ts', 'test/setup/chromium.ts'],
        },
      },
    ],
  },
});
