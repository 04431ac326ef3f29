/**
 * The page's words in the form's language: a catalogue's messages with their placeholders filled, plural forms chosen,
 * and numbers and dates formatted for the form's whole tag (`pt-BR` speaks the `pt` catalogue with Brazil's numbers).
 */
import { directionOf } from '../../languages.js';
import type { Catalogue, Message, MessageKey } from './catalogue.js';
import { catalogue as english } from './en.js';

export type MessageParams = Readonly<Record<string, string | number>>;

export interface Localizer {
  /** The tag Intl formats for (the form's `language`, or `en` if the browser cannot use it). */
  readonly locale: string;
  readonly dir: 'ltr' | 'rtl';
  /** A message with its placeholders filled; numbers among `params` formatted, `count` choosing the plural form. */
  text(key: MessageKey, params?: MessageParams): string;
  number(value: number): string;
  /** A calendar date (`YYYY-MM-DD`, the contract's date fields) or a moment, written out in the form's language. */
  date(value: string | Date): string;
}

/** The tag as Intl takes it; a tag Intl refuses falls back to English rather than breaking the page. */
function usableLocale(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

export function localizer(tag: string, catalogue: Catalogue = english): Localizer {
  const locale = usableLocale(tag);
  const numbers = new Intl.NumberFormat(locale);
  const plurals = new Intl.PluralRules(locale);
  const pick = (message: Message, count: unknown): string =>
    typeof message === 'string' ? message : ((typeof count === 'number' ? message[plurals.select(count)] : undefined) ?? message.other);
  const text = (key: MessageKey, params: MessageParams = {}): string =>
    pick(catalogue[key], params.count).replace(/\{(\w+)\}/g, (placeholder, name: string) => {
      const value = params[name];
      return value === undefined ? placeholder : typeof value === 'number' ? numbers.format(value) : value;
    });
  const date = (value: string | Date): string =>
    typeof value === 'string'
      ? // A calendar date names a day, not a moment: formatted in UTC, it is the same day in every time zone.
        new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${value}T00:00:00Z`))
      : new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(value);
  return { locale, dir: directionOf(tag), text, number: (value) => numbers.format(value), date };
}

/** English, the page's built-in language: what the dashboard's preview shows unless it passes another. */
export const englishText: Localizer = localizer('en');
