/**
 * Lead scoring (spec: Scoring, Submission.score_breakdown). Score = the `score` of every chosen option +
 * the `points` of every scoring rule that holds; the breakdown lists exactly those parts, so the score is
 * always the sum of the breakdown.
 *
 * - Options are listed only when their score is non-zero (the spec's wording): options without a score are
 *   not part of the scoring, and listing every choice would bury the parts that matter.
 * - Rules are listed whenever they hold, even for 0 points: a rule is a scoring construct its author wrote,
 *   and seeing that it held is useful.
 * - The answers given are scored as they are, whatever the logic's path: validation already refuses answers
 *   off the path, and a rescore against a newer version scores what the respondent actually said.
 * - Answers to unknown fields and values that are not options are ignored rather than rejected, so rescoring
 *   old answers against an edited form always succeeds.
 *
 * The result depends only on the definition and the values, never on the order of answer keys: the
 * breakdown follows form order (steps, fields, options), then rules in list order.
 */
import { readAnswer } from '../answers.js';
import { optionScoreOf } from '../forms/field-defaults.js';
import { indexFieldsByRef } from '../forms/form-index.js';
import { allConditionValues } from '../logic/condition-values.js';
import { evaluateCondition } from '../logic/evaluate-condition.js';
import type { Answers, FormDefinition, ScoreContribution, Step } from '../schema-types.js';
import { gradeForScore } from './grade-for-score.js';

export interface ScoreResult {
  score: number;
  grade: string | null;
  breakdown: ScoreContribution[];
}

export function scoreSubmission(definition: FormDefinition, answers: Answers, hidden: Answers = {}): ScoreResult {
  const breakdown = [...optionContributions(definition.steps, answers), ...ruleContributions(definition, answers, hidden)];
  const score = breakdown.reduce((sum, part) => sum + part.points, 0);
  return { score, grade: gradeForScore(score, definition.scoring.grades), breakdown };
}

function optionContributions(steps: readonly Step[], answers: Answers): ScoreContribution[] {
  const parts: ScoreContribution[] = [];
  for (const step of steps) {
    for (const field of step.fields) {
      if (field.type !== 'single_choice' && field.type !== 'multiple_choice') continue;
      const chosen = chosenValues(field.type, readAnswer(answers, field.ref));
      for (const option of field.options) {
        const points = optionScoreOf(option);
        if (points !== 0 && chosen.has(option.value)) {
          parts.push({ source: 'option', field: field.ref, option: option.value, points });
        }
      }
    }
  }
  return parts;
}

function chosenValues(type: 'single_choice' | 'multiple_choice', answer: unknown): Set<string> {
  if (type === 'single_choice') return new Set(typeof answer === 'string' ? [answer] : []);
  return new Set(Array.isArray(answer) ? answer.filter((item): item is string => typeof item === 'string') : []);
}

function ruleContributions(definition: FormDefinition, answers: Answers, hidden: Answers): ScoreContribution[] {
  const fieldsByRef = indexFieldsByRef(definition.steps);
  const values = allConditionValues(definition.steps, answers, hidden);
  return definition.scoring.rules
    .filter((rule) => evaluateCondition(rule.when, values, fieldsByRef))
    .map((rule): ScoreContribution => ({ source: 'rule', rule_id: rule.id, points: rule.points }));
}
