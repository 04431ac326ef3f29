/**
 * The stub project's package.json. Its dependencies carry the version ranges this repository pins, read from its
 * own package.json, so the stubs run on the versions the reference server is tested with.
 */
import { readFileSync } from 'node:fs';

const ours = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const rangeOf = (name: string): string => {
  const range = ours.dependencies[name] ?? ours.devDependencies[name];
  if (!range) throw new Error(`package.json does not list ${name}, which the stub project needs.`);
  return range;
};

const pick = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, rangeOf(name)]));

export function stubPackageJson(): string {
  const project = {
    name: 'form-funnel-server',
    version: '0.1.0',
    private: true,
    description: 'A Form-Funnel API server, generated from the contract',
    type: 'module',
    engines: { node: '>=20.11 <21 || >=22' },
    scripts: {
      // exec: npm's signal reaches node itself (a shell in between would die of it and leave the server running).
      start: 'exec node --import tsx src/server.ts',
      test: 'tsc --noEmit -p . && node --import tsx --test test/*.test.ts',
      typecheck: 'tsc --noEmit -p .',
      generate: 'openapi-typescript openapi/openapi.json -o src/generated/openapi.d.ts',
    },
    dependencies: pick(['express', 'express-openapi-validator', 'selfsigned', 'tsx']),
    devDependencies: pick(['@types/express', '@types/node', 'openapi-typescript', 'typescript']),
  };
  return `${JSON.stringify(project, null, 2)}\n`;
}
