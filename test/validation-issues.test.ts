import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../src/contract.js';
import { withoutNullBranches } from '../src/http/validation.js';

const issue = (pointer: string, code: string, message: string): ValidationIssue => ({ location: 'body', pointer, code, message });
const mustBeNull = (pointer: string) => issue(pointer, 'type', 'must be null');
const oneOf = (pointer: string) => issue(pointer, 'one_of', 'must match exactly one schema in oneOf');

describe('issues of a nullable member', () => {
  const body = { ending: { title: 'Thanks', redirect_url: 'http://acme.example' }, folder_id: 12, welcome: null };

  it('when a value that is not null fails its schema, then only what is wrong with it is reported', () => {
    const pattern = issue('/ending/redirect_url', 'pattern', 'must match pattern "^https://"');
    const reported = [pattern, mustBeNull('/ending/redirect_url'), oneOf('/ending/redirect_url'), mustBeNull('/ending'), oneOf('/ending')];
    expect(withoutNullBranches(reported, body)).toEqual([pattern]);
  });

  it('when a null value is reported as not null, or a one_of stands alone, then it is kept', () => {
    const alone = [mustBeNull('/welcome'), oneOf('/folder_id')];
    expect(withoutNullBranches(alone, body)).toEqual(alone);
  });

  it('when the precise issue is about a sibling, another location or an outer value, then the one_of stays', () => {
    const sibling = issue('/ending-2', 'type', 'must be string');
    const query = { ...issue('/ending', 'type', 'must be string'), location: 'query' as const };
    const outer = issue('', 'required', "must have required property 'name'");
    const reported = [oneOf('/ending'), sibling, query, outer];
    expect(withoutNullBranches(reported, body)).toEqual(reported);
  });

  it('when "must be null" is not a body type issue, then it is kept: only the validator’s null branch is dropped', () => {
    const inQuery = { ...mustBeNull('/ending'), location: 'query' as const };
    const otherKeyword = issue('/ending', 'const', 'must be null');
    expect(withoutNullBranches([inQuery, otherKeyword], body)).toEqual([inQuery, otherKeyword]);
  });

  it('when a type issue other than "must be null" names a value that is not null, then it is kept', () => {
    const reported = [issue('/folder_id', 'type', 'must be string'), oneOf('/folder_id')];
    expect(withoutNullBranches(reported, body)).toEqual([reported[0]]);
  });
});
