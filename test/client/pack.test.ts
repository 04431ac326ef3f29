/**
 * The partner client as a partner installs it: `npm run client:pack`, then the tarball installed into an empty
 * project, an import type-checked with tsc and run with node. openapi-fetch is copied into that project first
 * (it is what the lockfile of a partner's project would hold), so that the install runs offline.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const project = mkdtempSync(join(tmpdir(), 'form-funnel-partner-'));
let tarball: string;

beforeAll(async () => {
  const { stdout } = await execute('npm', ['run', '-s', 'client:pack'], { cwd: root });
  tarball = stdout.trim();
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  for (const name of ['openapi-fetch', 'openapi-typescript-helpers']) {
    cpSync(join(root, 'node_modules', name), join(project, 'node_modules', name), { recursive: true, dereference: true });
  }
  await execute('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });
}, 90_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

const partnerCode = `
import { createFormFunnelClient, FormFunnelError, type FormSummary, paginate, unwrap } from '@form-funnel/client';

const page = { object: 'list', data: [{ object: 'form', id: 'form_1' }], has_more: false, request_id: 'req_1' };
const api = createFormFunnelClient({
  apiKey: 'svc_test_4eC39HqLyjWDarjtT1zdp7dc',
  fetch: async () => new Response(JSON.stringify(page), { status: 200, headers: { 'Content-Type': 'application/json' } }),
});
const ids: string[] = [];
for await (const form of paginate(api, '/forms', { params: { query: { limit: 100 } } })) {
  const summary: FormSummary = form;
  ids.push(summary.id);
}
// @ts-expect-error only list operations can be paginated: the types came through, not any.
paginate(api, '/me');
console.log(JSON.stringify({ ids, unwrap: typeof unwrap, error: FormFunnelError.name }));
`;

describe('npm run client:pack', () => {
  it('when packed, then the tarball is dist/form-funnel-client-<version>.tgz with the client, its declarations and the generated types only', async () => {
    expect(tarball).toBe(join(root, `dist/form-funnel-client-${version}.tgz`));
    const { stdout } = await execute('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/src/client/index.js');
    expect(files).toContain('package/dist/src/client/index.d.ts');
    expect(files).toContain('package/dist/src/client/paginate.js');
    expect(files).toContain('package/dist/generated/openapi.d.ts');
    const outsideTheClient = files.filter(
      (file) =>
        !/^package\/dist\/src\/client\/[a-z-]+\.(js|d\.ts)$/.test(file) &&
        !['package/package.json', 'package/README.md', 'package/dist/generated/openapi.d.ts'].includes(file) &&
        !/^package\/dist\/src\/webhook-signature\.(js|d\.ts)$/.test(file),
    );
    expect(outsideTheClient).toEqual([]);
  });

  it('when installed, then its manifest names @form-funnel/client with openapi-fetch as the only dependency', () => {
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@form-funnel/client/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(installed).toMatchObject({ name: '@form-funnel/client', version, type: 'module' });
    expect(installed.dependencies).toEqual({ 'openapi-fetch': rootManifest.dependencies['openapi-fetch'] });
    expect(installed).not.toHaveProperty('devDependencies');
    expect(installed).not.toHaveProperty('scripts');
  });

  it('when a partner imports it, then the import type-checks against the contract and runs in node', async () => {
    writeFileSync(join(project, 'index.ts'), partnerCode);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: [],
          skipLibCheck: false,
          outDir: 'out',
        },
        files: ['index.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const compiled = await execute(process.execPath, [tsc, '-p', project]).catch((error: { stdout: string }) => error);
    expect(compiled.stdout).toBe('');
    const { stdout } = await execute(process.execPath, [join(project, 'out/index.js')], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ ids: ['form_1'], unwrap: 'function', error: 'FormFunnelError' });
  });
});
