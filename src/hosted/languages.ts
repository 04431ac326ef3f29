/**
 * The languages the hosted page speaks (one message catalogue each, src/hosted/page/i18n/) and how a form's `language`
 * tag picks one: by its primary subtag (`pt-BR` speaks `pt`), with numbers and dates still formatted for the whole
 * tag. Free of the DOM, so the server can use it too (the page's `<html lang dir>`, the catalogue file to load).
 * The contract's FormLanguage pattern lists the same languages; a test keeps the two in step.
 */
export const pageLanguages = ['ar', 'de', 'en', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt'] as const;
export type PageLanguage = (typeof pageLanguages)[number];

/** The language built into the page script; the others are files of their own, loaded by the page that needs one. */
export const builtInLanguage = 'en' satisfies PageLanguage;
export type LoadedLanguage = Exclude<PageLanguage, typeof builtInLanguage>;
export const loadedLanguages = pageLanguages.filter((language): language is LoadedLanguage => language !== builtInLanguage);

const rightToLeft: ReadonlySet<PageLanguage> = new Set(['ar', 'he']);

/** The catalogue a tag speaks: its primary subtag's, or English for a tag the page has no catalogue for. */
export function languageOf(tag: string): PageLanguage {
  const primary = tag.split('-', 1)[0]!.toLowerCase();
  return (pageLanguages as readonly string[]).includes(primary) ? (primary as PageLanguage) : builtInLanguage;
}

/** The writing direction of a tag's language, for `<html dir>`. */
export const directionOf = (tag: string): 'ltr' | 'rtl' => (rightToLeft.has(languageOf(tag)) ? 'rtl' : 'ltr');
