/**
 * Semantic validation of a form definition, after the request has matched the schema. Issues come in two
 * groups because the API reports them under two codes: `invalid_form` for the definition itself (steps,
 * fields, scoring) and `invalid_form_logic` for the branching rules.
 */
import type { ValidationIssue } from '../../contract.js';
import { unprocessable } from '../errors.js';
import { checkLogicRules } from '../logic/check-logic-rules.js';
import type { FormDefinition } from '../schema-types.js';
import { checkScoring } from '../scoring/check-scoring.js';
import { checkSteps } from './check-steps.js';

export interface FormDefinitionIssues {
  definitionIssues: ValidationIssue[];
  logicIssues: ValidationIssue[];
}

export function validateFormDefinition(definition: FormDefinition): FormDefinitionIssues {
  return {
    definitionIssues: [...checkSteps(definition.steps), ...checkScoring(definition)],
    logicIssues: checkLogicRules(definition),
  };
}

/**
 * Throws 422 `invalid_form` when the definition has issues, else 422 `invalid_form_logic` when the logic
 * has. Definition issues win: logic checks resolve steps and fields by their first occurrence, so with
 * duplicates present their findings could mislead.
 */
export function assertValidFormDefinition(definition: FormDefinition): void {
  const { definitionIssues, logicIssues } = validateFormDefinition(definition);
  if (definitionIssues.length > 0) throw unprocessable('invalid_form', definitionIssues);
  if (logicIssues.length > 0) throw unprocessable('invalid_form_logic', logicIssues);
}
