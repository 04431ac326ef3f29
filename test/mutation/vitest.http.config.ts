import { defineConfig } from 'vitest/config';

// The tests `npm run mutate:http` runs against each mutant of the access, rate-limit and idempotency stages of
// src/http: the HTTP test files that exercise them, and the limiters' refusals tested on a fake response (exact
// `Retry-After`, the key's point given back). The HTTP tests read the bundled document, so the bundle is built first.
export default defineConfig({
  test: {
    include: [
      'test/http/auth.test.ts',
      'test/http/limits.test.ts',
      'test/http/idempotency.test.ts',
      'test/http/outbox.test.ts',
      'test/http/api-keys.test.ts',
      'test/http/oauth-limits.test.ts',
      'test/http/rate-limits.test.ts',
      'test/http/address-limits.test.ts',
      'test/http/publishable-key-limits.test.ts',
      'test/http/usage.test.ts',
      'test/rate-limit-refusals.test.ts',
    ],
    globalSetup: ['test/setup/bundle.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
