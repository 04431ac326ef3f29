/**
 * Whether one given answer fits its field. Returns the first problem found, since the API reports one issue
 * per field. Callers pass only answered values (see `isAnswered`); whether an answer is needed at all is
 * decided in validate-answers.ts.
 */
import { isCalendarDate } from '../calendar-date.js';
import { acceptsOnlyIntegers, maxLengthOf, ratingScaleOf } from '../forms/field-defaults.js';
import type { Field } from '../schema-types.js';
import type { DomainIssueCode } from '../validation-issue.js';

export interface AnswerProblem {
  code: DomainIssueCode;
  message: string;
}

export type AskedField = Exclude<Field, { type: 'hidden' }>;

// Pragmatic, not RFC 5322: what a lead form can use. Dot-atom local part, and a domain of at least two
// DNS labels (an address without a dot in its domain is not reachable from the internet).
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const EMAIL_MAX_LENGTH = 254; // RFC 5321 path limit

// E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
const E164 = /^\+[1-9][0-9]{6,14}$/;

export function checkAnswer(field: AskedField, value: unknown): AnswerProblem | undefined {
  const ref = `\`${field.ref}\``;
  switch (field.type) {
    case 'short_text':
    case 'long_text': {
      if (typeof value !== 'string') return typeProblem(ref, 'a string');
      // Characters as JSON Schema counts them (code points), not UTF-16 units.
      const length = [...value].length;
      if (field.min_length !== undefined && length < field.min_length) {
        return { code: 'too_short', message: `${ref} needs at least ${field.min_length} characters.` };
      }
      const max = maxLengthOf(field);
      if (length > max) return { code: 'too_long', message: `${ref} takes at most ${max} characters.` };
      return undefined;
    }
    case 'email':
      if (typeof value !== 'string') return typeProblem(ref, 'a string');
      return value.length <= EMAIL_MAX_LENGTH && EMAIL.test(value)
        ? undefined
        : { code: 'invalid_email', message: `${ref} is not an email address.` };
    case 'phone':
      if (typeof value !== 'string') return typeProblem(ref, 'a string');
      return E164.test(value)
        ? undefined
        : { code: 'invalid_phone', message: `${ref} is not a phone number in E.164 form, such as +14155550100.` };
    case 'website':
      if (typeof value !== 'string') return typeProblem(ref, 'a string');
      return isHttpUrl(value) ? undefined : { code: 'invalid_url', message: `${ref} is not an http or https URL.` };
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return typeProblem(ref, 'a number');
      if (acceptsOnlyIntegers(field) && !Number.isInteger(value)) return typeProblem(ref, 'a whole number');
      if (field.minimum !== undefined && value < field.minimum) {
        return { code: 'too_small', message: `${ref} is at least ${field.minimum}.` };
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return { code: 'too_large', message: `${ref} is at most ${field.maximum}.` };
      }
      return undefined;
    case 'rating': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return typeProblem(ref, 'a whole number');
      const scale = ratingScaleOf(field);
      if (value < 1) return { code: 'too_small', message: `${ref} is a rating from 1 to ${scale}.` };
      if (value > scale) return { code: 'too_large', message: `${ref} is a rating from 1 to ${scale}.` };
      return undefined;
    }
    case 'date':
      if (typeof value !== 'string') return typeProblem(ref, 'a date string (YYYY-MM-DD)');
      if (!isCalendarDate(value)) return { code: 'invalid_date', message: `${ref} is not a calendar date (YYYY-MM-DD).` };
      if (field.min_date !== undefined && value < field.min_date) {
        return { code: 'too_small', message: `${ref} is ${field.min_date} or later.` };
      }
      if (field.max_date !== undefined && value > field.max_date) {
        return { code: 'too_large', message: `${ref} is ${field.max_date} or earlier.` };
      }
      return undefined;
    case 'single_choice':
      if (typeof value !== 'string') return typeProblem(ref, 'an option value (a string)');
      return field.options.some((option) => option.value === value)
        ? undefined
        : { code: 'unknown_option', message: `${ref} has no option with the value \`${value}\`.` };
    case 'multiple_choice': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        return typeProblem(ref, 'an array of option values');
      }
      const chosen: readonly string[] = value;
      if (new Set(chosen).size !== chosen.length) {
        return { code: 'unique_items', message: `${ref} lists an option more than once.` };
      }
      const unknown = chosen.find((choice) => !field.options.some((option) => option.value === choice));
      if (unknown !== undefined) {
        return { code: 'unknown_option', message: `${ref} has no option with the value \`${unknown}\`.` };
      }
      if (field.min_selections !== undefined && chosen.length < field.min_selections) {
        return { code: 'too_few_selections', message: `${ref} needs at least ${field.min_selections} options chosen.` };
      }
      if (field.max_selections !== undefined && chosen.length > field.max_selections) {
        return { code: 'too_many_selections', message: `${ref} takes at most ${field.max_selections} options.` };
      }
      return undefined;
    }
    case 'yes_no':
    case 'consent':
      return typeof value === 'boolean' ? undefined : typeProblem(ref, 'a boolean');
  }
}

function typeProblem(ref: string, expected: string): AnswerProblem {
  return { code: 'type', message: `${ref} takes ${expected}.` };
}

function isHttpUrl(value: string): boolean {
  // `new URL` forgives surrounding spaces; a stored website should not carry them.
  if (value.trim() !== value) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
