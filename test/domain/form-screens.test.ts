import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { assertRedirectUrl, endingOf, languageOf, welcomeOf } from '../../src/domain/forms/screens.js';

const issueOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const problem = error as AppError;
    expect(problem.status).toBe(422);
    expect(problem.code).toBe('invalid_value');
    return problem.details?.errors?.[0];
  }
  throw new Error('expected a refusal');
};

describe('welcome and ending screens as a request sets them', () => {
  it('when a screen is absent or null, then it is null', () => {
    expect(welcomeOf(undefined)).toBeNull();
    expect(welcomeOf(null)).toBeNull();
    expect(endingOf(undefined)).toBeNull();
    expect(endingOf(null)).toBeNull();
  });

  it('when members are left out, then they are null; when given, they are kept', () => {
    expect(welcomeOf({ title: 'Hi' })).toEqual({ title: 'Hi', text: null, button_label: null });
    expect(welcomeOf({ title: 'Hi', text: 'T', button_label: 'Go' })).toEqual({ title: 'Hi', text: 'T', button_label: 'Go' });
    expect(endingOf({ title: 'Bye' })).toEqual({ title: 'Bye', text: null, redirect_url: null });
    const redirect = 'https://acme.example/t?id={submission_id}';
    expect(endingOf({ title: 'Bye', text: 'T', redirect_url: redirect })).toEqual({ title: 'Bye', text: 'T', redirect_url: redirect });
  });

  it('when an ending carries a bad address, then it is refused', () => {
    expect(issueOf(() => endingOf({ title: 'Bye', redirect_url: 'https://acme.example/{submission_id}' }))).toMatchObject({
      location: 'body',
      pointer: '/ending/redirect_url',
      code: 'invalid_redirect_url',
    });
  });
});

describe('redirect addresses', () => {
  it.each([
    'https://acme.example',
    'https://acme.example/thanks',
    'https://acme.example/thanks?ref={submission_id}',
    'https://acme.example/thanks?ref={submission_id}#top',
    'https://acme.example/thanks?a=1&ref={submission_id}&b={submission_id}',
    'https://acme.example:8443/thanks?ref=x{submission_id}y',
  ])('%s is accepted', (address) => {
    expect(() => assertRedirectUrl(address)).not.toThrow();
  });

  it.each([
    ['https://acme.example/{submission_id}', /only in its query/],
    ['https://acme.example/{submission_id}?ref=1', /only in its query/],
    ['https://acme.example/thanks#{submission_id}', /only in its query/],
    ['https://acme.example/thanks?a=1#x{submission_id}', /only in its query/],
    ['https://acme.example/thanks?ref={id}', /no placeholder but/],
    ['https://acme.example/thanks?ref={submission_id', /no placeholder but/],
    ['https://acme.example/thanks?ref={}', /no placeholder but/],
    ['https://acme.example/thanks?ref=}', /no placeholder but/],
    ['https://acme.example/thanks?ref={submission_id}}', /no placeholder but/],
    ['https://', /absolute https URL/],
    ['https//acme.example', /absolute https URL/],
    ['ftp://acme.example/', /absolute https URL/],
    ['https://user@acme.example/', /user name or password/],
    ['https://:secret@acme.example/', /user name or password/],
  ])('%s is refused (%s)', (address, message) => {
    expect(issueOf(() => assertRedirectUrl(address))?.message).toMatch(message);
  });
});

describe('language tags', () => {
  it('when none is given, then the current one stays, English for a new form', () => {
    expect(languageOf(undefined)).toBe('en');
    expect(languageOf(undefined, 'de')).toBe('de');
  });

  it.each([
    ['de', 'de'],
    ['pt-br', 'pt-BR'],
    ['PT-BR', 'pt-BR'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['de-ch-1996', 'de-CH-1996'],
  ])('%s is stored as %s', (input, canonical) => {
    expect(languageOf(input, 'fr')).toBe(canonical);
  });

  it.each(['de-DE-DE', 'de-1996-1996', 'e', '', 'en_US'])('%s is refused as not well formed', (input) => {
    expect(issueOf(() => languageOf(input))).toEqual({
      location: 'body',
      pointer: '/language',
      code: 'invalid_language',
      message: 'is not a well-formed BCP 47 language tag',
    });
  });
});
