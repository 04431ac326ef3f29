/**
 * Building `ValidationIssue`s: every domain check reports through here, so pointers are escaped the same way
 * everywhere and only documented codes can be used.
 */
import type { ValidationIssue } from '../contract.js';

/**
 * The issue codes the domain emits. `ValidationIssue.code` in the spec documents the vocabulary;
 * test/domain/spec-sync.test.ts fails when this list names a code the spec does not.
 */
export const DOMAIN_ISSUE_CODES = [
  // form definitions (422 invalid_form)
  'duplicate_step_id',
  'duplicate_ref',
  'duplicate_option',
  'duplicate_rule_id',
  'duplicate_grade',
  'invalid_range',
  // conditions, in logic rules (422 invalid_form_logic) and scoring rules (422 invalid_form)
  'unknown_step',
  'unknown_field',
  'unknown_option',
  'forward_reference',
  'backward_jump',
  'logic_cycle',
  'operator_mismatch',
  'condition_too_deep',
  // form definitions over the size limit (422 form_too_large)
  'definition_too_large',
  // answers (422 invalid_answers)
  'required',
  'not_visited',
  'type',
  'unique_items',
  'invalid_email',
  'invalid_phone',
  'invalid_url',
  'invalid_date',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'too_few_selections',
  'too_many_selections',
  'consent_required',
  // logos (422 invalid_image)
  'invalid_image',
] as const;

export type DomainIssueCode = (typeof DOMAIN_ISSUE_CODES)[number];

/** RFC 6901: `~` becomes `~0` and `/` becomes `~1` inside a segment. */
export function jsonPointer(...segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function bodyIssue(pointer: string, code: DomainIssueCode, message: string, field?: string): ValidationIssue {
  return { location: 'body', pointer, code, message, ...(field === undefined ? {} : { field }) };
}
