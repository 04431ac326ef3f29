// Vitest global setup: names the run, and when it ends drops the template and every test database the run made
// (test/support/postgres.ts creates them on first use, so a run of files that need no PostgreSQL never connects).
// The run id is set before the module that names the databases is loaded, and test files inherit it.
export default async function postgresRun(): Promise<() => Promise<void>> {
  process.env.FORM_FUNNEL_TEST_RUN ??= `r${process.pid}_${Date.now().toString(36)}`;
  const { dropTestDatabases } = await import('../support/postgres.js');
  return dropTestDatabases;
}
