/**
 * What the page says beside a field about an issue with its answer, in the form's language. The issue is the server's
 * (the page runs the server's checks, and the server's 422 carries the same issues); its `code` and the field's own
 * limits choose the words, so that the respondent reads "Enter at most 500 characters", not the API's English
 * message naming the field's ref.
 */
import type { Schema } from '../../contract.js';
import { acceptsOnlyIntegers, maxLengthOf, ratingScaleOf } from '../../domain/forms/field-defaults.js';
import type { AskedField } from './form-rules.js';
import type { Localizer } from './i18n/localize.js';

type Issue = Pick<Schema<'ValidationIssue'>, 'code'>;

export function issueText(issue: Issue, field: AskedField, text: Localizer): string {
  switch (issue.code) {
    case 'required':
      return text.text(field.type === 'consent' ? 'errorConsent' : 'errorRequired');
    case 'consent_required':
      return text.text('errorConsent');
    case 'invalid_email':
      return text.text('errorEmail');
    case 'invalid_phone':
      return text.text('errorPhone');
    case 'invalid_url':
      return text.text('errorUrl');
    case 'invalid_date':
      return text.text('errorDate');
    case 'unknown_option':
      return text.text('errorOption');
    case 'too_short':
      return field.type === 'short_text' || field.type === 'long_text'
        ? text.text('errorTooShort', { count: field.min_length ?? 1 })
        : text.text('errorInvalid');
    case 'too_long':
      return field.type === 'short_text' || field.type === 'long_text'
        ? text.text('errorTooLong', { count: maxLengthOf(field) })
        : text.text('errorInvalid');
    case 'too_few_selections':
      return field.type === 'multiple_choice'
        ? text.text('errorFewChoices', { count: field.min_selections ?? 1 })
        : text.text('errorInvalid');
    case 'too_many_selections':
      return field.type === 'multiple_choice'
        ? text.text('errorManyChoices', { count: field.max_selections ?? field.options.length })
        : text.text('errorInvalid');
    case 'type':
      if (field.type === 'number') return text.text(acceptsOnlyIntegers(field) ? 'errorWholeNumber' : 'errorNumber');
      if (field.type === 'date') return text.text('errorDate');
      if (field.type === 'rating') return text.text('errorRating', { min: 1, max: ratingScaleOf(field) });
      return text.text('errorInvalid');
    case 'too_small':
    case 'too_large':
      return limitText(issue.code, field, text);
    default:
      return text.text('errorInvalid');
  }
}

/** A number, rating or date beyond the field's range. */
function limitText(code: 'too_small' | 'too_large', field: AskedField, text: Localizer): string {
  const below = code === 'too_small';
  switch (field.type) {
    case 'rating':
      return text.text('errorRating', { min: 1, max: ratingScaleOf(field) });
    case 'number': {
      const limit = below ? field.minimum : field.maximum;
      if (limit === undefined) return text.text('errorInvalid');
      return below ? text.text('errorNumberMin', { min: limit }) : text.text('errorNumberMax', { max: limit });
    }
    case 'date': {
      const limit = below ? field.min_date : field.max_date;
      if (limit === undefined) return text.text('errorInvalid');
      return text.text(below ? 'errorDateMin' : 'errorDateMax', { date: text.date(limit) });
    }
    default:
      return text.text('errorInvalid');
  }
}
