/**
 * Comments within the formatter's width. Biome wraps code at `lineWidth` (biome.json) but never rewraps a
 * comment, so a long comment line stays long until someone reads it sideways; this scan is the check the formatter
 * does not make. Code lines are the formatter's: it leaves a string, a template or a test's name whole when no
 * break fits, and that is its call.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const lineWidth = (JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } }).formatter.lineWidth;

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = `${directory}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** "file:line" for each comment line of `source` wider than `width` characters. */
function wideCommentLines(file: string, source: string, width: number): string[] {
  return source.split('\n').flatMap((line, index) => {
    const comment = /^\s*(\/\/|\/\*|\*)/.test(line);
    return comment && [...line].length > width ? [`${file}:${index + 1}`] : [];
  });
}

describe('comment width', () => {
  it('when src/ and test/ are scanned, then no comment line is wider than the formatter’s lineWidth', () => {
    const files = ['src', 'test'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => wideCommentLines(file, readFileSync(join(root, file), 'utf8'), lineWidth))).toEqual([]);
  });

  it('when a comment line is one character too wide, then the scan names it; code lines are left to the formatter', () => {
    const source = [`// ${'x'.repeat(8)}`, ` * ${'y'.repeat(7)}`, ` * ${'y'.repeat(8)}`, `const text = '${'z'.repeat(20)}';`].join('\n');
    expect(wideCommentLines('a.ts', source, 10)).toEqual(['a.ts:1', 'a.ts:3']);
  });
});
