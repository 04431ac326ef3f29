/**
 * The partner client as a partner installs it: `npm run client:check` packs it, lints the tarball (publint,
 * are-the-types-wrong) and installs it, offline, into two new `npm init -y` projects, one left CommonJS (npm's
 * default) and one made `"type": "module"`, and loads it in each; it keeps the projects here. In each, a TypeScript
 * consumer (.cts, .mts) is then type-checked with tsc and its output run with node against a local HTTP server. The
 * CommonJS one runs with `--no-experimental-require-module`, as on a Node that cannot require an ES module, so it
 * passes only when `require` finds the package's CommonJS build.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { lintTarball } from '../../src/cli/check-client.js';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
/** The contract's version, read here independently of the code under test. */
const version = (YAML.parse(readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8')) as { info: { version: string } }).info.version;
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const workspace = mkdtempSync(join(tmpdir(), 'form-funnel-partners-'));
const projects = { commonjs: join(workspace, 'commonjs'), module: join(workspace, 'module') };
let tarball: string;
let check: { code: number; stdout: string; stderr: string };

/** The two pages of `GET /v1/forms` and a problem+json 404 for any one form: enough to cross the client's layers. */
function partnerApi(): Server {
  const send = (response: ServerResponse, status: number, type: string, body: unknown) =>
    response.writeHead(status, { 'Content-Type': type, 'X-Request-Id': 'req_1' }).end(JSON.stringify(body));
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://partner.test');
    if (request.headers.authorization !== 'Bearer svc_test_4eC39HqLyjWDarjtT1zdp7dc')
      return send(response, 401, 'application/problem+json', { code: 'invalid_api_key', message: 'no key', status: 401 });
    if (url.pathname === '/v1/forms') {
      const after = url.searchParams.get('starting_after');
      const data = after === null ? [{ object: 'form', id: 'form_1' }] : after === 'form_1' ? [{ object: 'form', id: 'form_2' }] : [];
      return send(response, 200, 'application/json', { object: 'list', data, has_more: after === null, request_id: 'req_1' });
    }
    send(response, 404, 'application/problem+json', {
      type: 'https://docs.form-funnel.example/errors/not_found',
      code: 'not_found',
      status: 404,
      title: 'Not found',
      message: `${url.pathname} does not exist`,
      request_id: 'req_1',
    });
  });
}
let server: Server;
let baseUrl: string;

/** The same partner code in both projects: in a .cts file tsc turns the import into require(). */
const partnerCode = () => `
import { createFormFunnelClient, type FormSummary, isFormFunnelError, paginate, unwrap } from '@form-funnel/client';

// No top-level await: a CommonJS module has none.
async function main(): Promise<void> {
  const api = createFormFunnelClient({ apiKey: 'svc_test_4eC39HqLyjWDarjtT1zdp7dc', baseUrl: '${baseUrl}', maxRetries: 0 });
  const ids: string[] = [];
  for await (const form of paginate(api, '/forms', { params: { query: { limit: 1 } } })) {
    const summary: FormSummary = form;
    ids.push(summary.id);
  }
  // @ts-expect-error only list operations can be paginated: the types came through, not any.
  paginate(api, '/me');
  let code: string | undefined;
  try {
    unwrap(await api.GET('/forms/{id}', { params: { path: { id: 'form_missing' } } }));
  } catch (error) {
    if (isFormFunnelError(error)) code = error.code;
  }
  console.log(JSON.stringify({ ids, code }));
}
void main();
`;

/** Type-checks `file` as the partner's only source, with the module rules of Node 16 (no require() of an ES module). */
async function compile(directory: string, file: string): Promise<string> {
  writeFileSync(
    join(directory, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: 'Node16',
        moduleResolution: 'Node16',
        strict: true,
        types: [],
        skipLibCheck: false,
        outDir: 'out',
      },
      files: [file],
    }),
  );
  const compiled = await execute(process.execPath, [tsc, '-p', directory]).catch((error: { stdout: string }) => error);
  return compiled.stdout;
}

beforeAll(async () => {
  server = partnerApi();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  check = await execute('npm', ['run', '-s', 'client:check', '--', '--keep', workspace], { cwd: root }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  tarball = join(root, /^packed (\S+)$/m.exec(check.stdout)?.[1] ?? 'not packed');
}, 180_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(workspace, { recursive: true, force: true });
});

describe('npm run client:check', () => {
  it('when the package is sound, then it packs, publint and attw pass, and each new project loads its own build', () => {
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout.trim().split('\n')).toEqual([
      `packed dist/form-funnel-client-${version}.tgz`,
      'ok     publint',
      'ok     attw',
      'ok     commonjs project: loads node_modules/@form-funnel/client/dist/cjs/src/client/index.js',
      'ok     module project: loads node_modules/@form-funnel/client/dist/esm/src/client/index.js',
    ]);
  });
});

// Concurrent: each packs and lints a small package of its own.
describe.concurrent('npm run client:check on a broken package', () => {
  /** A package of `files` packed with npm in a directory of its own; returns the tarball. */
  async function packed(name: string, files: Record<string, string>): Promise<string> {
    const directory = join(workspace, name);
    mkdirSync(directory, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(directory, file), text);
    const { stdout } = await execute('npm', ['pack', '--silent'], { cwd: directory });
    return join(directory, stdout.trim());
  }

  it('when a manifest names a missing file, or gives require ES module types, then publint and attw fail it and say why', async () => {
    const broken = await packed('broken', {
      'package.json': JSON.stringify({
        name: 'broken-client',
        version: '1.0.0',
        type: 'module',
        main: './missing.cjs',
        exports: { '.': { types: './index.d.ts', require: './index.cjs', default: './index.js' } },
      }),
      'index.js': 'export const a = 1;\n',
      'index.cjs': 'exports.a = 1;\n',
      'index.d.ts': 'export declare const a: number;\n',
    });
    const [publint, attw] = await lintTarball(root, broken);
    expect(publint).toMatchObject({ check: 'publint', ok: false, output: expect.stringContaining('missing.cjs') });
    expect(attw).toMatchObject({ check: 'attw', ok: false, output: expect.stringContaining('Masquerading as ESM') });
  });

  it('when a package has no types at all, then attw, which has nothing to check, does not pass it', async () => {
    const untyped = await packed('untyped', {
      'package.json': JSON.stringify({
        name: 'untyped-client',
        version: '1.0.0',
        type: 'module',
        exports: './index.js',
        engines: { node: '>=20' },
      }),
      'index.js': 'export const a = 1;\n',
    });
    const [publint, attw] = await lintTarball(root, untyped);
    expect(publint).toMatchObject({ check: 'publint', ok: true });
    expect(attw).toMatchObject({ check: 'attw', ok: false, output: expect.stringContaining('does not contain types') });
  });
});

describe('the packed client', () => {
  it('when packed, then the tarball is dist/form-funnel-client-<version>.tgz with an ES module and a CommonJS build of the client, and the generated types', async () => {
    expect(tarball).toBe(join(root, `dist/form-funnel-client-${version}.tgz`));
    const { stdout } = await execute('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    for (const format of ['esm', 'cjs']) {
      expect(files).toContain(`package/dist/${format}/package.json`);
      expect(files).toContain(`package/dist/${format}/src/client/index.js`);
      expect(files).toContain(`package/dist/${format}/src/client/index.d.ts`);
      expect(files).toContain(`package/dist/${format}/src/client/paginate.js`);
      expect(files).toContain(`package/dist/${format}/generated/openapi.d.ts`);
    }
    const outsideTheClient = files.filter(
      (file) =>
        !/^package\/dist\/(esm|cjs)\/src\/client\/[a-z-]+\.(js|d\.ts)$/.test(file) &&
        !/^package\/dist\/(esm|cjs)\/(package\.json|generated\/openapi\.d\.ts|src\/webhook-signature\.(js|d\.ts))$/.test(file) &&
        !['package/package.json', 'package/README.md', 'package/CHANGELOG.md'].includes(file),
    );
    expect(outsideTheClient).toEqual([]);
  });

  it('when installed, then its manifest names @form-funnel/client with openapi-fetch as the only dependency, import and require each with its build and types', () => {
    const installed = JSON.parse(readFileSync(join(projects.commonjs, 'node_modules/@form-funnel/client/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(installed).toMatchObject({ name: '@form-funnel/client', version, type: 'module' });
    expect(installed.files).toEqual(['dist', 'README.md', 'CHANGELOG.md']);
    expect(installed.exports).toEqual({
      '.': {
        import: { types: './dist/esm/src/client/index.d.ts', default: './dist/esm/src/client/index.js' },
        require: { types: './dist/cjs/src/client/index.d.ts', default: './dist/cjs/src/client/index.js' },
      },
      './package.json': './package.json',
    });
    const buildType = (format: string) =>
      JSON.parse(readFileSync(join(projects.commonjs, `node_modules/@form-funnel/client/dist/${format}/package.json`), 'utf8'));
    expect([buildType('esm'), buildType('cjs')]).toEqual([{ type: 'module' }, { type: 'commonjs' }]);
    expect(installed.dependencies).toEqual({ 'openapi-fetch': rootManifest.dependencies['openapi-fetch'] });
    expect(installed).not.toHaveProperty('devDependencies');
    expect(installed).not.toHaveProperty('scripts');
  });

  it('when installed, then it carries the client’s README and CHANGELOG, the CHANGELOG with a section for its version', () => {
    const packaged = (file: string) => readFileSync(join(projects.module, 'node_modules/@form-funnel/client', file), 'utf8');
    expect(packaged('README.md')).toBe(readFileSync(join(root, 'src/client/README.md'), 'utf8'));
    expect(packaged('CHANGELOG.md')).toBe(readFileSync(join(root, 'src/client/CHANGELOG.md'), 'utf8'));
    expect(packaged('CHANGELOG.md')).toMatch(new RegExp(`^## ${version.replaceAll('.', '\\.')}$`, 'm'));
  });
});

describe('in a CommonJS project (npm init -y)', () => {
  it('when a .cts file imports it, then it type-checks against the contract, compiles to require() and runs on the CommonJS build', async () => {
    expect(JSON.parse(readFileSync(join(projects.commonjs, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    writeFileSync(join(projects.commonjs, 'index.cts'), partnerCode());
    expect(await compile(projects.commonjs, 'index.cts')).toBe('');
    const output = join(projects.commonjs, 'out/index.cjs');
    expect(readFileSync(output, 'utf8')).toContain('require("@form-funnel/client")');
    const { stdout, stderr } = await execute(process.execPath, ['--no-experimental-require-module', output], { cwd: projects.commonjs });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ ids: ['form_1', 'form_2'], code: 'not_found' });
  });
});

describe('in an ES module project ("type": "module")', () => {
  it('when a .mts file imports it, then it type-checks against the contract and runs on the ES module build', async () => {
    writeFileSync(join(projects.module, 'index.mts'), partnerCode());
    expect(await compile(projects.module, 'index.mts')).toBe('');
    const output = join(projects.module, 'out/index.mjs');
    expect(readFileSync(output, 'utf8')).toContain("from '@form-funnel/client'");
    const { stdout, stderr } = await execute(process.execPath, [output], { cwd: projects.module });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ ids: ['form_1', 'form_2'], code: 'not_found' });
  });
});
