/**
 * What the hosted page says in its own words, in one language. Every language file implements the whole interface, so
 * a key missing in one of them is a compile error; a test checks that every language uses the same placeholders.
 *
 * A message is a string with `{name}` placeholders, or, where its wording depends on a number, one string per plural
 * category of the language (Intl.PluralRules: `one`, `few`, `many`...; `other` always), chosen by its `{count}`.
 * Numbers put in placeholders are formatted for the form's language tag; dates arrive formatted.
 */
export type PluralMessage = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;
export type Message = string | PluralMessage;

export interface Catalogue {
  /** The welcome screen's button when the form gives no label of its own. */
  start: Message;
  next: Message;
  back: Message;
  /** The button of the last step on the respondent's path: it sends the answers. */
  submit: Message;
  /** Above each step: `{position}` and `{total}`. */
  progress: Message;
  /** After a required field's label, for assistive technology (the eye sees a "*"); with its own brackets. */
  required: Message;
  /** The two answers of a yes/no field. */
  yes: Message;
  no: Message;
  /** The spam trap's label: hidden from people and assistive technology, read by robots. */
  honeypot: Message;
  /** The logo's text alternative: `{name}` is the form's name. */
  logoAlt: Message;

  /** Beside a field, for an answer the page checks itself. */
  errorRequired: Message;
  /** A required consent box left unticked. */
  errorConsent: Message;
  /** Text shorter or longer than its field takes: `{count}` characters. */
  errorTooShort: Message;
  errorTooLong: Message;
  errorEmail: Message;
  /** A phone number the API does not take: it wants the international (E.164) form. */
  errorPhone: Message;
  errorUrl: Message;
  errorNumber: Message;
  errorWholeNumber: Message;
  /** A number below the field's minimum `{min}` or above its maximum `{max}`. */
  errorNumberMin: Message;
  errorNumberMax: Message;
  /** A rating outside its scale, `{min}` to `{max}`. */
  errorRating: Message;
  errorDate: Message;
  /** A date before the field's first allowed `{date}` or after its last. */
  errorDateMin: Message;
  errorDateMax: Message;
  /** A choice that is not one of the field's options. */
  errorOption: Message;
  /** Too few or too many options ticked: `{count}` options. */
  errorFewChoices: Message;
  errorManyChoices: Message;
  /** Any other problem with an answer. */
  errorInvalid: Message;

  /** Under the step when answers need correcting: `{count}` of them. */
  attention: Message;
  sending: Message;
  /** The service could not be reached. */
  offline: Message;
  /** Too many requests from the respondent's network (429). */
  rateLimited: Message;
  /** The service cannot take answers just now (503 and its kin). */
  unavailable: Message;
  /** The form was sent sooner than its minimum completion time. */
  tooFast: Message;
  /** The proof of work (spam protection) could not be solved or was refused. */
  spamCheck: Message;
  /** Any other failure of a send. */
  failed: Message;
  /** The form itself could not be read. */
  loadFailed: Message;
  /** In place of the form when the browser runs no script (the server writes it into the page). */
  noScript: Message;
  /** On returning to a form begun earlier: the answers are kept in this browser until `{date}`. */
  resumed: Message;
  /** The saved submission can no longer be continued: sending again starts a new one with the same answers. */
  resumeLost: Message;

  /** The page's own thank-you, for a form without an ending screen. */
  thanksTitle: Message;
  thanksText: Message;
  /** While the ending's redirect loads, and the link to it should the browser not follow. */
  redirecting: Message;
  continue: Message;
}

export type MessageKey = keyof Catalogue;
