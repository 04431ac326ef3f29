/**
 * The answer sets the submissions benchmarks seed a million rows from: a few sets that fit the demo form, each
 * validated and scored once by the domain, so seeded rows differ only in id and time and yet are what the API
 * itself would have stored.
 */
import type { Schema } from '../../src/contract.js';
import { scoreSubmission } from '../../src/domain/scoring/score-submission.js';
import { validateAnswers } from '../../src/domain/submissions/validate-answers.js';
import { anaAnswers, anaHidden, budgetAnswers, noBudgetAnswers } from '../http/submissions-support.js';

type Submission = Schema<'Submission'>;

export type ScoredTemplate = Pick<Submission, 'answers' | 'hidden' | 'status' | 'visited_steps' | 'score' | 'grade' | 'score_breakdown'>;

export function scoredTemplates(form: Schema<'Form'>): ScoredTemplate[] {
  const templates: Array<Pick<Submission, 'answers' | 'hidden' | 'status'>> = [
    { answers: anaAnswers() as Submission['answers'], hidden: anaHidden(), status: 'completed' },
    { answers: noBudgetAnswers() as Submission['answers'], hidden: {}, status: 'completed' },
    { answers: budgetAnswers(10_000) as Submission['answers'], hidden: {}, status: 'completed' },
    { answers: { full_name: 'Pat', email: 'pat@example.com' }, hidden: {}, status: 'partial' },
    { answers: { full_name: 'Sam', email: 'sam@example.com', company_size: '1_10', has_budget: true }, hidden: {}, status: 'partial' },
  ];
  return templates.map((template) => {
    const { visitedSteps, issues } = validateAnswers(form, template.answers, template.hidden, template.status);
    if (issues.length > 0) throw new Error(`template does not fit the form: ${JSON.stringify(issues)}`);
    const { score, grade, breakdown } = scoreSubmission(form, template.answers, template.hidden);
    return { ...template, visited_steps: visitedSteps, score, grade, score_breakdown: breakdown };
  });
}
