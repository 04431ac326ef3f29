/**
 * `npm run client:pack`: builds the installable partner client, `dist/form-funnel-client-<version>.tgz`, the
 * package `@form-funnel/client`. It holds src/client/ (and the signature scheme it shares with the server)
 * compiled twice, as ES modules in dist/esm and as CommonJS in dist/cjs, each with its declarations and the
 * generated contract types they refer to, and one dependency, openapi-fetch. `import` loads the one, `require`
 * the other (the manifest's `exports` conditions), so the client works in a CommonJS project on every Node the
 * engines field allows, including those that cannot require an ES module. The server, the tests and the dev
 * dependencies stay out: the package is staged in a temporary directory holding only those files, then packed
 * there with `npm pack`, with the package's README.md and CHANGELOG.md (src/client/).
 *
 * The package's version is the contract's `info.version` (openapi/openapi.yaml): a partner reads from it which
 * document the types come from. Packing refuses a version the changelog has no entry for.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import YAML from 'yaml';

const run = promisify(execFile);

export const CLIENT_PACKAGE_NAME = '@form-funnel/client';
/** What the client needs at run time; every other package of the repository is the server's or a tool. */
const RUNTIME_DEPENDENCIES = ['openapi-fetch'] as const;

interface RootManifest {
  engines?: Record<string, string>;
  dependencies: Record<string, string>;
}

/** The two builds, each in dist/<format>, each with a package.json giving Node and TypeScript its module type. */
const builds = {
  esm: { tsconfig: 'src/client/tsconfig.build.json', type: 'module' },
  cjs: { tsconfig: 'src/client/tsconfig.cjs.json', type: 'commonjs' },
} as const;
type ModuleFormat = keyof typeof builds;

/** The contract's `info.version`, which the package carries as its own. */
export function contractVersion(rootDocument: string): string {
  const version = (YAML.parse(rootDocument) as { info?: { version?: unknown } } | null)?.info?.version;
  if (typeof version !== 'string' || version === '') throw new Error('openapi/openapi.yaml has no info.version');
  return version;
}

/** Throws unless the changelog has a `## <version>` section: every version a partner installs says what it changed. */
export function assertChangelogCovers(changelog: string, version: string): void {
  const headings = [...changelog.matchAll(/^## (\S+)/gm)].map((match) => match[1]);
  if (!headings.includes(version)) {
    throw new Error(`src/client/CHANGELOG.md has no "## ${version}" section for the contract's info.version ${version}: add one`);
  }
}

/** The package's manifest, derived from the repository's (dependency ranges, engines) and the contract (version). */
export function clientManifest(root: RootManifest, version: string): Record<string, unknown> {
  const dependencies = Object.fromEntries(
    RUNTIME_DEPENDENCIES.map((name) => {
      const range = root.dependencies[name];
      if (range === undefined) throw new Error(`${name} is not a dependency in package.json`);
      return [name, range];
    }),
  );
  const entry = (format: ModuleFormat) => ({
    types: `./dist/${format}/src/client/index.d.ts`,
    default: `./dist/${format}/src/client/index.js`,
  });
  return {
    name: CLIENT_PACKAGE_NAME,
    version,
    description:
      'Typed client for the Form-Funnel API: openapi-fetch with the contract’s types, retries, idempotency keys, ' +
      'pagination and webhook verification',
    type: 'module',
    exports: { '.': { import: entry('esm'), require: entry('cjs') }, './package.json': './package.json' },
    // For resolvers that predate `exports` (TypeScript's node10, old bundlers): the CommonJS build.
    main: entry('cjs').default,
    types: entry('cjs').types,
    files: ['dist', 'README.md', 'CHANGELOG.md'],
    sideEffects: false,
    ...(root.engines && { engines: root.engines }),
    dependencies,
  };
}

/** Builds the tarball into `<root>/dist` and returns its path. */
export async function packClient(root: string): Promise<string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as RootManifest;
  const version = contractVersion(readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8'));
  assertChangelogCovers(readFileSync(join(root, 'src/client/CHANGELOG.md'), 'utf8'), version);
  const staging = mkdtempSync(join(tmpdir(), 'form-funnel-client-'));
  try {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await Promise.all(
      Object.entries(builds).map(async ([format, build]) => {
        const out = join(staging, 'dist', format);
        await run(process.execPath, [tsc, '-p', join(root, build.tsconfig), '--outDir', out], { cwd: root });
        writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: build.type })}\n`);
        // tsc emits no declaration file for a declaration file it reads; the compiled ones import it by this path.
        mkdirSync(join(out, 'generated'), { recursive: true });
        cpSync(join(root, 'generated/openapi.d.ts'), join(out, 'generated/openapi.d.ts'));
      }),
    );
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify(clientManifest(manifest, version), null, 2)}\n`);
    for (const file of ['README.md', 'CHANGELOG.md']) cpSync(join(root, 'src/client', file), join(staging, file));
    const destination = join(root, 'dist');
    mkdirSync(destination, { recursive: true });
    const { stdout } = await run(npmCommand(), [...npmArgs(), 'pack', '--json', '--pack-destination', destination], { cwd: staging });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
    if (packed === undefined) throw new Error('npm pack reported no tarball');
    return join(destination, packed.filename);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

// Under `npm run`, npm's own CLI is at npm_execpath; elsewhere the `npm` on the PATH.
const npmCommand = () => (process.env.npm_execpath ? process.execPath : 'npm');
const npmArgs = () => (process.env.npm_execpath ? [process.env.npm_execpath] : []);

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tarball = await packClient(fileURLToPath(new URL('../../', import.meta.url)));
  process.stdout.write(`${tarball}\n`);
}
