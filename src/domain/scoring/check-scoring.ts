/**
 * Consistency of `scoring` (422 `invalid_form`): rules name existing fields and options with fitting
 * operators, rule ids are unique, and grades are unambiguous.
 */
import type { ValidationIssue } from '../../contract.js';
import { locateFields } from '../forms/form-index.js';
import { checkCondition } from '../logic/check-condition.js';
import type { FormDefinition } from '../schema-types.js';
import { bodyIssue, jsonPointer } from '../validation-issue.js';

export function checkScoring(definition: FormDefinition): ValidationIssue[] {
  const { rules, grades } = definition.scoring;
  const fields = locateFields(definition.steps);
  const issues: ValidationIssue[] = [];

  const seenRuleIds = new Set<string>();
  rules.forEach((rule, ruleIndex) => {
    const at = jsonPointer('scoring', 'rules', ruleIndex);
    if (seenRuleIds.has(rule.id)) {
      issues.push(bodyIssue(`${at}/id`, 'duplicate_rule_id', `Another scoring rule already has the id \`${rule.id}\`.`));
    }
    seenRuleIds.add(rule.id);
    // Scoring runs once all answers are in, so no forward-reference check applies.
    issues.push(...checkCondition(rule.when, `${at}/when`, { fields }));
  });

  // Two grades with one label, or one threshold, would make "the highest grade reached" ambiguous.
  const seenLabels = new Set<string>();
  const seenThresholds = new Set<number>();
  grades.forEach((grade, gradeIndex) => {
    const at = jsonPointer('scoring', 'grades', gradeIndex);
    if (seenLabels.has(grade.label)) {
      issues.push(bodyIssue(`${at}/label`, 'duplicate_grade', `Another grade already has the label \`${grade.label}\`.`));
    } else if (seenThresholds.has(grade.min_score)) {
      issues.push(bodyIssue(`${at}/min_score`, 'duplicate_grade', `Another grade already starts at ${grade.min_score}.`));
    }
    seenLabels.add(grade.label);
    seenThresholds.add(grade.min_score);
  });
  return issues;
}
