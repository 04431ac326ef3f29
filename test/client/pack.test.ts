/**
 * The partner client as a partner installs it: `npm run client:pack`, then the tarball installed into two new
 * `npm init -y` projects, one left CommonJS (npm's default) and one made `"type": "module"`. In each, a TypeScript
 * consumer (.cts, .mts) is type-checked with tsc and its output run with node against a local HTTP server. The
 * CommonJS one runs with `--no-experimental-require-module`, as on a Node that cannot require an ES module, so it
 * passes only when `require` finds the package's CommonJS build. openapi-fetch is copied into each project
 * first (it is what the lockfile of a partner's project would hold), so that the install runs offline.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const workspace = mkdtempSync(join(tmpdir(), 'form-funnel-partners-'));
const projects = { commonjs: join(workspace, 'commonjs'), module: join(workspace, 'module') };
let tarball: string;

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

async function newPartnerProject(directory: string, type: 'commonjs' | 'module'): Promise<void> {
  cpSync(join(root, 'node_modules/openapi-fetch'), join(directory, 'node_modules/openapi-fetch'), { recursive: true, dereference: true });
  cpSync(join(root, 'node_modules/openapi-typescript-helpers'), join(directory, 'node_modules/openapi-typescript-helpers'), {
    recursive: true,
    dereference: true,
  });
  await execute('npm', ['init', '-y'], { cwd: directory });
  if (type === 'module') await execute('npm', ['pkg', 'set', 'type=module'], { cwd: directory });
  await execute('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: directory });
}

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
  const { stdout } = await execute('npm', ['run', '-s', 'client:pack'], { cwd: root });
  tarball = stdout.trim();
  await Promise.all([newPartnerProject(projects.commonjs, 'commonjs'), newPartnerProject(projects.module, 'module')]);
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(workspace, { recursive: true, force: true });
});

describe('npm run client:pack', () => {
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
        !['package/package.json', 'package/README.md'].includes(file),
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

  it('when plain JavaScript requires it, then require resolves to the CommonJS build', async () => {
    writeFileSync(
      join(projects.commonjs, 'index.js'),
      "const client = require('@form-funnel/client');\nconsole.log(require.resolve('@form-funnel/client'), typeof client.paginate);\n",
    );
    const { stdout } = await execute(process.execPath, ['--no-experimental-require-module', 'index.js'], { cwd: projects.commonjs });
    expect(stdout.trim()).toBe(`${join(projects.commonjs, 'node_modules/@form-funnel/client/dist/cjs/src/client/index.js')} function`);
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

  it('when plain JavaScript imports it, then import resolves to the ES module build', async () => {
    writeFileSync(
      join(projects.module, 'index.js'),
      "const client = await import('@form-funnel/client');\nconsole.log(import.meta.resolve('@form-funnel/client'), typeof client.paginate);\n",
    );
    const { stdout } = await execute(process.execPath, ['index.js'], { cwd: projects.module });
    expect(stdout.trim()).toBe(`file://${join(projects.module, 'node_modules/@form-funnel/client/dist/esm/src/client/index.js')} function`);
  });
});
