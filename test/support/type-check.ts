// Type-checks loose TypeScript files (README blocks, generated code samples) as a partner's module would be:
// with the repository's compiler options, `@form-funnel/client` resolving to src/client/ (the package
// `npm run client:pack` builds) and `./src/…` imports resolving as if the file sat at the repository root.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/**
 * Writes `directory`/tsconfig.json: the repository's compiler options, with `@form-funnel/client` resolving to
 * src/client/ as a partner's installed package would. tsx reads it too (`TSX_TSCONFIG_PATH`), to run the files.
 */
export function writePartnerTsconfig(directory: string, files: string[]): string {
  const config = join(directory, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: {
        noEmit: true,
        // Files without an import are modules too: top-level await, and no clash between files' names.
        moduleDetection: 'force',
        rootDirs: [root, directory],
        typeRoots: [join(root, 'node_modules/@types')],
        paths: { '@form-funnel/client': [join(root, 'src/client/index.ts')] },
      },
      include: [],
      files,
    }),
  );
  return config;
}

/** Type-checks the files (kept in `directory`); returns tsc's diagnostics, empty when they compile. */
export async function typeCheck(directory: string, files: string[]): Promise<string> {
  const config = writePartnerTsconfig(directory, files);
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  return execute(process.execPath, [tsc, '-p', config]).then(
    ({ stdout }) => stdout,
    (error: { stdout: string }) => error.stdout,
  );
}
