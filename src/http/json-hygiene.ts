/**
 * Checks on a parsed request body that no schema can express, made before the schema validator sees it:
 * how deep it nests, and strings that are not text. Both walks are iterative, so no body can exhaust the
 * stack here; the bound on depth then protects every recursive consumer after it (the validator's `$ref`
 * recursion into conditions, the domain's checks, JSON.stringify for the idempotency fingerprint).
 */
import type { ValidationIssue } from '../contract.js';
import { jsonPointer } from '../domain/validation-issue.js';
import { maxBodyDepth } from './documented-limits.js';

/** Issues beyond this many are not worth walking for: the client has a class of problem to fix. */
const maxIssues = 20;

// With the `u` flag a well-formed surrogate pair is one code point, so only lone surrogates match.
const loneSurrogate = /\p{Cs}/u;

interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  key: string | number | undefined;
}

function pointerOf(visit: Visit): string {
  const segments: Array<string | number> = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) segments.push(at.key!);
  let pointer = jsonPointer(...segments.reverse());
  // ValidationIssue.pointer holds 512 characters: cut at a segment boundary so the pointer stays valid.
  while (pointer.length > 512) pointer = pointer.slice(0, pointer.lastIndexOf('/'));
  return pointer;
}

/** `at` gives the pointer: it is built only for a string that has an issue, not for every string of every body. */
function textIssue(text: string, at: () => string, what: string): ValidationIssue | undefined {
  if (text.includes('\u0000')) {
    return { location: 'body', pointer: at(), code: 'control_character', message: `${what} must not contain U+0000 (NUL)` };
  }
  if (loneSurrogate.test(text)) {
    return {
      location: 'body',
      pointer: at(),
      code: 'lone_surrogate',
      message: `${what} must be Unicode text: it has an unpaired surrogate (\\uD800-\\uDFFF)`,
    };
  }
  return undefined;
}

/** The issues (up to a few) with the body's nesting depth, its strings and its property names. */
export function checkJsonBody(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Visit[] = [{ value: body, depth: 0, parent: undefined, key: undefined }];
  while (stack.length > 0 && issues.length < maxIssues) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      const issue = textIssue(value, () => pointerOf(visit), 'a string');
      if (issue) issues.push(issue);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > maxBodyDepth) {
      issues.push({
        location: 'body',
        pointer: pointerOf(visit),
        code: 'max_depth',
        message: `objects and arrays nest at most ${maxBodyDepth} levels deep`,
      });
      continue;
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index]!;
      const child: Visit = { value: item, depth, parent: visit, key };
      if (typeof key === 'string') {
        const issue = textIssue(key, () => pointerOf(child), 'a property name');
        if (issue) issues.push(issue);
      }
      stack.push(child);
    }
  }
  return issues;
}
