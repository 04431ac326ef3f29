import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Which layers each layer must not depend on: dependencies point from HTTP to domain to store, never back. */
const forbidden: Record<string, readonly string[]> = {
  'src/store': ['src/domain', 'src/http', 'src/client'],
  'src/domain': ['src/http', 'src/client'],
};

// Static imports and re-exports (`from '…'`, type-only ones included), side-effect imports and `import('…')`.
const specifierPattern = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importedPaths(source: string): string[] {
  return [...source.matchAll(specifierPattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** `file` and each layer are repository-relative with `/`; returns "file imports target" for each breach. */
function layerViolations(file: string, source: string): string[] {
  const layer = Object.keys(forbidden).find((prefix) => file.startsWith(`${prefix}/`));
  if (!layer) return [];
  return importedPaths(source)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) =>
      relative(root, resolve(root, dirname(file), specifier))
        .split(sep)
        .join('/'),
    )
    .filter((target) => forbidden[layer]!.some((banned) => target === banned || target.startsWith(`${banned}/`)))
    .map((target) => `${file} imports ${target}`);
}

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = `${directory}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('layering', () => {
  it('when the store and domain sources are scanned, then none imports a layer above it', () => {
    const files = Object.keys(forbidden).flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    const violations = files.flatMap((file) => layerViolations(file, readFileSync(join(root, file), 'utf8')));
    expect(violations).toEqual([]);
  });

  it('when a store file imports the domain (even type-only or dynamically), then the scan names the file and target', () => {
    const source = [
      "import type { Principal } from '../../domain/access.js';",
      "export { notFound } from '../../domain/errors.js';",
      "const app = await import('../../http/app.js');",
      "import { newId } from '../../ids.js';",
      "import Database from 'better-sqlite3';",
    ].join('\n');
    expect(layerViolations('src/store/sqlite/forms.ts', source)).toEqual([
      'src/store/sqlite/forms.ts imports src/domain/access.js',
      'src/store/sqlite/forms.ts imports src/domain/errors.js',
      'src/store/sqlite/forms.ts imports src/http/app.js',
    ]);
  });

  it('when a domain file imports the HTTP layer or the client, then the scan reports it; the store below is allowed', () => {
    const source = [
      "import { problem } from '../../http/problem.js';",
      "import { signWebhook } from '../../client/webhooks.js';",
      "import type { Store } from '../../store/types.js';",
    ].join('\n');
    expect(layerViolations('src/domain/oauth/tokens.ts', source)).toEqual([
      'src/domain/oauth/tokens.ts imports src/http/problem.js',
      'src/domain/oauth/tokens.ts imports src/client/webhooks.js',
    ]);
  });
});

/**
 * Locks taken in id order on PostgreSQL, in a form the scan can read: `ORDER BY <alias.>id FOR UPDATE`. Without
 * `COLLATE "C"` the order is the database's collation (en_US sorts `sub_b` before `sub_C`), while code that sorts ids
 * in JavaScript before locking them (a rescore batch) uses the bytes' order: two transactions would then lock the
 * same rows in different orders and could deadlock.
 */
function lockOrderViolations(file: string, source: string): string[] {
  const locks = /ORDER BY\s+((?:\w+\.)?id)\b(?!\s+COLLATE\s+"C")[^`]*?\bFOR\s+(?:NO KEY\s+)?(?:UPDATE|SHARE|KEY SHARE)/gi;
  return [...source.matchAll(locks)].map((match) => `${file}: ORDER BY ${match[1]} … FOR UPDATE/SHARE`);
}

describe('PostgreSQL lock order', () => {
  it('when the PostgreSQL store is scanned, then every lock taken in id order uses the bytes order (COLLATE "C")', () => {
    // src/store/sql: statements shared with SQLite, whose locks (`postgresLock`) PostgreSQL alone takes.
    const violations = ['src/store/postgres', 'src/store/sql']
      .flatMap(sourceFiles)
      .flatMap((file) => lockOrderViolations(file, readFileSync(join(root, file), 'utf8')));
    expect(violations).toEqual([]);
  });

  it('when a query locks in id order under the database collation, then the scan names it', () => {
    for (const query of [
      'SELECT * FROM t s ORDER BY s.id FOR UPDATE',
      'select * from t order by id asc limit 10 for update skip locked',
      'SELECT * FROM t ORDER BY id\n   FOR NO KEY UPDATE',
      'SELECT * FROM t ORDER BY id DESC FOR SHARE',
      "shared('SELECT * FROM t WHERE w = :w ORDER BY id', { postgresLock: 'FOR UPDATE' })",
    ])
      expect(lockOrderViolations('x.ts', query), query).toHaveLength(1);
    expect(lockOrderViolations('x.ts', 'SELECT * FROM t s ORDER BY s.id COLLATE "C" FOR UPDATE')).toEqual([]);
    expect(lockOrderViolations('x.ts', 'SELECT * FROM t ORDER BY identity FOR UPDATE')).toEqual([]);
  });
});

/**
 * The API and store projects run their files in one module graph per worker (vitest.config.ts `isolate: false`).
 * Vitest restores spies, stubbed globals and environment variables between files, but not module mocks (a `vi.mock`
 * of a module another file loaded first would silently not apply) nor fake timers.
 */
const leakingBetweenFiles = /\bvi\.(mock|doMock|unmock|doUnmock|useFakeTimers)\s*\(/g;
const sharedGraphDirectories = ['test/http', 'test/contract', 'test/e2e', 'test/conformance', 'test/hosted', 'test/store'];

/**
 * The `unit` project shares a module graph per worker too. Its files may fake timers only when every test ends with
 * them restored (`afterEach(() => { vi.useRealTimers(); })`); this file is left out, its examples being strings.
 */
const unitFiles = () => [
  ...readdirSync(join(root, 'test'))
    .filter((name) => name.endsWith('.test.ts') && name !== 'architecture.test.ts')
    .map((name) => `test/${name}`),
  ...['test/domain', 'test/mail', 'test/client', 'test/cli'].flatMap(sourceFiles),
  'test/docs/readme.test.ts',
];
const restoresTimersAfterEach = /\bafterEach\(\(\) => \{\s*vi\.useRealTimers\(\);?\s*\}\)/;

/** What `file` does that would leak into the next file of its worker; fake timers are allowed when `restored`. */
function leaksOf(file: string, source: string, { timersRestoredAllowed = false } = {}): string[] {
  return [...source.matchAll(leakingBetweenFiles)]
    .filter((match) => !(timersRestoredAllowed && match[1] === 'useFakeTimers' && restoresTimersAfterEach.test(source)))
    .map((match) => `${file}: ${match[0]}`);
}

describe('tests that share a module graph', () => {
  it('when the API and store projects are scanned, then no file mocks a module or fakes timers', () => {
    const found = sharedGraphDirectories.flatMap(sourceFiles).flatMap((file) => leaksOf(file, readFileSync(join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('when the unit project is scanned, then no file mocks a module, and a file that fakes timers restores them after each test', () => {
    const files = unitFiles();
    expect(files).toContain('test/rate-limit-refusals.test.ts');
    const found = files.flatMap((file) => leaksOf(file, readFileSync(join(root, file), 'utf8'), { timersRestoredAllowed: true }));
    expect(found).toEqual([]);
  });

  it('when a unit file fakes timers without restoring them after each test, then the scan names it', () => {
    const faking = "beforeEach(() => {\n  vi.useFakeTimers({ toFake: ['Date'] });\n});\n";
    expect(leaksOf('x.test.ts', faking, { timersRestoredAllowed: true })).toEqual(['x.test.ts: vi.useFakeTimers(']);
    expect(leaksOf('x.test.ts', `${faking}afterEach(() => {\n  vi.useRealTimers();\n});\n`, { timersRestoredAllowed: true })).toEqual([]);
    expect(leaksOf('x.test.ts', `${faking}afterEach(() => {\n  vi.useRealTimers();\n});\n`)).toEqual(['x.test.ts: vi.useFakeTimers(']);
    expect(
      leaksOf('x.test.ts', "vi.mock('../x.js');\nafterEach(() => {\n  vi.useRealTimers();\n});\n", { timersRestoredAllowed: true }),
    ).toEqual(['x.test.ts: vi.mock(']);
  });

  it('when a file mocks a module or fakes timers, then the scan names it', () => {
    for (const line of ["vi.mock('../x.js')", 'vi.doMock("y")', 'vi.useFakeTimers()', 'vi.unmock ("z")'])
      expect([...line.matchAll(leakingBetweenFiles)], line).toHaveLength(1);
    expect([...'vi.spyOn(limiter, "get")'.matchAll(leakingBetweenFiles)]).toEqual([]);
  });
});

/** The `unit` project starts no process (test/setup/no-processes.ts): a file that needs one runs in `processes`. */
describe('the unit project', () => {
  it('when a unit test file starts a process, then it is refused with the project to move the file to', async () => {
    const { execFile } = await import('node:child_process');
    expect(() => execFile(process.execPath, ['--version'])).toThrow(/unit project starts no process.*processes project/);
  });
});
