import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variables } from '../../src/config.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const configuration = read('docs/operating/configuration.md');
/** The README and every page under docs/: where a script may be explained. */
const pages = [
  readme,
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => read(join('docs', file))),
];
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** The configuration table's rows: the variables a row names (first cell) and its default (second cell). */
const rows = configuration
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) => line.split('|').map((cell) => cell.trim()))
  .map(([, names, fallback]) => ({ names: [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1]!), fallback: fallback! }));

describe('the README and the operator docs', () => {
  it('when the server reads an environment variable, then the configuration page has a row for it', () => {
    const documented = new Set(rows.flatMap((row) => row.names));
    expect(variables.map((variable) => variable.name).filter((name) => !documented.has(name))).toEqual([]);
  });

  it('when a variable has a default, then its row states the one the server uses', () => {
    const stated = variables
      .filter((variable) => variable.default !== '')
      .map((variable) => [variable.name, rows.find((row) => row.names.includes(variable.name))?.fallback]);
    expect(stated).toEqual(
      variables.filter((variable) => variable.default !== '').map((variable) => [variable.name, `\`${variable.default}\``]),
    );
  });

  it('when the configuration page names a variable, then the server reads it', () => {
    const read = new Set(variables.map((variable) => variable.name));
    expect(rows.flatMap((row) => row.names).filter((name) => !read.has(name))).toEqual([]);
  });

  it('when package.json has a script, then the README or a page under docs/ names it', () => {
    const named = (script: string) =>
      pages.some(
        (page) =>
          page.includes(script === 'start' || script === 'test' ? `npm ${script}` : `\`${script}\``) || page.includes(`npm run ${script}`),
      );
    expect(scripts.filter((script) => !named(script))).toEqual([]);
  });

  it('when a newcomer reads it, then it shows the two commands and fits the front door', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('when a page links to another file of the repository, then that file exists', () => {
    const files = [
      'README.md',
      ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => join('docs', file)),
    ];
    const broken = files
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        [...read(file).matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)].map((match) => ({ file, target: join(file, '..', match[1]!) })),
      )
      .filter(({ target }) => !existsSync(join(root, target)));
    expect(broken).toEqual([]);
  });

  it('when a page names a file or directory of the repository in code, then it exists', () => {
    const files = [
      'README.md',
      ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => join('docs', file)),
    ];
    const named = files
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        [...read(file).matchAll(/`((?:src|test|openapi|generated|docs|patches)\/[\w./{}-]*)`/g)].map((match) => ({
          file,
          path: match[1]!,
        })),
      );
    // The README's map alone names a dozen files: finding none would mean the pattern broke, not that all is well.
    expect(named.length).toBeGreaterThan(12);
    expect(named.filter(({ path }) => !existsSync(join(root, path)))).toEqual([]);
  });
});
