/**
 * `npm run stubs -- --update` as an implementer's project meets it over time: a template that changes between
 * versions of the generator, a project that links some of its files elsewhere, a manifest damaged by hand or by a
 * merge, and a directory whose name a shell would split.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStubs } from '../../src/cli/stubs.js';
import { bundleContract } from '../../src/stubs/contract-source.js';
import { generateStubs } from '../../src/stubs/generate.js';
import { ManifestError, manifestName } from '../../src/stubs/manifest.js';
import { LinkedPathError } from '../../src/stubs/project-files.js';
import type { OpenApiDocument } from '../../src/stubs/template/src/contract.js';
import { execute, repositoryRoot } from './stub-project.js';

let document: OpenApiDocument;
let scratch: string;
beforeAll(async () => {
  document = await bundleContract();
  scratch = mkdtempSync(join(tmpdir(), 'form-funnel-regenerate-'));
});
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

let count = 0;
/** A fresh stub project (no node_modules: nothing here runs it). */
async function newProject(name = 'project'): Promise<string> {
  count += 1;
  const out = join(scratch, `${count}-${name}`);
  await generateStubs({ out, document });
  return out;
}

/**
 * The stubs command with these arguments, run in this process on the contract bundled above: its exit code, stdout
 * and stderr. `npm run stubs` is the same function in a process of its own (one test below runs it that way).
 */
const stubsCommand = (...args: string[]) => runStubs(args, { document });

/** `npm run stubs -- …` as a person runs it, in a process of its own: exit code, stdout and stderr. */
async function npmRunStubs(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return execute('npm', ['run', '--silent', 'stubs', '--', ...args], { cwd: repositoryRoot }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const read = (out: string, path: string) => readFileSync(join(out, path), 'utf8');
const fileOf = (url: URL) => url.pathname;

/** A copy of the generator's template, as another version of the generator would ship it. */
function templateVersion(name: string, change: (dir: string) => void): URL {
  const dir = join(scratch, `template-${name}`);
  cpSync(new URL('../../src/stubs/template/', import.meta.url), dir, { recursive: true });
  change(dir);
  return pathToFileURL(`${dir}/`);
}
const appendTo = (dir: string, path: string, text: string) => writeFileSync(join(dir, path), `${read(dir, path)}${text}`);

describe('--update after the template changed', () => {
  it('when support files are still as generated, then they are refreshed, and only the ones the implementer edited are kept, update after update', async () => {
    const first = templateVersion('1', () => {});
    const out = join(scratch, 'template-change');
    await generateStubs({ out, document, templateDir: first });
    writeFileSync(join(out, 'README.md'), `${read(out, 'README.md')}\nOur deployment notes.\n`);

    // The next generator changes the pipeline, the problems and the README.
    const second = templateVersion('2', (dir) => {
      appendTo(dir, 'src/app.ts', '// pipeline, second version\n');
      appendTo(dir, 'src/problem.ts', '// problems, second version\n');
      appendTo(dir, 'README.md', '\nSecond version of the README.\n');
    });
    const report = await generateStubs({ out, update: true, document, templateDir: second });

    expect(report.keptFiles).toEqual(['README.md']);
    expect(report.written).toEqual(expect.arrayContaining(['src/app.ts', 'src/problem.ts']));
    expect(report.written).not.toContain('README.md');
    expect(report.written).not.toContain('src/auth.ts');
    expect(read(out, 'src/app.ts')).toBe(read(fileOf(second), 'src/app.ts'));
    expect(read(out, 'src/problem.ts')).toBe(read(fileOf(second), 'src/problem.ts'));
    expect(read(out, 'README.md')).toContain('Our deployment notes.');
    expect(read(out, 'README.md')).not.toContain('Second version');

    // Then the implementer edits the key lookup, and a third generator changes the pipeline and the key lookup again.
    writeFileSync(join(out, 'src/auth.ts'), `${read(out, 'src/auth.ts')}\n// Our key store.\n`);
    const third = templateVersion('3', (dir) => {
      appendTo(dir, 'src/app.ts', '// pipeline, third version\n');
      appendTo(dir, 'src/auth.ts', '// key lookup, third version\n');
      appendTo(dir, 'README.md', '\nThird version of the README.\n');
    });
    const again = await generateStubs({ out, update: true, document, templateDir: third });

    expect(again.keptFiles).toEqual(['README.md', 'src/auth.ts']);
    expect(read(out, 'src/app.ts')).toBe(read(fileOf(third), 'src/app.ts'));
    expect(read(out, 'src/app.ts')).not.toContain('second version');
    expect(read(out, 'src/problem.ts')).toBe(read(fileOf(third), 'src/problem.ts'));
    expect(read(out, 'src/auth.ts')).toContain('// Our key store.');
    expect(read(out, 'src/auth.ts')).not.toContain('third version');
    expect(read(out, 'README.md')).toContain('Our deployment notes.');
  });
});

describe('--update never writes through a symbolic link', () => {
  /** Moves `path` of the project out of it, to `elsewhere`, and leaves a link to it in its place. */
  function linkOut(out: string, path: string): string {
    const elsewhere = join(scratch, `linked-${count}-${path.replaceAll('/', '-')}`);
    renameSync(join(out, path), elsewhere);
    symlinkSync(elsewhere, join(out, path));
    return elsewhere;
  }

  it('when openapi/openapi.json is a link, then the command refuses with exit code 2, names the link, and writes nothing', async () => {
    const out = await newProject();
    const elsewhere = linkOut(out, 'openapi/openapi.json');
    const shared = '{"openapi": "3.1.0", "info": {"title": "Our shared copy"}}\n';
    writeFileSync(elsewhere, shared);
    // An update would write this file again: after a refusal it must still be missing.
    rmSync(join(out, 'src/generated/security.ts'));

    const { code, stdout, stderr } = await stubsCommand('--out', out, '--update');

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `Nothing was written to ${out}: openapi/openapi.json is a symbolic link (to ${elsewhere}). The stub generator ` +
        "writes only the project's own files, never what a link points to, so that regenerating cannot change a file " +
        'elsewhere. Replace each link with a copy of its file or directory (or remove it), then run again.\n',
    );
    expect(readFileSync(elsewhere, 'utf8')).toBe(shared);
    expect(lstatSync(join(out, 'openapi/openapi.json')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(out, 'src/generated/security.ts'))).toBe(false);
  });

  it.each([
    ['a support file still as generated', 'src/app.ts'],
    ['the handlers directory', 'src/handlers'],
    ['the manifest', manifestName],
  ])('when %s is a link, then the update refuses and what it points to is unchanged', async (_case, path) => {
    const out = await newProject();
    const elsewhere = linkOut(out, path);
    const before = lstatSync(elsewhere).isDirectory() ? read(elsewhere, 'index.ts') : readFileSync(elsewhere, 'utf8');
    // A newer contract and a newer template: the update has handlers, an index, support files and a manifest to write.
    const newer = structuredClone(document);
    newer.paths['/me_again'] = { get: { ...(newer.paths['/me']!.get as object), operationId: 'getMeAgain' } };
    const template = templateVersion(`linked-${count}`, (dir) => appendTo(dir, 'src/app.ts', '// pipeline, getMeAgain version\n'));

    const update = generateStubs({ out, update: true, document: newer, templateDir: template });

    await expect(update).rejects.toThrow(LinkedPathError);
    await expect(update).rejects.toThrow(`${path} is a symbolic link (to ${elsewhere})`);
    const after = lstatSync(elsewhere).isDirectory() ? read(elsewhere, 'index.ts') : readFileSync(elsewhere, 'utf8');
    expect(after).toBe(before);
    expect(after).not.toContain('getMeAgain');
  });

  it('when a path it would write is a directory, then the update refuses and names it', async () => {
    const out = await newProject();
    rmSync(join(out, 'src/generated/security.ts'));
    mkdirSync(join(out, 'src/generated/security.ts'));

    await expect(generateStubs({ out, update: true, document })).rejects.toThrow(
      `Nothing was written to ${out}: src/generated/security.ts is not a regular file.`,
    );
  });

  it('when a file it rewrites has its own permissions, then the rewritten file keeps them', async () => {
    const out = await newProject();
    chmodSync(join(out, 'openapi/openapi.json'), 0o640);

    const report = await generateStubs({ out, update: true, document });

    expect(report.written).toContain('openapi/openapi.json');
    expect(statSync(join(out, 'openapi/openapi.json')).mode & 0o777).toBe(0o640);
  });

  it('when a link points outside and is replaced by a copy, then the update writes the copy (the contract as given, unchanged by generating)', async () => {
    const out = await newProject();
    const elsewhere = linkOut(out, 'openapi/openapi.json');
    rmSync(join(out, 'openapi/openapi.json'));
    cpSync(elsewhere, join(out, 'openapi/openapi.json'));
    writeFileSync(elsewhere, 'kept\n');

    const report = await generateStubs({ out, update: true, document });

    expect(report.written).toContain('openapi/openapi.json');
    expect(lstatSync(join(out, 'openapi/openapi.json')).isFile()).toBe(true);
    expect(read(out, 'openapi/openapi.json')).toBe(`${JSON.stringify(document, null, 2)}\n`);
    expect(readFileSync(elsewhere, 'utf8')).toBe('kept\n');
  });
});

describe('a manifest the generator cannot use', () => {
  it.each([
    ['files is null', (manifest: Record<string, unknown>) => ({ ...manifest, files: null }), '/files must be object'],
    [
      'handlers is missing',
      ({ handlers: _handlers, ...manifest }: Record<string, unknown>) => manifest,
      "the manifest must have required property 'handlers'",
    ],
    ['examples is a string', (manifest: Record<string, unknown>) => ({ ...manifest, examples: 'yes' }), '/examples must be boolean'],
    [
      'a hash is a number',
      (manifest: Record<string, unknown>) => ({ ...manifest, files: { ...(manifest.files as object), 'src/app.ts': 42 } }),
      '/files/src~1app.ts must be string',
    ],
    ['it is an array', () => [], 'the manifest must be object'],
    [
      'two members are wrong',
      (manifest: Record<string, unknown>) => ({ ...manifest, examples: 'yes', files: null }),
      '/examples must be boolean; /files must be object',
    ],
  ])('when %s, then the update stops before writing anything and says what is wrong', async (_case, damage, issue) => {
    const out = await newProject();
    const manifestPath = join(out, manifestName);
    const damaged = `${JSON.stringify(damage(JSON.parse(readFileSync(manifestPath, 'utf8'))))}\n`;
    writeFileSync(manifestPath, damaged);
    rmSync(join(out, 'src/generated/security.ts'));

    const update = generateStubs({ out, update: true, document });

    await expect(update).rejects.toThrow(ManifestError);
    await expect(update).rejects.toThrow(
      `${manifestPath} is not a stub manifest the generator can use: ${issue}. Nothing was written. Restore the file from ` +
        'version control (or from a copy) and run again; it records which files and handlers are still as generated.',
    );
    expect(readFileSync(manifestPath, 'utf8')).toBe(damaged);
    expect(existsSync(join(out, 'src/generated/security.ts'))).toBe(false);
  });

  it('when the manifest is not JSON, then the update stops and says so', async () => {
    const out = await newProject();
    writeFileSync(join(out, manifestName), '{"files": ');

    await expect(generateStubs({ out, update: true, document })).rejects.toThrow(
      new ManifestError(
        `${join(out, manifestName)} is not a stub manifest the generator can use: it is not JSON (Unexpected end of JSON input). ` +
          'Nothing was written. Restore the file from version control (or from a copy) and run again; it records which files ' +
          'and handlers are still as generated.',
      ),
    );
  });

  it('when the manifest is not JSON, then `npm run stubs` says so and exits 2, not with a stack trace', async () => {
    const out = await newProject();
    writeFileSync(join(out, manifestName), '{"files": ');

    const { code, stdout, stderr } = await npmRunStubs('--out', out, '--update');

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      new RegExp(
        `^${join(out, manifestName).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a stub manifest the generator can use: it is not JSON \\(`,
      ),
    );
    expect(stderr).not.toMatch(/TypeError|SyntaxError|\n\s+at /);
  });

  it('when files is null, then the command names it with exit code 2 instead of a TypeError', async () => {
    const out = await newProject();
    const manifestPath = join(out, manifestName);
    writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(readFileSync(manifestPath, 'utf8')), files: null }));

    const { code, stderr } = await stubsCommand('--out', out, '--update');

    expect(code).toBe(2);
    expect(stderr).toContain(': /files must be object. Nothing was written.');
    expect(stderr).not.toContain('TypeError');
    expect(stderr).not.toContain('Cannot read properties');
  });
});

describe('the printed next command', () => {
  it("when the project's path holds spaces and a quote, then the Next: command is one the shell runs as printed", async () => {
    const parent = join(scratch, 'my projects');
    mkdirSync(parent);
    const out = join(parent, "Ana's server");

    const generated = await stubsCommand('--out', out);

    expect(generated.code).toBe(0);
    const next = /^Next: cd (.+) && npm install && npm start$/m.exec(generated.stdout);
    expect(next, generated.stdout).not.toBeNull();
    // The path as the printed command gives it to the shell, checked by the shell itself.
    const { stdout } = await execute('sh', ['-c', `cd ${next![1]} && pwd -P`]);
    expect(stdout.trim()).toBe(out);

    const updated = await stubsCommand('--out', out, '--update');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`Next: cd ${next![1]} && npm test`);
  });
});
