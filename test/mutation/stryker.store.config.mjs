// `npm run mutate:store`: mutation testing of the store's search scan (src/store/search-scan.ts), which both
// stores share, against its paging tests and the SQLite store's windowed reads (test/mutation/vitest.store.config.ts).
import { strykerConfig } from './stryker.base.mjs';

export default {
  ...strykerConfig('store'),
  mutate: ['src/store/search-scan.ts'],
  vitest: { configFile: 'test/mutation/vitest.store.config.ts' },
};
