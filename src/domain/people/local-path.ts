/**
 * Where a page may send a person next (`next`, after signing in): a path on this service only. Anything a browser
 * could read as another origin is refused: `//evil.example`, `/\evil.example` (browsers treat `\` as `/`), a scheme,
 * control characters or spaces (which browsers strip before parsing).
 */
const maxLength = 2000;

export function localPath(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length === 0 || next.length > maxLength) return undefined;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return undefined;
  if ([...next].some((character) => character <= ' ' || character === '\u007f')) return undefined;
  // What the browser will make of it, resolved against a stand-in origin: it must stay on that origin.
  const base = 'https://self.invalid';
  try {
    return new URL(next, base).origin === base ? next : undefined;
  } catch {
    return undefined;
  }
}
