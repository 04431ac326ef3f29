/**
 * The path a respondent takes through a form. Start at the first step; after each step the first of its
 * rules (in list order) whose condition holds decides: `jump_to_step` continues there, `end_form` stops;
 * with no match the next step follows, and the end of the steps ends the path.
 *
 * Rules only see what the respondent could have entered by then: hidden values from the start, and the
 * answers of the steps visited so far. An answer to a skipped step therefore never changes the path.
 */
import { indexFieldsByRef, indexStepsById, keptFor } from '../forms/form-index.js';
import type { Answers, FormDefinition, LogicRule } from '../schema-types.js';
import { addStepAnswers, hiddenValuesOf } from './condition-values.js';
import { evaluateCondition } from './evaluate-condition.js';

/** Ids of the visited steps, in the order visited. */
export function walkPath(definition: FormDefinition, answers: Answers, hidden: Answers = {}): string[] {
  return walkStepIndices(definition, answers, hidden).map((index) => definition.steps[index]!.id);
}

/**
 * Positions of the visited steps. They strictly increase: validation allows only forward jumps, and should a
 * stored definition break that rule anyway, a jump that does not go forward (or names no step) ends the path.
 * That also bounds the walk by the number of steps, so it terminates on any input.
 */
export function walkStepIndices(definition: FormDefinition, answers: Answers, hidden: Answers = {}): number[] {
  const { steps } = definition;
  const stepIndexById = indexStepsById(steps);
  const fieldsByRef = indexFieldsByRef(steps);
  const rulesByStepId = groupRulesByStep(definition.logic);
  const known = hiddenValuesOf(steps, hidden);

  const path: number[] = [];
  let index = 0;
  while (index < steps.length) {
    const step = steps[index]!;
    path.push(index);
    addStepAnswers(known, step, answers);

    const rule = rulesByStepId.get(step.id)?.find((candidate) => evaluateCondition(candidate.when, known, fieldsByRef));
    if (rule === undefined) {
      index += 1;
      continue;
    }
    if (rule.then.action === 'end_form') break;
    const target = stepIndexById.get(rule.then.step);
    if (target === undefined || target <= index) break;
    index = target;
  }
  return path;
}

const rulesByStep = new WeakMap<readonly LogicRule[], ReadonlyMap<string, LogicRule[]>>();

/** The rules of each step, in list order; kept beside a frozen rule list (a stored version's), built afresh otherwise. */
const groupRulesByStep = (logic: readonly LogicRule[]): ReadonlyMap<string, LogicRule[]> => keptFor(rulesByStep, logic, buildRulesByStep);

function buildRulesByStep(logic: readonly LogicRule[]): Map<string, LogicRule[]> {
  const byStep = new Map<string, LogicRule[]>();
  for (const rule of logic) {
    const rules = byStep.get(rule.from_step);
    if (rules) rules.push(rule);
    else byStep.set(rule.from_step, [rule]);
  }
  return byStep;
}
