/**
 * The Leads screen's address carries the query of `GET /v1/submissions` as it is (`?form_id=…&grade=A&sort=-score`),
 * so a reload, a bookmark or a shared link shows the same leads. These turn the address's query into the API's and
 * back; the API checks the values (an address edited by hand gets the API's own 400, shown at the filter it names).
 */
import type { SubmissionListQuery } from '../client/schemas.js';

/** The filters without the page's place: what the export downloads and the analytics of a form do not page. */
export type LeadFilter = Omit<SubmissionListQuery, 'limit' | 'starting_after' | 'ending_before'>;

const textKeys = [
  'form_id',
  'status',
  'q',
  'created_gte',
  'created_lt',
  'utm_source',
  'sort',
  'starting_after',
  'ending_before',
] as const satisfies ReadonlyArray<keyof SubmissionListQuery>;
const numberKeys = ['min_score', 'max_score', 'limit'] as const satisfies ReadonlyArray<keyof SubmissionListQuery>;

export function leadQueryOf(params: URLSearchParams): SubmissionListQuery {
  const query: Record<string, unknown> = {};
  for (const key of textKeys) {
    const value = params.get(key);
    if (value !== null && value !== '') query[key] = value;
  }
  for (const key of numberKeys) {
    const value = params.get(key);
    if (value !== null && value !== '') query[key] = Number(value);
  }
  const grades = params.getAll('grade').filter((grade) => grade !== '');
  if (grades.length > 0) query.grade = grades;
  return query as SubmissionListQuery;
}

export function searchParamsOf(query: SubmissionListQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.set(key, String(value));
  }
  return params;
}

/** The query without its page: a new filter starts at the first page. */
export function filterOf(query: SubmissionListQuery): LeadFilter {
  const { limit: _limit, starting_after: _after, ending_before: _before, ...filter } = query;
  return filter;
}

/** A day in the person's time zone (`YYYY-MM-DD`) as the instant it starts, for `created_gte` and `created_lt`. */
export const startOfDay = (day: string): string => new Date(`${day}T00:00:00`).toISOString();

/** The day after `day`: "created until the 3rd" is `created_lt` the start of the 4th. */
export function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + 1);
  return localDay(date.toISOString());
}

/** The day (`YYYY-MM-DD`, the person's time zone) an instant falls on. */
export function localDay(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The day before the one an instant starts: what "created until" shows for a `created_lt`. */
export function dayBefore(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  date.setDate(date.getDate() - 1);
  return localDay(date.toISOString());
}
