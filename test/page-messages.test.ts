/**
 * The hosted page's own words: every language's catalogue complete, with the same placeholders as English and the
 * plural forms its language counts with; the languages the same as the contract's FormLanguage; messages filled in
 * with numbers and dates formatted for the form's whole tag; and the words beside a field for each issue the page
 * checks, with the field's own limits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { directionOf, languageOf, loadedLanguages, pageLanguages } from '../src/hosted/languages.js';
import type { AskedField } from '../src/hosted/page/form-rules.js';
import type { Catalogue, Message, MessageKey } from '../src/hosted/page/i18n/catalogue.js';
import { catalogues } from '../src/hosted/page/i18n/catalogues.js';
import { localizer } from '../src/hosted/page/i18n/localize.js';
import { issueText } from '../src/hosted/page/issue-text.js';

const english = catalogues.en;
const keys = Object.keys(english).sort() as MessageKey[];
const variants = (message: Message): string[] => (typeof message === 'string' ? [message] : Object.values(message));
const placeholders = (text: string): string[] => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!))].sort();
const placeholdersOf = (message: Message): string[] => [...new Set(variants(message).flatMap(placeholders))].sort();

/** The plural categories a language gives whole numbers (limits and counts are): `other` may be fractions only. */
function wholeNumberCategories(language: string): string[] {
  const rules = new Intl.PluralRules(language);
  return [...new Set(Array.from({ length: 1001 }, (_, count) => rules.select(count)))].sort();
}

describe('the catalogues', () => {
  it('when the contract lists the form languages, then the page has a catalogue for exactly those', () => {
    const schema = parse(readFileSync('openapi/components/schemas/FormLanguage.yaml', 'utf8')) as { pattern: string };
    const listed = /^\^\(([a-z|]+)\)/.exec(schema.pattern)?.[1]?.split('|');
    expect(listed?.sort()).toEqual([...pageLanguages].sort());
    expect(Object.keys(catalogues).sort()).toEqual([...pageLanguages].sort());
  });

  describe.each(pageLanguages)('%s', (language) => {
    const catalogue: Catalogue = catalogues[language];

    it('has every message of English and no other', () => {
      expect(Object.keys(catalogue).sort()).toEqual(keys);
    });

    it('uses the same placeholders as English in every message, and each plural form only those', () => {
      for (const key of keys) {
        expect({ key, placeholders: placeholdersOf(catalogue[key]) }).toEqual({ key, placeholders: placeholdersOf(english[key]) });
        for (const text of variants(catalogue[key])) {
          expect(
            placeholders(text).every((name) => placeholdersOf(english[key]).includes(name)),
            `${key}: ${text}`,
          ).toBe(true);
        }
      }
    });

    it('gives a plural message every form its language uses for whole numbers, and no form it does not use', () => {
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const key of keys) {
        const message = catalogue[key];
        if (typeof message === 'string') continue;
        // A plural message is chosen by its count: English's decides which messages count.
        expect(placeholdersOf(english[key]), key).toContain('count');
        expect(
          Object.keys(message).filter((category) => !categories.includes(category as Intl.LDMLPluralRule)),
          key,
        ).toEqual([]);
        expect(Object.keys(message).sort(), key).toEqual(expect.arrayContaining(wholeNumberCategories(language)));
      }
    });

    it('has no empty message and none with spaces around it', () => {
      for (const key of keys) for (const text of variants(catalogue[key])) expect(text, key).toMatch(/^\S(.*\S)?$/s);
    });
  });

  it.each(pageLanguages.filter((language) => language !== 'en'))('%s is translated: its messages are not English', (language) => {
    const same = keys.filter((key) => JSON.stringify(catalogues[language][key]) === JSON.stringify(english[key]));
    // A word may be the same in both ("No" in Spanish and Italian); a catalogue copied from English is not.
    expect(same.length).toBeLessThanOrEqual(2);
  });
});

describe('a form language tag', () => {
  it('when it has a region or script, then its primary language picks the catalogue; an unknown one speaks English', () => {
    expect(languageOf('pt-BR')).toBe('pt');
    expect(languageOf('DE-ch')).toBe('de');
    expect(languageOf('sr-Latn')).toBe('en');
    // English is in the page script; every other language is a file of its own.
    expect(loadedLanguages).toEqual(pageLanguages.filter((language) => language !== 'en'));
    expect([directionOf('ar-EG'), directionOf('he'), directionOf('fr-CA'), directionOf('ja')]).toEqual(['rtl', 'rtl', 'ltr', 'ltr']);
  });

  it('when a message is filled in, then numbers and dates follow the whole tag and the count picks the plural form', () => {
    const swiss = localizer('de-CH', catalogues.de);
    // Switzerland groups thousands with an apostrophe (which one depends on the browser's CLDR) and uses a point.
    expect(swiss.text('errorNumberMax', { max: 12500.5 })).toMatch(/^Geben Sie 12['’]500\.5 oder weniger ein\.$/);
    expect(localizer('de', catalogues.de).text('errorNumberMax', { max: 12500.5 })).toBe('Geben Sie 12.500,5 oder weniger ein.');
    expect(swiss.text('progress', { position: 2, total: 4 })).toBe('Schritt 2 von 4');
    expect(swiss.date('2025-03-01')).toBe('1. März 2025');
    const polish = localizer('pl', catalogues.pl);
    expect([1, 3, 5, 22].map((count) => polish.text('errorTooLong', { count }))).toEqual([
      'Wpisz maksymalnie 1 znak.',
      'Wpisz maksymalnie 3 znaki.',
      'Wpisz maksymalnie 5 znaków.',
      'Wpisz maksymalnie 22 znaki.',
    ]);
    const arabic = localizer('ar', catalogues.ar);
    expect([1, 2, 3, 11].map((count) => arabic.text('attention', { count }))).toEqual([
      'إجابة واحدة تحتاج إلى مراجعة.',
      'إجابتان تحتاجان إلى مراجعة.',
      `${arabic.number(3)} إجابات تحتاج إلى مراجعة.`,
      `${arabic.number(11)} إجابة تحتاج إلى مراجعة.`,
    ]);
    expect(arabic.dir).toBe('rtl');
  });

  it('when the browser cannot use the tag, then the page formats in English rather than failing', () => {
    const text = localizer('de_DE', catalogues.de);
    expect(text.locale).toBe('en');
    expect(text.text('errorNumberMin', { min: 1000 })).toBe('Geben Sie 1,000 oder mehr ein.');
    expect(localizer('en').locale).toBe('en');
  });

  it('when a placeholder has no value or a plural message no count, then the placeholder stays and the general form is used', () => {
    const text = localizer('en');
    expect(text.text('logoAlt')).toBe('{name} logo');
    expect(text.text('errorTooLong')).toBe('Enter at most {count} characters.');
    expect(text.text('errorTooLong', { count: 1 })).toBe('Enter at most 1 character.');
  });

  it('when a moment is written out, then it is the day in the browser’s time zone, in the form’s language', () => {
    const moment = new Date(2025, 2, 1, 12);
    expect(localizer('fr', catalogues.fr).date(moment)).toBe('1 mars 2025');
    expect(localizer('fr', catalogues.fr).text('resumed', { date: '1 mars 2025' })).toBe(
      'Bon retour parmi nous\u202f! Vos réponses sont conservées sur cet appareil jusqu’au 1 mars 2025.',
    );
  });
});

describe('the words beside a field', () => {
  const field = <T extends AskedField>(value: T) => value;
  const english = localizer('en');
  const german = localizer('de', catalogues.de);
  const say = (code: string, of: AskedField, text = english) => issueText({ code }, of, text);

  it('when an answer breaks its field’s limit, then the limit is named, formatted for the language', () => {
    const name = field({ type: 'short_text', ref: 'name', label: 'Name', required: true, min_length: 2, max_length: 1500 });
    expect(say('too_short', name)).toBe('Enter at least 2 characters.');
    expect(say('too_long', name)).toBe('Enter at most 1,500 characters.');
    expect(say('too_long', name, german)).toBe('Geben Sie höchstens 1.500 Zeichen ein.');
    const notes = field({ type: 'long_text', ref: 'notes', label: 'Notes', required: false, min_length: 20, max_length: 5000 });
    expect([say('too_short', notes), say('too_long', notes)]).toEqual(['Enter at least 20 characters.', 'Enter at most 5,000 characters.']);
    const seats = field({ type: 'number', ref: 'seats', label: 'Seats', required: false, minimum: 1, maximum: 500, integer: true });
    expect([say('too_small', seats), say('too_large', seats), say('type', seats)]).toEqual([
      'Enter 1 or more.',
      'Enter 500 or less.',
      'Enter a whole number.',
    ]);
    expect(say('type', field({ type: 'number', ref: 'n', label: 'N', required: false, integer: false }))).toBe('Enter a number.');
    const when = field({ type: 'date', ref: 'when', label: 'When', required: false, min_date: '2025-03-01', max_date: '2025-12-31' });
    expect([say('too_small', when), say('too_large', when, german)]).toEqual([
      'Enter a date on or after March 1, 2025.',
      'Geben Sie ein Datum bis zum 31. Dezember 2025 ein.',
    ]);
    const stars = field({ type: 'rating', ref: 'stars', label: 'Stars', required: false, scale: 10 });
    expect([say('too_large', stars), say('too_small', stars)]).toEqual(['Choose a rating from 1 to 10.', 'Choose a rating from 1 to 10.']);
    const tools = field({
      type: 'multiple_choice',
      ref: 'tools',
      label: 'Tools',
      required: false,
      min_selections: 2,
      max_selections: 1,
      options: [
        { value: 'a', label: 'A', score: 0 },
        { value: 'b', label: 'B', score: 0 },
      ],
    });
    expect([say('too_few_selections', tools), say('too_many_selections', tools)]).toEqual([
      'Choose at least 2 options.',
      'Choose at most 1 option.',
    ]);
  });

  it('when an answer is missing or not of its kind, then the page says what to enter; a consent says to accept', () => {
    const email = field({ type: 'email', ref: 'email', label: 'Email', required: true });
    expect(say('required', email)).toBe('This answer is required.');
    expect(say('invalid_email', email, german)).toBe('Geben Sie eine E-Mail-Adresse ein, z. B. name@beispiel.de.');
    const gdpr = field({ type: 'consent', ref: 'gdpr', label: 'I agree', required: true });
    expect([say('required', gdpr), say('consent_required', gdpr)]).toEqual([
      'Please accept this to continue.',
      'Please accept this to continue.',
    ]);
    const phone = field({ type: 'phone', ref: 'phone', label: 'Phone', required: false });
    expect(say('invalid_phone', phone)).toBe('Enter a phone number with its country code, such as +14155550100.');
    expect(say('invalid_url', field({ type: 'website', ref: 'site', label: 'Site', required: false }))).toBe(
      'Enter a web address starting with https:// or http://.',
    );
    expect(say('not_visited', email)).toBe('Check this answer.');
    const when = field({ type: 'date', ref: 'when', label: 'When', required: false });
    expect([say('invalid_date', when), say('type', when)]).toEqual(['Enter a valid date.', 'Enter a valid date.']);
    const size = field({
      type: 'single_choice',
      ref: 'size',
      label: 'Size',
      required: true,
      options: [{ value: 'a', label: 'A', score: 0 }],
    });
    expect(say('unknown_option', size)).toBe('Choose one of the options.');
    expect(say('type', field({ type: 'rating', ref: 'stars', label: 'Stars', required: false, scale: 5 }))).toBe(
      'Choose a rating from 1 to 5.',
    );
    expect(say('type', email)).toBe('Check this answer.');
  });

  it('when an issue does not fit its field’s kind or the field has no such limit, then the general words, not a made-up limit', () => {
    const email = field({ type: 'email', ref: 'email', label: 'Email', required: true });
    expect(
      ['too_short', 'too_long', 'too_few_selections', 'too_many_selections', 'too_small', 'too_large'].map((code) => say(code, email)),
    ).toEqual(Array(6).fill('Check this answer.'));
    const open = field({ type: 'number', ref: 'n', label: 'N', required: false, integer: false });
    expect([say('too_small', open), say('too_large', open)]).toEqual(['Check this answer.', 'Check this answer.']);
    const when = field({ type: 'date', ref: 'when', label: 'When', required: false });
    expect([say('too_small', when), say('too_large', when)]).toEqual(['Check this answer.', 'Check this answer.']);
  });
});
