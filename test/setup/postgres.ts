// Vitest global setup: one migrated template database per run, which test databases are copied from
// (test/support/postgres.ts); it and every test database left are dropped when the run ends. The run id is set before the module that names
// the databases is loaded, and test files inherit it.
export default async function postgresTemplate(): Promise<() => Promise<void>> {
  process.env.FORM_FUNNEL_TEST_RUN ??= `r${process.pid}_${Date.now().toString(36)}`;
  const { createTestTemplate, dropTestDatabases } = await import('../support/postgres.js');
  await createTestTemplate();
  return dropTestDatabases;
}
