/**
 * How the stub generator writes into a project: only the project's own regular files, never through a symbolic
 * link. A link inside the project (`openapi/openapi.json` pointing at a shared copy of the contract, a linked
 * `src/`) would otherwise make a regeneration overwrite a file outside the project. Every path is checked before
 * the first write, so a refused run writes nothing; each file is then written to a temporary file beside it and
 * renamed over the old one, which replaces a name, never what a link names, and never leaves a half-written file.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** Thrown when a path the generator would write is a link (or not a regular file); nothing was written. */
export class LinkedPathError extends Error {}

const lstatOrUndefined = (path: string) => {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** What stands in the way of writing `path` (relative to `out`) as a regular file of the project, if anything. */
function obstacle(out: string, path: string): string | undefined {
  const parts = path.split('/');
  for (let index = 1; index <= parts.length; index += 1) {
    const relative = parts.slice(0, index).join('/');
    const stat = lstatOrUndefined(join(out, relative));
    if (!stat) return undefined;
    if (stat.isSymbolicLink()) return `${relative} is a symbolic link (to ${readlinkSync(join(out, relative))})`;
    const last = index === parts.length;
    if (!last && !stat.isDirectory()) return `${relative} is not a directory`;
    if (last && !stat.isFile()) return `${relative} is not a regular file`;
  }
  return undefined;
}

/** Refuses, before anything is written, when any of `paths` would be written through a link. */
export function assertWritable(out: string, paths: Iterable<string>): void {
  const obstacles = [...new Set(paths)].map((path) => obstacle(out, path)).filter((found): found is string => found !== undefined);
  if (obstacles.length === 0) return;
  throw new LinkedPathError(
    `Nothing was written to ${out}: ${[...new Set(obstacles)].join('; ')}. The stub generator writes only the project's ` +
      'own files, never what a link points to, so that regenerating cannot change a file elsewhere. Replace each link ' +
      'with a copy of its file or directory (or remove it), then run again.',
  );
}

/** Writes `text` to `path` (relative to `out`) by renaming a temporary file over it: never through a link. */
export function writeProjectFile(out: string, path: string, text: string): void {
  const target = join(out, ...path.split('/'));
  mkdirSync(dirname(target), { recursive: true });
  const mode = lstatOrUndefined(target)?.mode;
  const temporary = `${dirname(target)}${sep}.${randomBytes(6).toString('hex')}.stubs-tmp`;
  try {
    writeFileSync(temporary, text, { flag: 'wx', mode: mode === undefined ? 0o666 : mode & 0o777 });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
