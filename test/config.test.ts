import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('TRUSTED_PROXIES', () => {
  it('when entries are addresses and ranges, then they are trusted as given', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16,2001:db8::/32' }).trustedProxies).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      '2001:db8::/32',
    ]);
  });

  it.each(['0177.0.0.1', '10.1', 'proxy.internal', '10.0.0.0/33'])(
    'when an entry is %s, then the server refuses to start rather than trust the wrong address',
    (entry) => {
      expect(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1,${entry}` })).toThrow(`TRUSTED_PROXIES: ${entry} is not`);
    },
  );
});
