/**
 * Sums of the analytics aggregates (the `submission_*_days` tables) and of the monthly submission count
 * (`usage_counters`), added up in memory and then written with one statement per row they change.
 *
 * Every change to these rows is an addition, and additions commute: a group of new submissions (group-commit.ts)
 * may sum its submissions' additions and write each row once, at the end of the group's transaction, instead of
 * once per submission. Nothing reads these rows between the group's changes (its transaction runs synchronously,
 * and none of its changes reads an aggregate), so the rows committed are exactly those the writes one by one
 * would have made. A submission adds its share only once its own change has succeeded (see `sqliteSubmissions`).
 */
import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { dayOf, type FunnelFacts, gradeKey, sourceKey, stepTotals } from '../rows/submissions.js';
import { statement } from './statements.js';

type DayRow = { formId: string; environment: Environment; day: string };

const keyOf = (...parts: Array<string | number>): string => parts.join('\u0000');

/** Adds `delta` to the entry under `key`, creating it from `base` first. */
function addTo<T extends object>(map: Map<string, T>, key: string, base: () => T, add: (entry: T) => void): void {
  let entry = map.get(key);
  if (!entry) {
    entry = base();
    map.set(key, entry);
  }
  add(entry);
}

/** Deletes the source row of (form, environment, day, source) when it counts no submission any more. */
function deleteEmptySourceRow(db: Database.Database, key: string[]): void {
  statement(
    db,
    `DELETE FROM submission_source_days
     WHERE form_id = ? AND environment = ? AND day = ? AND utm_source = ? AND started = 0 AND completed = 0`,
  ).run(...key);
}

export class FunnelTally {
  private days = new Map<string, DayRow & { started: number; completed: number; scoreSum: number; scoreCount: number }>();
  /** Per day row, per step id. */
  private steps = new Map<string, DayRow & { byStep: Map<string, { reached: number; droppedOff: number }> }>();
  private sources = new Map<string, DayRow & { source: string; started: number; completed: number }>();
  private grades = new Map<string, DayRow & { grade: string; completed: number }>();
  private usage = new Map<string, { workspaceId: string; month: string; submissions: number }>();

  /** Adds (sign 1) or removes (sign -1) one submission from its form's aggregates. */
  count(environment: Environment, facts: FunnelFacts, sign: 1 | -1): this {
    const day = dayOf(facts.created_at);
    const row = { formId: facts.form_id, environment, day };
    const dayKey = keyOf(facts.form_id, environment, day);
    const completed = facts.status === 'completed' ? 1 : 0;
    addTo(
      this.days,
      dayKey,
      () => ({ ...row, started: 0, completed: 0, scoreSum: 0, scoreCount: 0 }),
      (sum) => {
        sum.started += sign;
        sum.completed += sign * completed;
        sum.scoreSum += sign * completed * facts.score;
        sum.scoreCount += sign * completed;
      },
    );
    for (const step of stepTotals(facts, sign)) {
      addTo(
        this.steps,
        dayKey,
        () => ({ ...row, byStep: new Map() }),
        ({ byStep }) => {
          const sum = byStep.get(step.stepId) ?? { reached: 0, droppedOff: 0 };
          byStep.set(step.stepId, { reached: sum.reached + step.reached, droppedOff: sum.droppedOff + step.droppedOff });
        },
      );
    }
    const source = sourceKey(facts.context);
    addTo(
      this.sources,
      keyOf(dayKey, source),
      () => ({ ...row, source, started: 0, completed: 0 }),
      (sum) => {
        sum.started += sign;
        sum.completed += sign * completed;
      },
    );
    if (completed) this.countGrade(environment, facts, facts.grade, sign);
    return this;
  }

  /** Adds (sign 1) or removes (sign -1) one completed submission under a grade. */
  countGrade(environment: Environment, facts: Pick<FunnelFacts, 'form_id' | 'created_at'>, grade: string | null, sign: 1 | -1): this {
    const day = dayOf(facts.created_at);
    const key = gradeKey(grade);
    addTo(
      this.grades,
      keyOf(facts.form_id, environment, day, key),
      () => ({ formId: facts.form_id, environment, day, grade: key, completed: 0 }),
      (sum) => {
        sum.completed += sign;
      },
    );
    return this;
  }

  /**
   * Counts one live submission into its workspace's month (`YYYY-MM`); written in the transaction of the
   * submission's insert, so deleting or erasing the row later leaves the month as it was.
   */
  countUsage(workspaceId: string, month: string): this {
    addTo(
      this.usage,
      keyOf(workspaceId, month),
      () => ({ workspaceId, month, submissions: 0 }),
      (sum) => {
        sum.submissions++;
      },
    );
    return this;
  }

  /** Writes the sums in the caller's transaction, one statement per row (one per day for the steps), and starts over. */
  write(db: Database.Database): void {
    for (const sum of this.days.values()) {
      statement(
        db,
        `INSERT INTO submission_days (form_id, environment, day, started, completed, score_sum, score_count) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET started = started + excluded.started, completed = completed + excluded.completed,
          score_sum = score_sum + excluded.score_sum, score_count = score_count + excluded.score_count`,
      ).run(sum.formId, sum.environment, sum.day, sum.started, sum.completed, sum.scoreSum, sum.scoreCount);
    }
    for (const { formId, environment, day, byStep } of this.steps.values()) {
      // Every step row of the day in one statement (the JSON array is [step id, reached, dropped off] per step);
      // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
      const rows = [...byStep.keys()].sort().map((stepId) => [stepId, byStep.get(stepId)!.reached, byStep.get(stepId)!.droppedOff]);
      statement(
        db,
        `INSERT INTO submission_step_days (form_id, environment, day, step_id, reached, dropped_off)
        SELECT ?, ?, ?, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
        ON CONFLICT DO UPDATE SET reached = reached + excluded.reached, dropped_off = dropped_off + excluded.dropped_off`,
      ).run(formId, environment, day, JSON.stringify(rows));
    }
    for (const sum of this.sources.values()) {
      if (sum.started === 0 && sum.completed === 0) continue;
      const key = [sum.formId, sum.environment, sum.day, sum.source];
      statement(
        db,
        `INSERT INTO submission_source_days (form_id, environment, day, utm_source, started, completed) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET started = started + excluded.started, completed = completed + excluded.completed`,
      ).run(...key, sum.started, sum.completed);
      // The source is the respondent's text (it may hold a name or an address): a row that no longer counts anyone
      // goes, or the text of a deleted or erased submission would stay behind at zero.
      if (sum.started < 0) deleteEmptySourceRow(db, key);
    }
    for (const sum of this.grades.values()) {
      statement(
        db,
        `INSERT INTO submission_grade_days (form_id, environment, day, grade, completed) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET completed = completed + excluded.completed`,
      ).run(sum.formId, sum.environment, sum.day, sum.grade, sum.completed);
    }
    for (const sum of this.usage.values()) {
      statement(
        db,
        `INSERT INTO usage_counters (workspace_id, month, submissions) VALUES (?, ?, ?)
         ON CONFLICT (workspace_id, month) DO UPDATE SET submissions = submissions + excluded.submissions`,
      ).run(sum.workspaceId, sum.month, sum.submissions);
    }
    this.discard();
  }

  /** Forgets the sums (their transaction did not commit). */
  discard(): void {
    this.days.clear();
    this.steps.clear();
    this.sources.clear();
    this.grades.clear();
    this.usage.clear();
  }
}
