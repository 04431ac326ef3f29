/**
 * The caches of shared records take only values `deepFreeze` froze (src/frozen.ts): the compiler, run on a module
 * that hands a row cache a record nobody froze, refuses it. test/frozen.test.ts marks the same mistakes for the
 * project's own type check.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeCheck } from '../support/type-check.js';

describe('the row caches, type-checked', () => {
  const cacheOf = (load: string) => `import { deepFreeze } from './src/frozen.js';
import { rowCaches } from './src/store/sqlite/row-cache.js';
export const read = (db: Parameters<typeof rowCaches>[0]) =>
  rowCaches(db).create<{ id: string }>(['forms'], { rows: 10 }).get('a', () => ${load});
void deepFreeze;
`;

  it('when a cache is handed a record nobody froze, then the code does not compile; frozen, it does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frozen-types-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(join(dir, 'unfrozen.ts'), cacheOf("({ id: 'a' })"));
    writeFileSync(join(dir, 'frozen.ts'), cacheOf("deepFreeze({ id: 'a' })"));
    const diagnostics = await typeCheck(dir, ['unfrozen.ts', 'frozen.ts']);
    expect(diagnostics).toMatch(/unfrozen\.ts\(4,\d+\): error TS2322: .*frozenBrand/);
    expect(diagnostics).not.toMatch(/(^|\/)frozen\.ts\(/m);
  });
});
