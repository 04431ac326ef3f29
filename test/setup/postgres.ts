// Vitest global setup: one migrated PostgreSQL template per run, from which each test file creates its own
// database (test/support/postgres.ts); removed when the run ends.
import { randomBytes } from 'node:crypto';

export default async function postgresTemplate(): Promise<() => Promise<void>> {
  process.env.FORM_FUNNEL_TEST_RUN ??= `r${randomBytes(4).toString('hex')}`;
  const { createTestTemplate, dropTestTemplate } = await import('../support/postgres.js');
  await createTestTemplate();
  return dropTestTemplate;
}
