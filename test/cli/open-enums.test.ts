/** The gate's open enums: a new value of a listed enum passes, a removed one is still shown to Optic. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseOpenEnums, withoutOpenEnumAdditions } from '../../src/cli/open-enums.js';

const doc = (errorCodes: string[], plans: string[]) => ({
  openapi: '3.1.0',
  components: { schemas: { ErrorCode: { type: 'string', enum: errorCodes }, Plan: { type: 'string', enum: plans } } },
});
const schemas = (value: Record<string, unknown>) => (value.components as { schemas: Record<string, { enum: string[] }> }).schemas;

describe('withoutOpenEnumAdditions', () => {
  it('when an open enum gains a value and loses one, then Optic sees only the loss; other enums are untouched', () => {
    const base = doc(['slug_taken', 'last_admin'], ['free', 'pro']);
    const head = doc(['slug_taken', 'precondition_failed'], ['free', 'pro', 'team']);
    const shown = schemas(withoutOpenEnumAdditions(base, head, ['ErrorCode']));
    expect(shown.ErrorCode!.enum).toEqual(['slug_taken']);
    expect(shown.Plan!.enum).toEqual(['free', 'pro', 'team']);
    expect(schemas(head).ErrorCode!.enum).toEqual(['slug_taken', 'precondition_failed']);
  });

  it('when a property listed as Schema.property gains a value inline, then Optic sees only the baseline values', () => {
    const target = (types: string[]) => ({
      components: {
        schemas: { AuditTarget: { type: 'object', properties: { type: { type: 'string', enum: types }, id: { type: 'string' } } } },
      },
    });
    const shown = withoutOpenEnumAdditions(target(['form', 'folder']), target(['form', 'integration']), ['AuditTarget.type']);
    const properties = (shown.components as { schemas: { AuditTarget: { properties: Record<string, { enum?: string[] }> } } }).schemas
      .AuditTarget.properties;
    expect(properties.type!.enum).toEqual(['form']);
    expect(properties.id).toEqual({ type: 'string' });
  });

  it('when the reviewed list is read, then it names schemas; a malformed one is refused', () => {
    expect(parseOpenEnums(readFileSync('openapi/baseline/open-enums.yaml', 'utf8'))).toEqual([
      'ErrorCode',
      'EventType',
      'AuditEventType',
      'AuditTarget.type',
    ]);
    expect(() => parseOpenEnums('open: ErrorCode')).toThrow(/a list of schema names/);
  });
});
