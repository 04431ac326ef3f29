/**
 * Facts the domain must share with the OpenAPI document. The domain cannot read YAML at run time, so the
 * few numbers and words it needs are constants; these tests fail as soon as they drift from the spec.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MAX_REPORTED_ISSUES } from '../../src/domain/errors.js';
import { MAX_DEFINITION_BYTES } from '../../src/domain/forms/definition-size.js';
import { SCHEMA_DEFAULTS } from '../../src/domain/forms/field-defaults.js';
import { KEPT_VERSIONS } from '../../src/domain/forms/service.js';
import { MAX_CONDITION_DEPTH } from '../../src/domain/logic/check-condition.js';
import { DOMAIN_ISSUE_CODES } from '../../src/domain/validation-issue.js';

const openapiFile = (path: string): Record<string, any> =>
  parse(readFileSync(fileURLToPath(new URL(`../../openapi/${path}.yaml`, import.meta.url)), 'utf8'));
const schema = (name: string): Record<string, any> => openapiFile(`components/schemas/${name}`);

/**
 * Codes the domain needs that ValidationIssue.code does not list yet. Each must be added to the spec's
 * description; the test below fails once one is listed, so this array shrinks to empty.
 */

describe('the domain agrees with the OpenAPI document', () => {
  it('when a field property has a schema default, then the domain falls back to the same value', () => {
    expect(SCHEMA_DEFAULTS.short_text.max_length).toBe(schema('ShortTextField').properties.max_length.default);
    expect(SCHEMA_DEFAULTS.long_text.max_length).toBe(schema('LongTextField').properties.max_length.default);
    expect(SCHEMA_DEFAULTS.rating.scale).toBe(schema('RatingField').properties.scale.default);
    expect(schema('ChoiceOption').properties.score.default).toBe(0);
    expect(schema('NumberField').properties.integer.default).toBe(false);
    expect(schema('ShortTextField').properties.required.default).toBe(false);
  });

  it('when errors are listed in a problem, then at most ProblemDetails.errors.maxItems are kept', () => {
    expect(MAX_REPORTED_ISSUES).toBe(schema('ProblemDetails').properties.errors.maxItems);
  });

  it('when conditions nest, then the limit is the one Condition describes', () => {
    expect(schema('Condition').description).toContain(`at most ${MAX_CONDITION_DEPTH} levels deep`);
  });

  it('when a form definition is measured, then the limit is the one createForm, updateForm and FormVersionSummary state', () => {
    expect(schema('FormVersionSummary').properties.definition_bytes.maximum).toBe(MAX_DEFINITION_BYTES);
    expect(openapiFile('paths/forms').post.description).toContain(`at most ${MAX_DEFINITION_BYTES} bytes`);
    expect(openapiFile('paths/forms_{id}').patch.description).toContain(`at most ${MAX_DEFINITION_BYTES} bytes`);
    expect(schema('ErrorCode').description).toContain(`larger than ${MAX_DEFINITION_BYTES} bytes`);
  });

  it('when versions are pruned, then the number kept is the one listFormVersions and getFormVersion state', () => {
    expect(openapiFile('paths/forms_{id}_versions').get.description).toContain(`The latest ${KEPT_VERSIONS} versions are kept`);
    expect(openapiFile('paths/forms_{id}_versions_{version}').get.description).toContain(`The latest ${KEPT_VERSIONS} versions are kept`);
  });

  it('when the domain reports an issue code, then ValidationIssue.code documents it ', () => {
    const description: string = schema('ValidationIssue').properties.code.description;
    const documented = new Set([...description.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    const undocumented = DOMAIN_ISSUE_CODES.filter((code) => !documented.has(code));
    expect(undocumented).toEqual([]);
  });
});
