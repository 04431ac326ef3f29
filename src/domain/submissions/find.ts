/**
 * What the submissions list and export filter and sort on, brought to the form the store compares: timestamps
 * normalised, score bounds checked against each other, the search text lower-cased as the stored one is.
 */

import type { SubmissionFilter, SubmissionOrder } from '../../store/submission-store.js';
import { readAnswer } from '../answers.js';
import { normalisedTimestamp } from '../client-timestamps.js';
import { badRequest } from '../errors.js';
import type { FieldType, FormDefinition } from '../schema-types.js';

/** The field types whose answers `q` searches (the document's `q` parameter names the same four). */
const searchableTypes: ReadonlySet<FieldType> = new Set<FieldType>(['short_text', 'long_text', 'email', 'phone']);

/** One form of the text `q` is compared with and the stored text, so case never matters. */
const foldCase = (text: string): string => text.normalize('NFC').toLowerCase();

/**
 * The stored search text of a submission: each searchable answer lower-cased, one per line. Answers carry no
 * line breaks that `q` could match across, since `q` cannot contain one (its pattern refuses control characters).
 */
export function searchTextOf(definition: Pick<FormDefinition, 'steps'>, answers: Record<string, unknown>): string {
  const texts: string[] = [];
  for (const step of definition.steps) {
    for (const field of step.fields) {
      const answer = readAnswer(answers, field.ref);
      if (searchableTypes.has(field.type) && typeof answer === 'string') texts.push(foldCase(answer));
    }
  }
  return texts.join('\n');
}

export interface FindQuery {
  form_id?: string;
  status?: SubmissionFilter['status'];
  grade?: string[];
  min_score?: number;
  max_score?: number;
  q?: string;
  created_gte?: string;
  created_lt?: string;
  updated_gte?: string;
  updated_lt?: string;
  completed_gte?: string;
  completed_lt?: string;
  utm_source?: string;
  metadata?: Record<string, string>;
  sort?: '-created_at' | 'created_at' | '-score' | 'score';
}

export function orderOf(sort: FindQuery['sort'] = '-created_at'): SubmissionOrder {
  const descending = sort.startsWith('-');
  return { key: (descending ? sort.slice(1) : sort) as SubmissionOrder['key'], direction: descending ? 'desc' : 'asc' };
}

export function filterOf(query: FindQuery): SubmissionFilter {
  if (query.min_score !== undefined && query.max_score !== undefined && query.max_score < query.min_score) {
    throw badRequest(
      'invalid_parameters',
      `max_score (${query.max_score}) is below min_score (${query.min_score}); no score lies between them.`,
      [{ location: 'query', pointer: '/max_score', code: 'minimum', message: 'must be >= min_score' }],
    );
  }
  return {
    formId: query.form_id,
    status: query.status,
    // A single value may arrive unwrapped from a query string parser; the document says it is a list.
    grades: query.grade === undefined ? undefined : [query.grade].flat(),
    minScore: query.min_score,
    maxScore: query.max_score,
    search: query.q === undefined ? undefined : foldCase(query.q),
    createdGte: normalisedTimestamp(query.created_gte, 'created_gte'),
    createdLt: normalisedTimestamp(query.created_lt, 'created_lt'),
    updatedGte: normalisedTimestamp(query.updated_gte, 'updated_gte'),
    updatedLt: normalisedTimestamp(query.updated_lt, 'updated_lt'),
    completedGte: normalisedTimestamp(query.completed_gte, 'completed_gte'),
    completedLt: normalisedTimestamp(query.completed_lt, 'completed_lt'),
    utmSource: query.utm_source,
    metadata: query.metadata,
  };
}
