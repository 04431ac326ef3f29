import { describe, expect, it } from 'vitest';
import { assertChangelogCovers, clientManifest, contractVersion } from '../../src/cli/pack-client.js';

const rootManifest = { dependencies: { 'openapi-fetch': '~0.17.0', express: '^5.1.0' }, engines: { node: '>=20.11' } };

describe('the client package’s version', () => {
  it('when the contract says info.version 1.4.0, then the package is 1.4.0, whatever the repository’s own version', () => {
    const version = contractVersion('openapi: 3.1.0\ninfo:\n  title: Form-Funnel API\n  version: 1.4.0\npaths: {}\n');
    expect(version).toBe('1.4.0');
    expect(clientManifest({ ...rootManifest, version: '9.9.9' } as typeof rootManifest, version)).toMatchObject({
      name: '@form-funnel/client',
      version: '1.4.0',
      dependencies: { 'openapi-fetch': '~0.17.0' },
      engines: { node: '>=20.11' },
    });
  });

  it('when the contract has no info.version, then packing stops and says so', () => {
    expect(() => contractVersion('openapi: 3.1.0\ninfo:\n  title: Form-Funnel API\n')).toThrow('openapi/openapi.yaml has no info.version');
  });

  it('when the changelog has a section for the version, then packing goes on', () => {
    expect(() => assertChangelogCovers('# Changelog\n\n## 1.1.0\n\n- more\n\n## 1.0.0\n\n- first\n', '1.0.0')).not.toThrow();
  });

  it('when the changelog has no section for the version, then packing stops and names the version to add', () => {
    expect(() => assertChangelogCovers('# Changelog\n\n## 1.0.0\n\nThe first version, like 1.1.0 will be.\n', '1.1.0')).toThrow(
      'src/client/CHANGELOG.md has no "## 1.1.0" section',
    );
  });
});
