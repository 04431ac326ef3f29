/**
 * Every ```ts block a reader may copy compiles: the README's, the client package's (src/client/README.md), the pages
 * under docs/, and the OpenAPI document's own descriptions (its introduction and the partner guides its tags hold,
 * inline or in `openapi/guides/*.md`). Each
 * block is its own module in a temporary directory, type-checked with the repository's compiler options;
 * `rootDirs` lets `./src/…` imports resolve as if the block sat at the repository root, and `@form-funnel/client`
 * is the package name of src/client/ (`npm run client:pack`). A fragment quoted to explain code (not meant to run
 * on its own) is fenced ```ts excerpt: highlighted as TypeScript, not compiled.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { typeCheck as typeCheckIn } from '../support/type-check.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Source {
  /** Where a reader finds the text: a file, or a place in the document. */
  name: string;
  text: string;
}

/** The document's descriptions that carry prose for readers: the introduction and every tag's. */
function documentDescriptions(): Source[] {
  const rootFile = 'openapi/openapi.yaml';
  const document = YAML.parse(read(rootFile)) as {
    info: { description: string };
    tags: Array<{ name: string; description: string | { $ref: string } }>;
  };
  return [
    { name: `${rootFile} info.description`, text: document.info.description },
    ...document.tags.map(({ name, description }) =>
      typeof description === 'string'
        ? { name: `${rootFile} tag ${name}`, text: description }
        : { name: join(dirname(rootFile), description.$ref), text: read(join(dirname(rootFile), description.$ref)) },
    ),
  ];
}

const sources: Source[] = [
  { name: 'README.md', text: read('README.md') },
  { name: 'src/client/README.md', text: read('src/client/README.md') },
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => ({ name: join('docs', file), text: read(join('docs', file)) })),
  ...documentDescriptions(),
];

const blocks = sources.flatMap(({ name, text }) =>
  [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
    code: match[1]!,
    where: `${name}:${text.slice(0, match.index).split('\n').length + 1}`,
  })),
);
const directory = mkdtempSync(join(tmpdir(), 'readme-snippets-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const typeCheck = (files: string[]): Promise<string> => typeCheckIn(directory, files);
/** A file name that says where the block comes from, so that tsc's report points the reader there. */
const fileNameOf = (where: string) => `${where.replace(/[^A-Za-z0-9]+/g, '-')}.mts`;

describe('the TypeScript a reader copies', () => {
  it('when the guides are read, then the client, pagination, webhooks, handlers and exports have blocks', () => {
    const places = new Set(blocks.map((block) => block.where.split(':')[0]));
    expect(places).toContain('docs/implementing.md');
    expect(places).toContain('openapi/guides/getting-started.md');
    expect(places).toContain('openapi/guides/integrations.md');
    expect(places).toContain('openapi/guides/submissions.md');
    expect(places).toContain('src/client/README.md');
    expect(blocks.some((block) => block.code.includes('paginate('))).toBe(true);
    expect(blocks.some((block) => block.code.includes('verifyWebhookSignature('))).toBe(true);
    expect(blocks.some((block) => block.code.includes('exportSubmissions('))).toBe(true);
  });

  it('when the document is bundled, then each guide file is its tag’s description in the published document', () => {
    // Built by the docs project's global setup; Redocly inlines a description's $ref to a Markdown file.
    const bundled = YAML.parse(read('dist/openapi.yaml')) as { tags: Array<{ name: string; description: string }> };
    const rootDocument = YAML.parse(read('openapi/openapi.yaml')) as { tags: Array<{ name: string; description: unknown }> };
    const guides = rootDocument.tags.filter((tag) => typeof tag.description !== 'string');
    expect(guides.map((tag) => tag.name)).toEqual(expect.arrayContaining(['Getting started', 'Submissions', 'Integrations']));
    for (const { name, description } of guides) {
      const file = join('openapi', (description as { $ref: string }).$ref);
      expect(bundled.tags.find((tag) => tag.name === name)?.description, name).toBe(read(file));
    }
  });

  it('when every ```ts block is compiled on its own, then tsc reports nothing', async () => {
    const files = blocks.map((block) => {
      const file = join(directory, fileNameOf(block.where));
      writeFileSync(file, block.code);
      return file;
    });
    expect(await typeCheck(files)).toBe('');
  });

  it('when a block does not compile, then the check reports it with the file and line it comes from', async () => {
    const file = join(directory, fileNameOf('openapi/guides/submissions.md:12'));
    writeFileSync(file, "import { paginate } from '@form-funnel/client';\nexport const x: number = paginate;\n");
    expect(await typeCheck([file])).toMatch(/openapi-guides-submissions-md-12\.mts\(2,14\): error TS2322/);
  });
});
