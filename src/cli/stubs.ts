/**
 * `npm run stubs -- --out DIR [--examples] [--update]`: writes a standalone server project generated from the
 * contract (see docs/implement-yourself.md), or regenerates one after a contract change. Exit code 0 when written,
 * 2 when nothing was written (a wrong option, a directory that is not empty or not a stub project, an unusable
 * manifest, a path in the project that is a symbolic link).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateStubs, type StubOptions, type StubReport } from '../stubs/generate.js';
import { shellWord } from './admin-invocation.js';

const usage = `Usage: npm run stubs -- --out DIR [--examples] [--update [--no-examples]]

  --out DIR      the project to write (a new or empty directory, or with --update an existing stub project)
  --examples     handlers answer their operation's documented example instead of 501
  --update       regenerate: new operations get handlers, nothing you changed is overwritten
  --no-examples  with --update, new and untouched handlers answer 501 again (--update keeps the project's kind)

Exit code: 0 written; 2 nothing written (a wrong option, a directory that is not empty or not a stub project, a
.stubs.json it cannot use, or a path it would write that is a symbolic link: it never writes through one).`;

function describe(report: StubReport, update: boolean): string {
  const lines = [`${update ? 'Regenerated' : 'Generated'} the stub project in ${report.out} (${report.written.length} files written).`];
  if (report.addedHandlers.length > 0) lines.push(`Handlers added for new operations: ${report.addedHandlers.join(', ')}.`);
  if (report.keptHandlers.length > 0) lines.push(`Handlers you changed, kept as they are: ${report.keptHandlers.join(', ')}.`);
  if (report.keptFiles.length > 0) lines.push(`Files you changed, kept as they are: ${report.keptFiles.join(', ')}.`);
  for (const { operationId, file } of report.disappeared) {
    lines.push(`The contract no longer has ${operationId}: delete its handler from ${file}.`);
  }
  if (report.withoutExample.length > 0) {
    lines.push(`No documented example, so these answer 501: ${report.withoutExample.join(', ')}.`);
  }
  // A command to paste: the path as one shell word, whatever spaces or quotes it holds.
  lines.push(`Next: cd ${shellWord(report.out)} && ${update ? 'npm test' : 'npm install && npm start'}`);
  return lines.join('\n');
}

/** What a run printed, and its exit code. */
export interface StubsOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The command with its arguments, as `npm run stubs -- …` runs it below. `document` stands in for the contract
 * bundled from openapi/, so that tests of the command's answers need not bundle it for each run.
 */
export async function runStubs(args: string[], { document }: Pick<StubOptions, 'document'> = {}): Promise<StubsOutcome> {
  try {
    const { values } = parseArgs({
      args,
      options: {
        out: { type: 'string' },
        examples: { type: 'boolean' },
        'no-examples': { type: 'boolean' },
        update: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
    if (values.help) return { code: 0, stdout: `${usage}\n`, stderr: '' };
    if (!values.out) throw new Error(`--out is required. ${usage}`);
    const examples = values['no-examples'] ? false : values.examples;
    const report = await generateStubs({ out: values.out, examples, update: values.update, document });
    return { code: 0, stdout: `${describe(report, values.update ?? false)}\n`, stderr: '' };
  } catch (error) {
    return { code: 2, stdout: '', stderr: `${(error as Error).message}\n` };
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { code, stdout, stderr } = await runStubs(process.argv.slice(2));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}
