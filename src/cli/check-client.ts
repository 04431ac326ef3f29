/**
 * `npm run client:check`: is the partner client publishable as it stands? It packs the package (`packClient`), lints
 * the tarball with publint (strict: warnings fail too) and with are-the-types-wrong under the Node 16 profile (the
 * types each of `import` and `require` resolves to, and the bundler's), then installs it into a new CommonJS and a new
 * ES module project, offline, and loads it in each as a partner would. Exits 1 with every failure when one fails.
 *
 *   npm run client:check                     the checks, in a temporary directory removed afterwards
 *   npm run client:check -- --keep <dir>     the same, leaving the two projects in <dir>/commonjs and <dir>/module
 *
 * test/client/pack.test.ts runs it (so `npm test` does) and goes on in the projects it keeps: it type-checks and runs
 * a partner's TypeScript there.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { CLIENT_PACKAGE_NAME, packClient } from './pack-client.js';

const run = promisify(execFile);

export type ConsumerType = 'commonjs' | 'module';

/** One check's outcome: `output` is the tool's own report when it failed. */
export interface CheckResult {
  check: string;
  ok: boolean;
  output: string;
}

/** A dev dependency's command, from its manifest's `bin` (publint's `exports` hide its package.json from require). */
function binOf(root: string, pkg: string, bin: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return join(root, 'node_modules', pkg, manifest.bin[bin]!);
}

/** Runs a tool and turns its exit status into a result; the tool's output is kept whichever way it went. */
async function outcome(check: string, file: string, args: string[], cwd: string): Promise<CheckResult> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    return { check, ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { check, ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` || failed.message };
  }
}

/**
 * publint (`--strict`) and are-the-types-wrong (`--profile node16`, without fetching @types packages) on a packed
 * tarball, side by side; both read the file only, offline.
 */
export async function lintTarball(root: string, tarball: string): Promise<CheckResult[]> {
  const [publint, attw] = await Promise.all([
    outcome('publint', process.execPath, [binOf(root, 'publint', 'publint'), 'run', tarball, '--strict'], root),
    outcome(
      'attw',
      process.execPath,
      [binOf(root, '@arethetypeswrong/cli', 'attw'), tarball, '--profile', 'node16', '--no-definitely-typed', '--no-emoji', '--no-color'],
      root,
    ),
  ]);
  // attw passes a package without types (it has nothing to check); a typed client without them is broken.
  const untyped = attw.ok && attw.output.includes('This package does not contain types');
  return [publint, untyped ? { ...attw, ok: false } : attw];
}

/**
 * A partner's new project (`npm init -y`, made `"type": "module"` for `module`) with the tarball installed. The
 * package's dependencies are copied in from this repository first, as a partner's lockfile would hold them, so that
 * `npm install` runs offline.
 */
export async function newConsumerProject(root: string, directory: string, type: ConsumerType, tarball: string): Promise<void> {
  mkdirSync(directory, { recursive: true });
  for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers']) {
    cpSync(join(root, 'node_modules', dependency), join(directory, 'node_modules', dependency), { recursive: true, dereference: true });
  }
  await run('npm', ['init', '-y'], { cwd: directory });
  if (type === 'module') await run('npm', ['pkg', 'set', 'type=module'], { cwd: directory });
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: directory });
}

/** The build each kind of project must load: `require` the CommonJS one, `import` the ES module one. */
export const expectedBuild: Record<ConsumerType, string> = {
  commonjs: `node_modules/${CLIENT_PACKAGE_NAME}/dist/cjs/src/client/index.js`,
  module: `node_modules/${CLIENT_PACKAGE_NAME}/dist/esm/src/client/index.js`,
};

/**
 * Loads the package in the project the way its kind does (`require` without require(esm), as on a Node that lacks
 * it; `import`), and checks that it loaded the matching build and that its exports are there.
 */
export async function loadsInConsumer(directory: string, type: ConsumerType): Promise<CheckResult> {
  const script =
    type === 'commonjs'
      ? `const client = require('${CLIENT_PACKAGE_NAME}'); console.log(require.resolve('${CLIENT_PACKAGE_NAME}'), typeof client.createFormFunnelClient, typeof client.createPublicClient, typeof client.paginate);`
      : `const client = await import('${CLIENT_PACKAGE_NAME}'); console.log(new URL(import.meta.resolve('${CLIENT_PACKAGE_NAME}')).pathname, typeof client.createFormFunnelClient, typeof client.createPublicClient, typeof client.paginate);`;
  const flags = type === 'commonjs' ? ['--no-experimental-require-module', '-e'] : ['--input-type=module', '-e'];
  const loaded = await outcome(`${type} project`, process.execPath, [...flags, script], directory);
  if (!loaded.ok) return loaded;
  const expected = `${join(directory, expectedBuild[type])} function function function`;
  return loaded.output.trim() === expected
    ? { ...loaded, output: `loads ${expectedBuild[type]}` }
    : { ...loaded, ok: false, output: `expected "${expected}", got "${loaded.output.trim()}"` };
}

/** Every check, in order; the tarball's path and the results. */
export async function checkClient(root: string, workspace: string): Promise<{ tarball: string; results: CheckResult[] }> {
  const tarball = await packClient(root);
  const types: ConsumerType[] = ['commonjs', 'module'];
  const [lints, loads] = await Promise.all([
    lintTarball(root, tarball),
    Promise.all(
      types.map(async (type) => {
        const directory = join(workspace, type);
        await newConsumerProject(root, directory, type, tarball);
        return loadsInConsumer(directory, type);
      }),
    ),
  ]);
  return { tarball, results: [...lints, ...loads] };
}

/** What the command prints, and its exit code: 1 when any check failed, each failure followed by its tool's report. */
export function report(tarball: string, results: CheckResult[]): { text: string; exitCode: number } {
  const lines = [`packed ${tarball}`];
  for (const { check, ok, output } of results) {
    if (!ok) lines.push(`FAILED ${check}`, output.trimEnd());
    else lines.push(`ok     ${check}${check.endsWith(' project') ? `: ${output}` : ''}`);
  }
  return { text: `${lines.join('\n')}\n`, exitCode: results.every((result) => result.ok) ? 0 : 1 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { keep: { type: 'string' } } });
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const workspace = values.keep === undefined ? mkdtempSync(join(tmpdir(), 'form-funnel-client-check-')) : resolve(values.keep);
  try {
    const { tarball, results } = await checkClient(root, workspace);
    const { text, exitCode } = report(relative(root, tarball), results);
    process.stdout.write(text);
    process.exitCode = exitCode;
  } finally {
    if (values.keep === undefined) rmSync(workspace, { recursive: true, force: true });
  }
}
