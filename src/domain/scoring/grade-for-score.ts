/**
 * The grade a score reaches: the label of the highest `min_score` at or below it, or null. Grades may be
 * listed in any order. Validation forbids two grades with one threshold; should stored data have them
 * anyway, the label that sorts first wins, so the result still does not depend on list order.
 */
import type { Grade } from '../schema-types.js';

export function gradeForScore(score: number, grades: readonly Grade[]): string | null {
  let best: Grade | undefined;
  for (const grade of grades) {
    if (grade.min_score > score) continue;
    if (best === undefined || grade.min_score > best.min_score || (grade.min_score === best.min_score && grade.label < best.label)) {
      best = grade;
    }
  }
  return best?.label ?? null;
}
