/**
 * Reading answers. Keys come from request bodies, so lookups use own properties only: a ref such as
 * `constructor` must never find something on `Object.prototype`.
 */
import type { Answers } from './schema-types.js';

export function hasAnswerKey(answers: Answers, ref: string): boolean {
  return Object.hasOwn(answers, ref);
}

export function readAnswer(answers: Answers, ref: string): unknown {
  return Object.hasOwn(answers, ref) ? answers[ref] : undefined;
}

/**
 * The spec's notion of "answered" (PresenceCondition): an empty string or an empty array is no answer.
 * `null` is not an AnswerValue; it is treated as no answer rather than as a wrong type so that logic and
 * scoring never trip over it.
 */
export function isAnswered(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}
