/**
 * The server's modules as `npm start` runs them: src/ compiled into build/ (`npm run build`, incremental, so a
 * build already up to date costs about a second). A bench that measures the server against plain Express loads
 * the server from here; under tsx every named closure costs an extra `Object.defineProperty` that compiled code
 * does not pay.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
let built = false;

/** `compiled<typeof import('../../src/http/app.js')>('http/app.js')`: the module under src/, from build/. */
export async function compiled<T>(path: string): Promise<T> {
  if (!built) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    built = true;
  }
  return (await import(pathToFileURL(join(root, 'build', path)).href)) as T;
}
