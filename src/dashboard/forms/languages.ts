/**
 * The languages a form can be written in, for the builder's select: those the hosted page speaks (its own list, which a
 * test keeps in step with the contract), each named in itself and in English from the browser's own data
 * (Intl.DisplayNames), so that no name is kept here.
 */
import { pageLanguages } from '../../hosted/languages.js';

/** The name of the language `tag` in the language `inLanguage` ("Deutsch", "Português (Brasil)"), or undefined. */
function nameOf(tag: string, inLanguage: string): string | undefined {
  try {
    const name = new Intl.DisplayNames([inLanguage], { type: 'language', fallback: 'none' }).of(tag);
    return name ? name.charAt(0).toLocaleUpperCase(inLanguage) + name.slice(1) : undefined;
  } catch {
    // Not a tag the browser can name (none the API stores): shown as the tag.
    return undefined;
  }
}

/** How the language select shows a tag: its own name, then its English one ("Deutsch — German", "English"). */
export function languageLabel(tag: string): string {
  const own = nameOf(tag, tag);
  const english = nameOf(tag, 'en');
  if (!own) return english ?? tag;
  return english && english !== own ? `${own} — ${english}` : own;
}

export interface LanguageOption {
  value: string;
  label: string;
  /** The option's own language, so that a screen reader reads "Deutsch" as German. */
  lang: string;
}

/**
 * The choices of the language select: each language the page speaks, and the form's own tag when it has more than a
 * primary subtag (`pt-BR`, `fr-CA`), right after its language, so that a stored regional tag shows and is kept.
 */
export function languageOptions(current: string): LanguageOption[] {
  const options: LanguageOption[] = [];
  for (const tag of pageLanguages) {
    options.push({ value: tag, label: languageLabel(tag), lang: tag });
    if (current !== tag && current.split('-')[0]?.toLowerCase() === tag) {
      options.push({ value: current, label: `${languageLabel(current)} (${current})`, lang: current });
    }
  }
  return options;
}
