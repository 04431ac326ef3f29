/**
 * The test databases (test/support/postgres.ts) are made on first use, so a run of files that need no PostgreSQL
 * runs without it: nothing connects on import, and the global teardown connects only when the run reached it.
 * PostgreSQL is "stopped" here by pointing TEST_DATABASE_URL at a closed port.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const closedPort = 'postgres://postgres@127.0.0.1:1/postgres';
const runId = `unit_${process.pid}`;
const marker = join(tmpdir(), `form-funnel-ff_template_${runId}.used`);

async function loadWith(env: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries({ TEST_DATABASE_URL: closedPort, FORM_FUNNEL_TEST_RUN: runId, ...env }))
    vi.stubEnv(name, value);
  return import('./support/postgres.js');
}

beforeEach(() => vi.unstubAllEnvs());

describe('test databases', () => {
  it('when a run asks for no database, then the teardown ends it without connecting', async () => {
    const { dropTestDatabases } = await loadWith({});
    await expect(dropTestDatabases()).resolves.toBeUndefined();
  });

  it('when a test asks for a database and PostgreSQL is away, then that test fails with the connection error and the teardown still connects to nothing', async () => {
    const { createTestDatabase, dropTestDatabases } = await loadWith({});
    await expect(createTestDatabase()).rejects.toThrow(/ECONNREFUSED/);
    expect(existsSync(marker)).toBe(false);
    await expect(dropTestDatabases()).resolves.toBeUndefined();
  });

  it('when the database prefix is not a plain identifier, then loading refuses it before any SQL is written with it', async () => {
    await expect(loadWith({ TEST_DATABASE_PREFIX: 'ff; DROP DATABASE postgres; --' })).rejects.toThrow(
      /TEST_DATABASE_PREFIX may hold lower-case letters, digits and underscores only/,
    );
  });
});
