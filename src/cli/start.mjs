// @ts-check
/**
 * `npm start`: brings the compiled server up to date, then runs it in this same process.
 *
 * Plain JavaScript, because it runs before anything is compiled. Two outputs can be stale, each rebuilt only then:
 * - build/ (the server as JavaScript, `npm run build`): rebuilt when a file under src/ or a tsconfig is newer than
 *   the stamp the last successful build left. tsc's incremental no-op alone costs about a second, the walk a few
 *   milliseconds.
 * - dist/hosted/ (the hosted form page's browser files, `npm run build:page`): rebuilt when a file under src/ is newer
 *   than its manifest, since the page bundles the domain's rules.
 * - dist/ (the bundled document and the docs page, `npm run docs`): rebuilt when the content of their inputs changed
 *   or an output is not the one the last build wrote. Content, not modification times, because a checkout or a
 *   test run that re-bundles touches the files without changing them.
 * `--help` needs only the code. A cluster worker starts from this file too (node:cluster forks the main module):
 * the primary has already built everything, so it goes straight to the server.
 *
 * The builders run quietly, in process groups of their own, so SIGTERM or Ctrl-C during a build stops the whole
 * build (a builder's own children included) and nothing is started. Once the server is imported, its handlers
 * take over.
 */
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '../..');
const buildDir = join(root, 'build');
const buildStamp = join(buildDir, '.built');
const distDir = join(root, 'dist');
const docsStamp = join(distDir, '.docs-inputs.json');
const pageManifest = join(distDir, 'hosted', 'manifest.json');

/** What the compiled server depends on besides the files under src/. */
const codeConfigFiles = ['tsconfig.json', 'tsconfig.build.json'];
/** What `npm run docs` reads: the document, the bundling configuration and the scripts that post-process the outputs. */
const docsInputs = [
  'openapi',
  'redocly.yaml',
  'src/code-samples.ts',
  'src/code-samples',
  'src/cli/code-samples.ts',
  'src/cli/docs-offline.ts',
  'docs/images',
];
/** What `npm run docs` writes and the server reads. */
const docsOutputs = ['dist/openapi.json', 'dist/openapi.yaml', 'dist/docs/index.html'];

/** @param {string} path @returns {string[]} every file under path (or path itself), sorted */
function filesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((name) => join(path, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

function codeIsStale() {
  if (!existsSync(buildStamp)) return true;
  const builtAt = statSync(buildStamp).mtimeMs;
  const inputs = [
    ...filesUnder(join(root, 'src')).filter((file) => file.endsWith('.ts')),
    ...codeConfigFiles.map((file) => join(root, file)),
  ];
  return inputs.some((file) => statSync(file).mtimeMs > builtAt);
}

function pageIsStale() {
  if (!existsSync(pageManifest)) return true;
  const builtAt = statSync(pageManifest).mtimeMs;
  return filesUnder(join(root, 'src')).some((file) => /\.(ts|css)$/.test(file) && statSync(file).mtimeMs > builtAt);
}

/** @param {string} file */
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The content of every docs input, and the scripts and the Redocly version that turn them into the outputs. */
function docsInputsHash() {
  const hash = createHash('sha256');
  for (const file of docsInputs.flatMap((input) => filesUnder(join(root, input)))) {
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  }
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const redocly = createRequire(import.meta.url)('@redocly/cli/package.json').version;
  hash.update(JSON.stringify([scripts.bundle, scripts.docs, scripts['docs:page'], redocly]));
  return hash.digest('hex');
}

/** @param {string} inputs */
function docsAreCurrent(inputs) {
  if (!existsSync(docsStamp)) return false;
  const stamp = JSON.parse(readFileSync(docsStamp, 'utf8'));
  return (
    stamp.inputs === inputs &&
    docsOutputs.every((output) => existsSync(join(root, output)) && stamp.outputs[output] === sha256(join(root, output)))
  );
}

/** @type {import('node:child_process').ChildProcess | null} */
let builder = null;
/** @type {NodeJS.Signals | null} */
let stoppedBy = null;
/** @param {NodeJS.Signals} signal */
const stopBuild = (signal) => {
  stoppedBy = signal;
  if (builder?.pid) process.kill(-builder.pid, signal);
};

/**
 * Runs a builder in a process group of its own and resolves with whether it succeeded. Its output is shown only
 * when it fails: a successful build has nothing to say, and the Redocly CLI prints banners on every run (a Node 20
 * deprecation notice that no setting turns off). A signal to this process is passed to the builder's whole group.
 * @param {string} command @param {string[]} args
 */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    builder = child;
    /** @type {Buffer[]} */
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => {
      process.stderr.write(`${command}: ${error.message}\n`);
      resolve(false);
    });
    child.once('close', (code) => {
      builder = null;
      const succeeded = code === 0 && stoppedBy === null;
      if (!succeeded && stoppedBy === null) process.stderr.write(Buffer.concat(output));
      resolve(succeeded);
    });
  });
}

async function buildCode() {
  const startedAt = new Date();
  // Without the stamp the outputs cannot be trusted (a removed build/, an interrupted build): tsc's incremental
  // state would skip files whose output is gone, so it starts afresh.
  if (!existsSync(buildStamp)) rmSync(join(buildDir, '.tsbuildinfo'), { force: true });
  process.stderr.write('Compiling the server (npm run build)...\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  if (!(await run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')]))) return false;
  // Dated from before the build: a file saved while tsc ran is newer, so the next start compiles again.
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(buildStamp, '');
  utimesSync(buildStamp, startedAt, startedAt);
  return true;
}

/** @param {string} inputs */
async function buildDocs(inputs) {
  process.stderr.write('The document changed: bundling it and building the docs page (npm run docs)...\n');
  const npm = process.env.npm_execpath;
  const built = npm ? await run(process.execPath, [npm, 'run', '-s', 'docs']) : await run('npm', ['run', '-s', 'docs']);
  if (!built) return false;
  const outputs = Object.fromEntries(docsOutputs.map((output) => [output, sha256(join(root, output))]));
  writeFileSync(docsStamp, `${JSON.stringify({ inputs, outputs }, null, 2)}\n`);
  return true;
}

async function prepare() {
  if (codeIsStale() && !(await buildCode())) return 'compiling the server (npm run build)';
  if (process.argv.includes('--help') || process.argv.includes('-h')) return null;
  if (pageIsStale()) {
    process.stderr.write('Building the hosted form page (npm run build:page)...\n');
    if (!(await run(process.execPath, ['--import', 'tsx', join(root, 'src/cli/build-page.ts')])))
      return 'building the hosted form page (npm run build:page)';
  }
  const inputs = docsInputsHash();
  if (!docsAreCurrent(inputs) && !(await buildDocs(inputs))) return 'building the reference docs (npm run docs)';
  return null;
}

if (cluster.isPrimary) {
  process.on('SIGTERM', stopBuild);
  process.on('SIGINT', stopBuild);
  const failed = await prepare();
  process.off('SIGTERM', stopBuild);
  process.off('SIGINT', stopBuild);
  if (stoppedBy) {
    // Stopped during a build: exit as the signal would have ended the process.
    process.kill(process.pid, stoppedBy);
  } else if (failed) {
    process.stderr.write(`npm start stopped: ${failed} failed (output above).\n`);
    process.exit(1);
  } else {
    await import('../../build/server.js');
  }
} else {
  await import('../../build/server.js');
}
