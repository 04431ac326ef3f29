/**
 * One control per field type of the contract, with the field's limits as the browser's own attributes (so the
 * keyboard and assistive technology know them), and the answer read back as the API takes it. Every control is
 * labelled, and described by its field's error line. The page's own words (yes, no, required) are in the form's
 * language.
 */
import type { Schema } from '../../contract.js';
import { maxLengthOf, ratingScaleOf } from '../../domain/forms/field-defaults.js';
import type { AskedField } from './form-rules.js';
import { englishText, type Localizer } from './i18n/localize.js';

export type { AskedField };

type Field = Schema<'Field'>;

/** Builds an element; attributes set through the DOM, never through HTML strings. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | undefined> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children);
  return element;
}

const idOf = (ref: string) => `field-${ref}`;
export const errorIdOf = (ref: string) => `error-${ref}`;
const hintIdOf = (ref: string) => `hint-${ref}`;

/** What describes a field's control: its description, if any, then its error line. */
const descriptionOf = (field: AskedField) => (field.description ? `${hintIdOf(field.ref)} ${errorIdOf(field.ref)}` : errorIdOf(field.ref));

const inputTypes: Partial<Record<Field['type'], string>> = {
  short_text: 'text',
  email: 'email',
  phone: 'tel',
  website: 'url',
  number: 'number',
  date: 'date',
};

const autocomplete: Partial<Record<Field['type'], string>> = { email: 'email', phone: 'tel', website: 'url' };

function describedBy(field: AskedField): Record<string, string | boolean> {
  return { 'aria-describedby': descriptionOf(field), 'aria-required': field.required ? 'true' : false };
}

function choiceGroup(
  field: AskedField,
  type: 'radio' | 'checkbox',
  options: ReadonlyArray<{ value: string; label: string }>,
  value: unknown,
  text: Localizer,
): HTMLElement {
  const chosen = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
  return h(
    'fieldset',
    { class: 'choices', id: idOf(field.ref), 'aria-describedby': descriptionOf(field) },
    // A group cannot be marked aria-required: its legend says it in words, the "*" being only for the eye.
    h(
      'legend',
      {},
      field.label,
      ...(field.required
        ? [
            h('span', { class: 'required', 'aria-hidden': 'true' }, ' *'),
            h('span', { class: 'visually-hidden' }, ` ${text.text('required')}`),
          ]
        : []),
    ),
    ...options.map((option, index) =>
      h(
        'label',
        { class: 'choice' },
        h('input', {
          type,
          name: field.ref,
          value: option.value,
          id: `${idOf(field.ref)}-${index}`,
          checked: chosen.includes(option.value),
        }),
        h('span', {}, option.label),
      ),
    ),
  );
}

function control(field: AskedField, value: unknown, text: Localizer): HTMLElement {
  switch (field.type) {
    case 'single_choice':
      return choiceGroup(field, 'radio', field.options, value, text);
    case 'multiple_choice':
      return choiceGroup(field, 'checkbox', field.options, value, text);
    case 'yes_no':
      return choiceGroup(
        field,
        'radio',
        [
          { value: 'true', label: text.text('yes') },
          { value: 'false', label: text.text('no') },
        ],
        value,
        text,
      );
    case 'rating': {
      const scale = ratingScaleOf(field);
      return choiceGroup(
        field,
        'radio',
        Array.from({ length: scale }, (_, index) => ({ value: String(index + 1), label: text.number(index + 1) })),
        value,
        text,
      );
    }
    case 'consent':
      return h(
        'div',
        { class: 'consent' },
        h(
          'label',
          { class: 'choice' },
          h('input', { type: 'checkbox', name: field.ref, id: idOf(field.ref), checked: value === true, ...describedBy(field) }),
          h('span', {}, field.label, field.required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : ''),
        ),
      );
    case 'long_text':
      return labelled(
        field,
        h(
          'textarea',
          { name: field.ref, id: idOf(field.ref), maxlength: maxLengthOf(field), rows: 4, ...describedBy(field) },
          typeof value === 'string' ? value : '',
        ),
      );
    default: {
      const limits: Record<string, string | number | undefined> = {};
      if (field.type === 'short_text') limits.maxlength = maxLengthOf(field);
      if (field.type === 'number')
        Object.assign(limits, {
          min: field.minimum,
          max: field.maximum,
          step: field.integer ? 1 : 'any',
          inputmode: field.integer ? 'numeric' : 'decimal',
        });
      if (field.type === 'date') Object.assign(limits, { min: field.min_date, max: field.max_date });
      const input = h('input', {
        type: inputTypes[field.type] ?? 'text',
        name: field.ref,
        id: idOf(field.ref),
        autocomplete: autocomplete[field.type],
        ...limits,
        ...describedBy(field),
      });
      if (value !== undefined) input.value = String(value);
      return labelled(field, input);
    }
  }
}

function labelled(field: AskedField, input: HTMLElement): HTMLElement {
  return h(
    'div',
    {},
    h('label', { for: idOf(field.ref) }, field.label, field.required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : ''),
    input,
  );
}

/** The field's block: its description, control and error line (announced when it changes). */
export function renderField(field: AskedField, value: unknown, text: Localizer = englishText): HTMLElement {
  return h(
    'div',
    { class: 'field', 'data-ref': field.ref },
    control(field, value, text),
    field.description ? h('p', { class: 'hint', id: hintIdOf(field.ref) }, field.description) : '',
    h('p', { class: 'error', id: errorIdOf(field.ref), 'aria-live': 'polite' }),
  );
}

/** The answer in a field's control, as the API takes it; undefined when nothing is entered. */
export function readField(root: ParentNode, field: AskedField): unknown {
  const inputs = [...root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(`[name="${CSS.escape(field.ref)}"]`)];
  const checked = inputs.filter((input) => (input as HTMLInputElement).checked).map((input) => input.value);
  switch (field.type) {
    case 'multiple_choice':
      return checked.length > 0 ? checked : undefined;
    case 'single_choice':
      return checked[0];
    case 'yes_no':
      return checked[0] === undefined ? undefined : checked[0] === 'true';
    case 'rating':
      return checked[0] === undefined ? undefined : Number(checked[0]);
    case 'consent':
      return checked.length > 0 ? true : undefined;
    case 'number': {
      const text = inputs[0]?.value.trim() ?? '';
      return text === '' ? undefined : Number(text);
    }
    default: {
      const text = inputs[0]?.value ?? '';
      return text === '' ? undefined : text;
    }
  }
}
