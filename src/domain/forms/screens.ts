/**
 * A form's page screens and language as a request sets them: every member present, and the two things the document
 * cannot say in a schema checked here, the ending's redirect address (https, `{submission_id}` only in its query) and
 * a language tag that is well formed (stored in its canonical case).
 */
import type { Schema } from '../../contract.js';
import { invalidValue } from '../errors.js';

type Form = Schema<'Form'>;
/** A screen as a request may send it: the title, and the members with defaults when given. */
type ScreenInput<Name extends 'FormWelcome' | 'FormEnding'> = Pick<Schema<Name>, 'title'> & Partial<Schema<Name>>;

export const welcomeOf = (input: ScreenInput<'FormWelcome'> | null | undefined): Form['welcome'] =>
  input ? { title: input.title, text: input.text ?? null, button_label: input.button_label ?? null } : null;

export function endingOf(input: ScreenInput<'FormEnding'> | null | undefined): Form['ending'] {
  if (!input) return null;
  const redirectUrl = input.redirect_url ?? null;
  if (redirectUrl !== null) assertRedirectUrl(redirectUrl);
  return { title: input.title, text: input.text ?? null, redirect_url: redirectUrl };
}

/** The one placeholder a redirect address may hold, which the page replaces with the completed submission's id. */
export const SUBMISSION_ID_PLACEHOLDER = '{submission_id}';

const refuseRedirect = (message: string) =>
  invalidValue([{ location: 'body', pointer: '/ending/redirect_url', code: 'invalid_redirect_url', message }]);

/**
 * An absolute https address without credentials, whose only braces are `{submission_id}` in the query. The address is
 * checked with the placeholder replaced by an id-like word, so it is the address the respondent will be sent to.
 */
export function assertRedirectUrl(address: string): void {
  const queryStart = address.indexOf('?');
  const fragmentStart = address.indexOf('#');
  const queryEnd = fragmentStart === -1 ? address.length : fragmentStart;
  const placeholders = [...address.matchAll(/\{[^}]*\}?/g)];
  for (const { 0: found, index } of placeholders) {
    if (found !== SUBMISSION_ID_PLACEHOLDER) throw refuseRedirect(`may hold no placeholder but ${SUBMISSION_ID_PLACEHOLDER}`);
    if (queryStart === -1 || index < queryStart || index > queryEnd) {
      throw refuseRedirect(`may hold ${SUBMISSION_ID_PLACEHOLDER} only in its query`);
    }
  }
  if (address.replaceAll(SUBMISSION_ID_PLACEHOLDER, '').includes('}')) {
    throw refuseRedirect(`may hold no placeholder but ${SUBMISSION_ID_PLACEHOLDER}`);
  }
  let url: URL;
  try {
    url = new URL(address.replaceAll(SUBMISSION_ID_PLACEHOLDER, 'sub_0'));
  } catch {
    throw refuseRedirect('must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw refuseRedirect('must be an absolute https URL');
  if (url.username !== '' || url.password !== '') throw refuseRedirect('must not carry a user name or password');
}

/** The tag in its canonical case (`pt-br` → `pt-BR`); one that is not well-formed BCP 47 is refused. */
export function languageOf(input: string | undefined, current: Form['language'] = 'en'): Form['language'] {
  if (input === undefined) return current;
  try {
    const [canonical] = Intl.getCanonicalLocales(input);
    if (canonical !== undefined) return canonical;
  } catch {
    // A RangeError: not a well-formed tag, answered below.
  }
  throw invalidValue([
    { location: 'body', pointer: '/language', code: 'invalid_language', message: 'is not a well-formed BCP 47 language tag' },
  ]);
}
