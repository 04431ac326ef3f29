// `npm run mutate:http`: mutation testing of the stages of src/http that decide access, rate limits and
// idempotency, against the HTTP tests that exercise them (test/mutation/vitest.http.config.ts). Each mutant starts
// an app, so this run is slow: narrow it with `-- --mutate src/http/rate-limits.ts` while working on one file.
import { strykerConfig } from './stryker.base.mjs';

export default {
  ...strykerConfig('http'),
  mutate: [
    'src/http/pipeline.ts',
    'src/http/rate-limits.ts',
    'src/http/client-address.ts',
    'src/http/dispatch.ts',
    'src/http/sealed-response.ts',
  ],
  vitest: { configFile: 'test/mutation/vitest.http.config.ts' },
  timeoutMS: 60_000,
};
