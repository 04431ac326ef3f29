/**
 * Turns stored aggregates into the funnel figures of `Analytics`, laid out by the form's current version:
 * its steps in order and its grades highest first. Figures for steps or grades that only older versions
 * had are kept where the schema says so (grades) and left out where it does not (steps).
 */
import type { Schema } from '../../contract.js';
import type { FunnelTotals } from '../../store/submission-store.js';
import type { FormDefinition } from '../schema-types.js';
import type { DayRange } from './date-range.js';

type Analytics = Schema<'Analytics'>;
export type FunnelFigures = Pick<Analytics, 'submissions' | 'steps' | 'score' | 'utm_sources' | 'daily'>;

const MAX_GRADE_ENTRIES = 100;
/** The sources `utm_sources.top` lists (its `maxItems`); the rest are summed in `utm_sources.other`. */
export const TOP_UTM_SOURCES = 20;

const rounded = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
const rate = (part: number, whole: number): number => (whole === 0 ? 0 : rounded(part / whole, 4));

export function funnelFigures(definition: FormDefinition, totals: FunnelTotals, range: DayRange): FunnelFigures {
  const byDay = new Map(totals.days.map((day) => [day.day, day]));
  const sum = (pick: (day: FunnelTotals['days'][number]) => number) => totals.days.reduce((total, day) => total + pick(day), 0);
  const started = sum((day) => day.started);
  const completed = sum((day) => day.completed);
  const scoreCount = sum((day) => day.scoreCount);

  const byStep = new Map(totals.steps.map((step) => [step.stepId, step]));
  const steps = definition.steps.map((step) => {
    const reached = byStep.get(step.id)?.reached ?? 0;
    const droppedOff = byStep.get(step.id)?.droppedOff ?? 0;
    return { step_id: step.id, title: step.title, reached, dropped_off: droppedOff, drop_off_rate: rate(droppedOff, reached) };
  });

  return {
    submissions: { started, completed, completion_rate: rate(completed, started) },
    steps,
    score: {
      average: scoreCount === 0 ? null : rounded(sum((day) => day.scoreSum) / scoreCount, 2),
      grades: gradeCounts(definition, totals.grades),
    },
    utm_sources: totals.sources,
    daily: range.days.map((date) => ({ date, started: byDay.get(date)?.started ?? 0, completed: byDay.get(date)?.completed ?? 0 })),
  };
}

/** Current grades highest first (with zeros), then other stored labels by name, then `null` (no grade). */
function gradeCounts(definition: FormDefinition, stored: FunnelTotals['grades']): Analytics['score']['grades'] {
  const counts = new Map(stored.map((entry) => [entry.grade, entry.completed]));
  // Same tie-break as gradeForScore: among equal thresholds the label that sorts first ranks higher.
  const current = [...definition.scoring.grades]
    .sort((a, b) => b.min_score - a.min_score || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
    .map((grade) => grade.label);
  const known = new Set(current);
  const older = [...counts.keys()]
    .filter((label): label is string => label !== null && !known.has(label) && (counts.get(label) ?? 0) > 0)
    .sort();
  const labels = [...new Set(current), ...older].slice(0, MAX_GRADE_ENTRIES - 1);
  return [...labels.map((label) => ({ label, count: counts.get(label) ?? 0 })), { label: null, count: counts.get(null) ?? 0 }];
}
