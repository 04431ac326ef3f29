/**
 * Form naming and size rules that need no server: the slug taken from a name, and the definition size cap.
 */
import { describe, expect, it } from 'vitest';
import {
  assertDefinitionFits,
  definitionBytes,
  MAX_DEFINITION_BYTES,
  serializeDefinition,
} from '../../src/domain/forms/definition-size.js';
import { slugify } from '../../src/domain/forms/slug.js';
import type { FormDefinition } from '../../src/domain/schema-types.js';
import { shortText } from './fixtures.js';

describe('slugify', () => {
  it.each([
    ['Démo Request (2027)', 'demo-request-2027'],
    ['  --Hello,   World!--  ', 'hello-world'],
    ['ÉCOLE', 'ecole'],
    ['a_b.c', 'a-b-c'],
  ])('when the name is %j, then the slug is %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('when the name has no letter or digit, then the slug is "form"', () => {
    expect(slugify('!!! ???')).toBe('form');
    expect(slugify('')).toBe('form');
  });

  it('when the name is long, then the slug keeps 90 characters and never ends with a dash', () => {
    expect(slugify('a'.repeat(200))).toBe('a'.repeat(90));
    expect(slugify(`${'a'.repeat(89)} b`)).toBe('a'.repeat(89));
  });
});

describe('definition size', () => {
  const definition = (label: string): FormDefinition =>
    ({ steps: [{ ref: 's1', title: 'S', fields: [shortText('f1', { label })] }], logic: [], scoring: null }) as unknown as FormDefinition;
  // The bytes the definition takes around the label, so that a test can aim at the cap exactly.
  const overhead = definitionBytes(definition(''));

  it('when a definition is serialized, then only steps, logic and scoring count, in UTF-8 bytes', () => {
    const form = { ...definition('é'), extra: 'ignored' } as FormDefinition;
    expect(JSON.parse(serializeDefinition(form))).toEqual({ steps: form.steps, logic: [], scoring: null });
    expect(definitionBytes(form)).toBe(overhead + 2);
  });

  it('when a definition takes exactly the cap, then it fits', () => {
    expect(() => assertDefinitionFits(definition('x'.repeat(MAX_DEFINITION_BYTES - overhead)))).not.toThrow();
  });

  it('when a definition takes one byte more than the cap, then 422 form_too_large pointing at its largest part', () => {
    const bytes = MAX_DEFINITION_BYTES + 1;
    const tooLarge = definition('x'.repeat(bytes - overhead));
    expect(() => assertDefinitionFits(tooLarge)).toThrow(
      expect.objectContaining({
        status: 422,
        code: 'form_too_large',
        message: `The form definition takes ${bytes} bytes; at most ${MAX_DEFINITION_BYTES} are accepted.`,
        details: {
          errors: [
            expect.objectContaining({
              location: 'body',
              pointer: '/steps',
              code: 'definition_too_large',
              message: expect.stringContaining(
                `the definition takes ${bytes} bytes of JSON, more than ${MAX_DEFINITION_BYTES}; /steps takes`,
              ),
            }),
          ],
        },
      }),
    );
  });

  it('when logic is the largest part of a definition over the cap, then the issue points at /logic', () => {
    const big = { ...definition(''), logic: [{ padding: 'x'.repeat(MAX_DEFINITION_BYTES) }] } as unknown as FormDefinition;
    expect(() => assertDefinitionFits(big)).toThrow(
      expect.objectContaining({ details: { errors: [expect.objectContaining({ pointer: '/logic' })] } }),
    );
  });
});
