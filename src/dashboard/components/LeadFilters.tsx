import { useEffect, useState } from 'preact/hooks';
import type { FormSummary, Schema, SubmissionListQuery } from '../../client/schemas.js';
import { dayBefore, localDay, nextDay, startOfDay } from '../lead-filter.js';
import { FieldIssues } from './FieldIssues.js';
import { FormPicker } from './FormPicker.js';
import { TextField } from './TextField.js';

type Sort = NonNullable<SubmissionListQuery['sort']>;

/** Every order the API sorts by; a new one in the contract is a compile error here until it has a name. */
const sortNames: Record<Sort, string> = {
  '-created_at': 'Newest first',
  created_at: 'Oldest first',
  '-score': 'Highest score first',
  score: 'Lowest score first',
};
const statusNames: Record<Schema<'SubmissionStatus'>, string> = { completed: 'Completed', partial: 'Partial' };

/** What the person types, as text: numbers and days become the API's query only when applied. */
interface Draft {
  form_id: string;
  status: string;
  grades: string[];
  gradeText: string;
  min_score: string;
  max_score: string;
  q: string;
  createdFrom: string;
  createdUntil: string;
  utm_source: string;
  sort: string;
  limit: string;
}

const draftOf = (query: SubmissionListQuery): Draft => ({
  form_id: query.form_id ?? '',
  status: query.status ?? '',
  grades: query.grade ?? [],
  gradeText: (query.grade ?? []).join(', '),
  min_score: query.min_score === undefined ? '' : String(query.min_score),
  max_score: query.max_score === undefined ? '' : String(query.max_score),
  q: query.q ?? '',
  createdFrom: query.created_gte ? localDay(query.created_gte) : '',
  createdUntil: query.created_lt ? dayBefore(query.created_lt) : '',
  utm_source: query.utm_source ?? '',
  sort: query.sort ?? '-created_at',
  limit: query.limit === undefined ? '' : String(query.limit),
});

function queryOf(draft: Draft, gradeLabels: string[] | undefined): SubmissionListQuery {
  const grades = gradeLabels
    ? draft.grades
    : draft.gradeText
        .split(',')
        .map((label) => label.trim())
        .filter(Boolean);
  const number = (text: string) => (text.trim() === '' ? undefined : Number(text));
  const query: Record<string, unknown> = {
    form_id: draft.form_id || undefined,
    status: draft.status || undefined,
    grade: grades.length > 0 ? grades : undefined,
    min_score: number(draft.min_score),
    max_score: number(draft.max_score),
    q: draft.q === '' ? undefined : draft.q,
    created_gte: draft.createdFrom ? startOfDay(draft.createdFrom) : undefined,
    created_lt: draft.createdUntil ? startOfDay(nextDay(draft.createdUntil)) : undefined,
    utm_source: draft.utm_source || undefined,
    sort: draft.sort === '-created_at' ? undefined : draft.sort,
    limit: number(draft.limit),
  };
  return query as SubmissionListQuery;
}

/**
 * The filters of `GET /v1/submissions`, as a form: typing changes nothing until "Apply filters" (or Enter), so a
 * search is not sent per keystroke; the form and the order apply at once. What was typed stays when the API refuses
 * it, with the API's issue under the field it names. `gradeLabels` are the chosen form's grades (checkboxes); without
 * a form, grades are typed.
 */
export function LeadFilters(props: {
  query: SubmissionListQuery;
  forms: FormSummary[];
  gradeLabels: string[] | undefined;
  error: unknown;
  onApply: (query: SubmissionListQuery) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.query));
  const queryKey = JSON.stringify(props.query);
  // The address changed from elsewhere (back, a link): show its filters.
  useEffect(() => setDraft(draftOf(props.query)), [queryKey]);
  // Open when one of its filters is in use (or the API refused one), so nothing applied is out of sight.
  const more =
    ['min_score', 'max_score', 'created_gte', 'created_lt', 'utm_source', 'limit'].some((key) => key in props.query) ||
    props.error !== undefined;
  const set = (change: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...change }));
  const apply = (change: Partial<Draft> = {}) => {
    const next = { ...draft, ...change };
    setDraft(next);
    props.onApply(queryOf(next, props.gradeLabels));
  };
  const field = (id: keyof Draft, label: string, pointer: string, type: 'text' | 'number' | 'search' | 'date', hint?: string) => (
    <TextField
      id={`lead-${id}`}
      label={label}
      type={type}
      hint={hint}
      value={draft[id] as string}
      onInput={(value) => set({ [id]: value })}
      error={props.error}
      pointer={pointer}
    />
  );
  return (
    <form
      class="lead-filters"
      aria-label="Lead filters"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <div class="filter-grid">
        <FormPicker
          id="lead-form"
          label="Form"
          anyLabel="All forms"
          forms={props.forms}
          value={draft.form_id}
          onChange={(formId) => apply({ form_id: formId, grades: [] })}
          error={props.error}
          pointer="/form_id"
        />
        {field('q', 'Search answers', '/q', 'search', 'Text in an answer (name, email, phone, text), any case.')}
        <div class="field">
          <label for="lead-status">Status</label>
          <select
            id="lead-status"
            value={draft.status}
            onChange={(event) => set({ status: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Any status</option>
            {Object.entries(statusNames).map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
          <FieldIssues id="lead-status-issues" error={props.error} pointer="/status" />
        </div>
        {props.gradeLabels ? (
          <fieldset class="grade-choices">
            <legend>Grade</legend>
            {props.gradeLabels.length === 0 && <p class="muted">This form's scoring has no grades.</p>}
            {props.gradeLabels.map((label) => (
              <label key={label} class="choice">
                <input
                  type="checkbox"
                  checked={draft.grades.includes(label)}
                  onChange={(event) =>
                    set({
                      grades: (event.currentTarget as HTMLInputElement).checked
                        ? [...draft.grades, label]
                        : draft.grades.filter((grade) => grade !== label),
                    })
                  }
                />{' '}
                {label}
              </label>
            ))}
            <FieldIssues id="lead-grade-issues" error={props.error} pointer="/grade" />
          </fieldset>
        ) : (
          field('gradeText', 'Grades', '/grade', 'text', 'Labels as the form names them, separated by commas.')
        )}
        <div class="field">
          <label for="lead-sort">Order</label>
          <select id="lead-sort" value={draft.sort} onChange={(event) => apply({ sort: (event.currentTarget as HTMLSelectElement).value })}>
            {Object.entries(sortNames).map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
          <FieldIssues id="lead-sort-issues" error={props.error} pointer="/sort" />
        </div>
      </div>
      <details class="more-filters" open={more}>
        <summary>More filters</summary>
        <div class="filter-grid">
          {field('min_score', 'Lowest score', '/min_score', 'number')}
          {field('max_score', 'Highest score', '/max_score', 'number')}
          {field('createdFrom', 'Created from', '/created_gte', 'date')}
          {field('createdUntil', 'Created until', '/created_lt', 'date')}
          {field('utm_source', 'UTM source', '/utm_source', 'text')}
          {field('limit', 'Leads per page', '/limit', 'number', 'From 1 to 100; 20 when empty.')}
        </div>
      </details>
      <div class="actions">
        <button type="submit" class="primary">
          Apply filters
        </button>
        <button type="button" onClick={() => apply({ ...draftOf({}), limit: draft.limit })}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
