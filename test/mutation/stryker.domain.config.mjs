// `npm run mutate`: mutation testing of src/domain against the unit tests (test/domain).
import { strykerConfig } from './stryker.base.mjs';

export default {
  ...strykerConfig('domain'),
  mutate: ['src/domain/**/*.ts'],
  vitest: { configFile: 'test/mutation/vitest.domain.config.ts' },
  thresholds: { high: 90, low: 80, break: null },
};
