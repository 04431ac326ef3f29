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

  it('when the contract has no info.version, or no info, or is empty, or the version is empty, then packing stops and says so', () => {
    for (const document of ['openapi: 3.1.0\ninfo:\n  title: Form-Funnel API\n', 'openapi: 3.1.0\n', '', 'info:\n  version: ""\n']) {
      expect(() => contractVersion(document), JSON.stringify(document)).toThrow('openapi/openapi.yaml has no info.version');
    }
  });

  it('when the changelog has a section for the version, then packing goes on', () => {
    expect(() => assertChangelogCovers('# Changelog\n\n## 1.1.0\n\n- more\n\n## 1.0.0\n\n- first\n', '1.0.0')).not.toThrow();
  });

  it('when the version is only a subheading or mid-line in the changelog, then it is no section and packing stops', () => {
    expect(() => assertChangelogCovers('# Changelog\n\n## 1.0.0\n\n### 1.1.0 plans\n\nSee ## 1.1.0 later.\n', '1.1.0')).toThrow(
      'no "## 1.1.0" section',
    );
  });

  it('when the changelog has no section for the version, then packing stops and names the version to add', () => {
    expect(() => assertChangelogCovers('# Changelog\n\n## 1.0.0\n\nThe first version, like 1.1.0 will be.\n', '1.1.0')).toThrow(
      'src/client/CHANGELOG.md has no "## 1.1.0" section',
    );
  });
});

describe('the client package’s manifest', () => {
  it('when built, then it names the two builds for import and require, the CommonJS one for old resolvers, and ships only dist and the docs', () => {
    const esm = { types: './dist/esm/src/client/index.d.ts', default: './dist/esm/src/client/index.js' };
    const cjs = { types: './dist/cjs/src/client/index.d.ts', default: './dist/cjs/src/client/index.js' };
    expect(clientManifest(rootManifest, '1.0.0')).toEqual({
      name: '@form-funnel/client',
      version: '1.0.0',
      description: expect.stringMatching(/^Typed client for the Form-Funnel API/),
      type: 'module',
      exports: { '.': { import: esm, require: cjs }, './package.json': './package.json' },
      main: cjs.default,
      types: cjs.types,
      files: ['dist', 'README.md', 'CHANGELOG.md'],
      sideEffects: false,
      engines: { node: '>=20.11' },
      dependencies: { 'openapi-fetch': '~0.17.0' },
    });
  });

  it('when the repository has no engines, then neither has the package', () => {
    expect(clientManifest({ dependencies: rootManifest.dependencies }, '1.0.0')).not.toHaveProperty('engines');
  });

  it('when the repository no longer depends on openapi-fetch, then packing stops and names it', () => {
    expect(() => clientManifest({ dependencies: { express: '^5.1.0' } }, '1.0.0')).toThrow(
      'openapi-fetch is not a dependency in package.json',
    );
  });
});
