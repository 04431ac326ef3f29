/**
 * Checks of the `logic` list (422 `invalid_form_logic`). Jumps must go forward: a jump to the same step or
 * an earlier one always lets a respondent loop, and forward-only jumps make every path finite by
 * construction, so no graph search for cycles is needed.
 */
import type { ValidationIssue } from '../../contract.js';
import { indexStepsById, locateFields } from '../forms/form-index.js';
import type { FormDefinition } from '../schema-types.js';
import { bodyIssue, jsonPointer } from '../validation-issue.js';
import { checkCondition } from './check-condition.js';

export function checkLogicRules(definition: FormDefinition): ValidationIssue[] {
  const stepIndexById = indexStepsById(definition.steps);
  const fields = locateFields(definition.steps);
  const seenRuleIds = new Set<string>();
  const issues: ValidationIssue[] = [];

  definition.logic.forEach((rule, ruleIndex) => {
    const at = jsonPointer('logic', ruleIndex);
    if (seenRuleIds.has(rule.id)) {
      issues.push(bodyIssue(`${at}/id`, 'duplicate_rule_id', `Another logic rule already has the id \`${rule.id}\`.`));
    }
    seenRuleIds.add(rule.id);

    const fromIndex = stepIndexById.get(rule.from_step);
    if (fromIndex === undefined) {
      issues.push(bodyIssue(`${at}/from_step`, 'unknown_step', `No step has the id \`${rule.from_step}\`.`));
    }
    issues.push(...checkCondition(rule.when, `${at}/when`, { fields, fromStepIndex: fromIndex }));

    if (rule.then.action !== 'jump_to_step') return;
    const targetIndex = stepIndexById.get(rule.then.step);
    const targetAt = `${at}/then/step`;
    if (targetIndex === undefined) {
      issues.push(bodyIssue(targetAt, 'unknown_step', `No step has the id \`${rule.then.step}\`.`));
    } else if (fromIndex !== undefined && targetIndex === fromIndex) {
      issues.push(bodyIssue(targetAt, 'logic_cycle', `The rule jumps back to its own step \`${rule.from_step}\`, a loop.`));
    } else if (fromIndex !== undefined && targetIndex < fromIndex) {
      issues.push(
        bodyIssue(
          targetAt,
          'backward_jump',
          `\`${rule.then.step}\` comes before \`${rule.from_step}\`; jumps must go to a later step, or the form could loop.`,
        ),
      );
    }
  });
  return issues;
}
