/**
 * Facts the domain must share with the OpenAPI document. The domain cannot read YAML at run time, so the
 * few numbers and words it needs are constants; these tests fail as soon as they drift from the spec.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_ISSUES } from '../../src/domain/errors.js';
import { SCHEMA_DEFAULTS } from '../../src/domain/forms/field-defaults.js';
import { MAX_CONDITION_DEPTH } from '../../src/domain/logic/check-condition.js';
import { DOMAIN_ISSUE_CODES } from '../../src/domain/validation-issue.js';
import { componentFile, schemaProperty } from '../support/openapi-files.js';

/**
 * Codes the domain needs that ValidationIssue.code does not list yet. Each must be added to the spec's
 * description; the test below fails once one is listed, so this array shrinks to empty.
 */

describe('the domain agrees with the OpenAPI document', () => {
  it('when a field property has a schema default, then the domain falls back to the same value', () => {
    expect(SCHEMA_DEFAULTS.short_text.max_length).toBe(schemaProperty('ShortTextField', 'max_length').default);
    expect(SCHEMA_DEFAULTS.long_text.max_length).toBe(schemaProperty('LongTextField', 'max_length').default);
    expect(SCHEMA_DEFAULTS.rating.scale).toBe(schemaProperty('RatingField', 'scale').default);
    expect(schemaProperty('ChoiceOption', 'score').default).toBe(0);
    expect(schemaProperty('NumberField', 'integer').default).toBe(false);
    expect(schemaProperty('ShortTextField', 'required').default).toBe(false);
  });

  it('when errors are listed in a problem, then at most ProblemDetails.errors.maxItems are kept', () => {
    expect(MAX_REPORTED_ISSUES).toBe(schemaProperty('ProblemDetails', 'errors').maxItems);
  });

  it('when conditions nest, then the limit is the one Condition describes', () => {
    expect(componentFile('schemas', 'Condition').description).toContain(`at most ${MAX_CONDITION_DEPTH} levels deep`);
  });

  it('when the domain reports an issue code, then ValidationIssue.code documents it ', () => {
    const description = schemaProperty('ValidationIssue', 'code').description ?? '';
    const documented = new Set([...description.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    const undocumented = DOMAIN_ISSUE_CODES.filter((code) => !documented.has(code));
    expect(undocumented).toEqual([]);
  });
});
