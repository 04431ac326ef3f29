import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { variables } from '../../src/config.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const scripts = Object.keys(
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

describe('the README', () => {
  it('when the server reads an environment variable, then the README documents it', () => {
    expect(variables.map((variable) => variable.name).filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });

  it('when package.json has a script, then the README names it', () => {
    expect(scripts.filter((script) => !readme.includes(script === 'start' || script === 'test' ? `npm ${script}` : script))).toEqual([]);
  });

  it('when a newcomer reads it, then it shows the two commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });
});
