/**
 * fast-check generators: valid form definitions (what validation must accept), values that fit each field,
 * and arbitrary, possibly broken definitions and answers (what the logic must survive).
 */
import fc from 'fast-check';
import type { Condition, Field, FieldType, FormDefinition, LogicRule, ScoringRule, Step } from '../../src/domain/schema-types.js';
import {
  consent,
  date,
  email,
  hidden,
  longText,
  multipleChoice,
  number,
  phone,
  rating,
  shortText,
  singleChoice,
  step,
  website,
  yesNo,
} from './fixtures.js';

const ALL_FIELD_TYPES: Record<FieldType, true> = {
  short_text: true,
  long_text: true,
  email: true,
  phone: true,
  number: true,
  single_choice: true,
  multiple_choice: true,
  yes_no: true,
  rating: true,
  date: true,
  website: true,
  consent: true,
  hidden: true,
};
const FIELD_TYPES = Object.keys(ALL_FIELD_TYPES) as FieldType[];
const OPTION_VALUES = ['a', 'b', 'c', 'd', 'e'];

export const dayToDate = (day: number): string => new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
const dayArb = fc.integer({ min: 0, max: 800 });
const word = fc.stringMatching(/^[a-z]{1,8}$/);

const optionsArb = fc
  .uniqueArray(fc.constantFrom(...OPTION_VALUES), { minLength: 1, maxLength: OPTION_VALUES.length })
  .chain((values) =>
    fc.tuple(fc.constant(values), fc.array(fc.integer({ min: -10, max: 10 }), { minLength: values.length, maxLength: values.length })),
  )
  .map(([values, scores]) => values.map((value, i) => `${value}:${scores[i]}`));

/** A field of any type whose own bounds are consistent. */
export function fieldArb(ref: string): fc.Arbitrary<Field> {
  const required = fc.boolean();
  return fc.constantFrom(...FIELD_TYPES).chain((type): fc.Arbitrary<Field> => {
    switch (type) {
      case 'short_text':
      case 'long_text':
        return fc
          .record({ required, min: fc.integer({ min: 0, max: 4 }), extra: fc.integer({ min: 0, max: 20 }) })
          .map(({ required, min, extra }) =>
            (type === 'short_text' ? shortText : longText)(ref, { required, min_length: min, max_length: Math.max(1, min + extra) }),
          );
      case 'email':
        return required.map((r) => email(ref, { required: r }));
      case 'phone':
        return required.map((r) => phone(ref, { required: r }));
      case 'website':
        return required.map((r) => website(ref, { required: r }));
      case 'yes_no':
        return required.map((r) => yesNo(ref, { required: r }));
      case 'consent':
        return required.map((r) => consent(ref, { required: r }));
      case 'hidden':
        return fc.constant(hidden(ref));
      case 'number':
        return fc
          .record({ required, integer: fc.boolean(), min: fc.integer({ min: -100, max: 100 }), span: fc.integer({ min: 0, max: 200 }) })
          .map(({ required, integer, min, span }) => number(ref, { required, integer, minimum: min, maximum: min + span }));
      case 'rating':
        return fc
          .record({ required, scale: fc.integer({ min: 3, max: 10 }) })
          .map(({ required, scale }) => rating(ref, { required, scale }));
      case 'date':
        return fc
          .record({ required, from: dayArb, span: fc.integer({ min: 0, max: 400 }) })
          .map(({ required, from, span }) => date(ref, { required, min_date: dayToDate(from), max_date: dayToDate(from + span) }));
      case 'single_choice':
        return fc.record({ required, options: optionsArb }).map(({ required, options }) => singleChoice(ref, options, { required }));
      case 'multiple_choice':
        return fc
          .record({ required, options: optionsArb, min: fc.integer({ min: 0, max: 3 }), extra: fc.integer({ min: 0, max: 3 }) })
          .map(({ required, options, min, extra }) => {
            const minSelections = Math.min(min, options.length);
            return multipleChoice(ref, options, {
              required,
              min_selections: minSelections,
              max_selections: Math.max(1, minSelections + extra),
            });
          });
    }
  });
}

/** A value the field accepts (never empty, so it also satisfies `required`). */
export function validValueArb(field: Field): fc.Arbitrary<unknown> {
  switch (field.type) {
    case 'short_text':
    case 'long_text':
      return fc.string({ unit: 'grapheme-ascii', minLength: Math.max(1, field.min_length ?? 0), maxLength: field.max_length });
    case 'email':
      return fc.tuple(word, word).map(([local, domain]) => `${local}@${domain}.example`);
    case 'phone':
      return fc.stringMatching(/^\+[1-9][0-9]{6,14}$/);
    case 'website':
      return word.map((host) => `https://${host}.example/`);
    case 'number':
      return fc.integer({ min: Math.ceil(field.minimum ?? -1000), max: Math.floor(field.maximum ?? 1000) });
    case 'rating':
      return fc.integer({ min: 1, max: field.scale });
    case 'date': {
      const from = Date.parse(field.min_date ?? '2024-01-01') / 86_400_000;
      const to = Date.parse(field.max_date ?? '2026-01-01') / 86_400_000;
      return fc.integer({ min: from, max: to }).map((day) => new Date(day * 86_400_000).toISOString().slice(0, 10));
    }
    case 'single_choice':
      return fc.constantFrom(...field.options.map((option) => option.value));
    case 'multiple_choice': {
      const values = field.options.map((option) => option.value);
      const max = Math.min(values.length, field.max_selections ?? values.length);
      return fc.subarray(values, { minLength: Math.max(1, field.min_selections ?? 0), maxLength: max });
    }
    case 'yes_no':
      return fc.boolean();
    case 'consent':
      return fc.constant(true);
    case 'hidden':
      return fc.string({ maxLength: 20 });
  }
}

/** Anything an answer could be, fitting or not. */
export const anyValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', 'a', 'b', '2024-05-01', '+14155550100', 'x@y.example', 'https://a.example'),
  fc.integer({ min: -100, max: 100 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.constantFrom(...OPTION_VALUES), { maxLength: 4 }),
);

function fieldConditionArb(field: Field): fc.Arbitrary<Condition> {
  const presence = fc.constantFrom('is_answered' as const, 'is_not_answered' as const).map((op): Condition => ({ field: field.ref, op }));
  const compare = (ops: ('equals' | 'not_equals' | 'contains')[], values: fc.Arbitrary<string | number | boolean>) =>
    fc.record({ op: fc.constantFrom(...ops), value: values }).map(({ op, value }): Condition => ({ field: field.ref, op, value }));
  const order = (values: fc.Arbitrary<string | number>) =>
    fc
      .record({
        op: fc.constantFrom('equals' as const, 'not_equals' as const, 'gt' as const, 'gte' as const, 'lt' as const, 'lte' as const),
        value: values,
      })
      .map(
        ({ op, value }): Condition =>
          op === 'equals' || op === 'not_equals' ? { field: field.ref, op, value } : { field: field.ref, op, value },
      );

  switch (field.type) {
    case 'short_text':
    case 'long_text':
    case 'email':
    case 'phone':
    case 'website':
    case 'hidden':
      return fc.oneof(presence, compare(['equals', 'not_equals', 'contains'], fc.string({ maxLength: 4 })));
    case 'single_choice':
      return fc.oneof(presence, compare(['equals', 'not_equals'], fc.constantFrom(...field.options.map((o) => o.value))));
    case 'multiple_choice':
      return fc.oneof(presence, compare(['equals', 'not_equals', 'contains'], fc.constantFrom(...field.options.map((o) => o.value))));
    case 'number':
    case 'rating':
      return fc.oneof(presence, order(fc.integer({ min: -50, max: 50 })));
    case 'date':
      return fc.oneof(presence, order(dayArb.map(dayToDate)));
    case 'yes_no':
    case 'consent':
      return fc.oneof(presence, compare(['equals', 'not_equals'], fc.boolean()));
  }
}

/** A well-typed condition over the given fields, at most `depth` levels deep. */
export function conditionArb(fields: readonly Field[], depth = 3): fc.Arbitrary<Condition> {
  const leaf = fc.constantFrom(...fields).chain(fieldConditionArb);
  if (depth <= 1) return leaf;
  const nested = fc.array(conditionArb(fields, depth - 1), { minLength: 1, maxLength: 3 });
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: nested.map((all): Condition => ({ all })) },
    { weight: 1, arbitrary: nested.map((any): Condition => ({ any })) },
  );
}

function logicArb(steps: readonly Step[]): fc.Arbitrary<LogicRule[]> {
  const perStep = steps.map((from, index) => {
    // A rule may read fields of its own and earlier steps, and hidden fields anywhere.
    const readable = steps.flatMap((s, i) => s.fields.filter((f) => i <= index || f.type === 'hidden'));
    if (readable.length === 0) return fc.constant([] as Omit<LogicRule, 'id'>[]);
    const later = steps.slice(index + 1).map((s) => s.id);
    const then =
      later.length === 0
        ? fc.constant({ action: 'end_form' as const })
        : fc.oneof(
            fc.constant({ action: 'end_form' as const }),
            fc.constantFrom(...later).map((target) => ({ action: 'jump_to_step' as const, step: target })),
          );
    return fc.array(
      fc.record({ when: conditionArb(readable), then }).map((rule) => ({ from_step: from.id, ...rule })),
      { maxLength: 2 },
    );
  });
  return fc
    .tuple(...perStep)
    .map((lists) => lists.flat().map((rule, i): LogicRule => ({ id: `rule_${i}`, ...rule })))
    .chain((rules) => fc.shuffledSubarray(rules, { minLength: rules.length, maxLength: rules.length }));
}

function scoringArb(steps: readonly Step[]): fc.Arbitrary<FormDefinition['scoring']> {
  const fields = steps.flatMap((s) => s.fields);
  const rules: fc.Arbitrary<ScoringRule[]> =
    fields.length === 0
      ? fc.constant([])
      : fc
          .array(fc.record({ when: conditionArb(fields), points: fc.integer({ min: -20, max: 20 }) }), { maxLength: 4 })
          .map((list) => list.map((rule, i) => ({ id: `score_${i}`, ...rule })));
  const grades = fc
    .uniqueArray(fc.integer({ min: -30, max: 60 }), { maxLength: 4 })
    .map((thresholds) => thresholds.map((min_score, i) => ({ label: `Grade ${i}`, min_score })));
  return fc.record({ rules, grades });
}

/** Definitions that satisfy every rule of validateFormDefinition. */
export const validDefinitionArb: fc.Arbitrary<FormDefinition> = fc
  .uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/), { minLength: 0, maxLength: 6 })
  .chain((stepIds) =>
    fc.tuple(
      ...stepIds.map((id, stepIndex) =>
        fc
          .integer({ min: 0, max: 4 })
          .chain((count) =>
            fc
              .tuple(...Array.from({ length: count }, (_, fieldIndex) => fieldArb(`f${stepIndex}_${fieldIndex}`)))
              .map((fields) => step(id, ...fields)),
          ),
      ),
    ),
  )
  .chain((steps) =>
    fc.record({ logic: logicArb(steps), scoring: scoringArb(steps) }).map(({ logic, scoring }) => ({ steps, logic, scoring })),
  );

/** Values for every field of a definition: fitting ones, or junk, or nothing. */
export function answersArb(
  definition: FormDefinition,
  junk: boolean,
): fc.Arbitrary<{ answers: Record<string, unknown>; hidden: Record<string, unknown> }> {
  const fields = definition.steps.flatMap((s) => s.fields);
  const answerFor = (field: Field) =>
    junk
      ? fc.option(fc.oneof(validValueArb(field), anyValueArb), { nil: undefined })
      : fc.option(validValueArb(field), { nil: undefined, freq: 4 });
  return fc.tuple(...fields.map(answerFor)).map((values) => {
    const answers: Record<string, unknown> = {};
    const hiddenValues: Record<string, unknown> = {};
    fields.forEach((field, i) => {
      if (values[i] === undefined) return;
      (field.type === 'hidden' ? hiddenValues : answers)[field.ref] = values[i];
    });
    return { answers, hidden: hiddenValues };
  });
}

/** Definitions that break the rules: repeated ids, unknown targets, backward jumps, ill-typed conditions. */
const STEP_POOL = ['a', 'b', 'c', 'd'];
const REF_POOL = ['x', 'y', 'z'];
const anyConditionArb: fc.Arbitrary<Condition> = fc.letrec<{ condition: Condition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .record({
        field: fc.constantFrom(...REF_POOL),
        op: fc.constantFrom('equals', 'not_equals', 'contains', 'gt', 'gte', 'lt', 'lte', 'is_answered', 'is_not_answered'),
        value: fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant('2024-05-01')),
      })
      .map((c) => c as unknown as Condition),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((all): Condition => ({ all })),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((any): Condition => ({ any })),
  ),
})).condition;

export const anyDefinitionArb: fc.Arbitrary<FormDefinition> = fc
  .array(
    fc
      .tuple(fc.constantFrom(...STEP_POOL), fc.uniqueArray(fc.constantFrom(...REF_POOL), { maxLength: 2 }))
      .chain(([id, refs]) => fc.tuple(...refs.map(fieldArb)).map((fields) => step(id, ...fields))),
    { maxLength: 6 },
  )
  .chain((steps) =>
    fc.record({
      steps: fc.constant(steps),
      logic: fc.array(
        fc.record({
          id: fc.constantFrom('r1', 'r2'),
          from_step: fc.constantFrom(...STEP_POOL, 'gone'),
          when: anyConditionArb,
          then: fc.oneof(
            fc.constant({ action: 'end_form' as const }),
            fc.constantFrom(...STEP_POOL, 'gone').map((target) => ({ action: 'jump_to_step' as const, step: target })),
          ),
        }),
        { maxLength: 8 },
      ),
      scoring: fc.constant({ rules: [], grades: [] }),
    }),
  );

export const anyAnswersArb: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(fc.constantFrom(...REF_POOL, 'other'), anyValueArb);

/** The same entries in another key order. */
export function reordered<T>(record: Record<string, T>): fc.Arbitrary<Record<string, T>> {
  const entries = Object.entries(record);
  return fc
    .shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length })
    .map((shuffled) => Object.fromEntries(shuffled));
}
