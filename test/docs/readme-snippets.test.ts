/**
 * Every ```ts block of the README compiles, so that what a partner or an implementer copies works. Each block is
 * its own module in a temporary directory, type-checked with the repository's compiler options; `rootDirs`
 * lets `./src/…` imports resolve as if the block sat at the repository root, and `@form-funnel/client` is the
 * package name of src/client/ (`npm run client:pack`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { typeCheck as typeCheckIn } from '../support/type-check.js';

const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
  code: match[1]!,
  line: readme.slice(0, match.index).split('\n').length + 1,
}));
const directory = mkdtempSync(join(tmpdir(), 'readme-snippets-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const typeCheck = (files: string[]): Promise<string> => typeCheckIn(directory, files);

describe('the README’s TypeScript', () => {
  it('when the README is read, then it has TypeScript blocks for the client, webhooks, local development and handlers', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks.some((block) => block.code.includes('paginate('))).toBe(true);
  });

  it('when every ```ts block is compiled on its own, then tsc reports nothing', async () => {
    const files = blocks.map((block) => {
      const file = join(directory, `readme-line-${block.line}.mts`);
      writeFileSync(file, block.code);
      return file;
    });
    expect(await typeCheck(files)).toBe('');
  });

  it('when a block does not compile, then the check reports it with the README line', async () => {
    const file = join(directory, 'readme-line-1.mts');
    writeFileSync(file, "import { paginate } from '@form-funnel/client';\nexport const x: number = paginate;\n");
    expect(await typeCheck([file])).toMatch(/readme-line-1\.mts\(2,14\): error TS2322/);
  });
});
