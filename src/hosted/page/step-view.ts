/**
 * One step of a form as the hosted page shows it: the form's name, the progress, the step's heading, description and
 * fields, and the Back and Next (or Send) buttons; and the form's appearance. The page (main.ts) adds its behaviour to
 * these elements; the dashboard's builder shows the same markup as its preview, so what a form's author sees is what
 * respondents get.
 */
import type { Schema } from '../../contract.js';
import { type AskedField, h, renderField } from './fields.js';

type Appearance = Schema<'FormAppearance'>;

export const askedFields = (fields: readonly Schema<'Field'>[]): AskedField[] =>
  fields.filter((field): field is AskedField => field.type !== 'hidden');

export interface StepPlace {
  /** 1-based position of the step on the respondent's path, and the path's length. */
  position: number;
  total: number;
  /** Whether the step is the last on the path (its button sends). */
  isLast: boolean;
  /** Whether Back is offered (not on the first step shown). */
  canGoBack: boolean;
}

export interface StepView {
  /** The page's content, in order: the form's name, the progress and the step's form. */
  nodes: HTMLElement[];
  heading: HTMLHeadingElement;
  form: HTMLFormElement;
  back: HTMLButtonElement;
  next: HTMLButtonElement;
}

/** `extra` goes after the fields, inside the step's form (the page's honeypot). */
export function renderStep(
  form: { name: string },
  step: Schema<'Step'>,
  answers: Record<string, unknown>,
  place: StepPlace,
  extra: Node | '' = '',
): StepView {
  const heading = h('h2', { tabindex: -1, id: 'step-title' }, step.title);
  const fields = askedFields(step.fields).map((field) => renderField(field, answers[field.ref]));
  const back = h('button', { type: 'button', class: 'secondary', id: 'back', hidden: !place.canGoBack }, 'Back');
  const next = h('button', { type: 'submit', id: 'next' }, place.isLast ? 'Send' : 'Next');
  const formElement = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'step-title' },
    heading,
    step.description ? h('p', { class: 'description' }, step.description) : '',
    ...fields,
    extra,
    h('div', { class: 'actions' }, back, next),
  );
  const { position, total } = place;
  const nodes = [
    h('h1', {}, form.name),
    h(
      'div',
      { class: 'progress' },
      h('progress', { max: total, value: position, 'aria-label': `Step ${position} of ${total}` }),
      h('p', { 'aria-hidden': 'true' }, `Step ${position} of ${total}`),
    ),
    formElement,
  ];
  return { nodes, heading, form: formElement, back, next };
}

/** The form's accent colour and typeface on `root` (the page's `<html>`, or a preview's). */
export function applyAppearance(appearance: Appearance, root: HTMLElement = document.documentElement): void {
  // Through the CSSOM, which the page's Content-Security-Policy allows (a style attribute it would not).
  root.style.setProperty('--accent', appearance.accent_color);
  root.classList.toggle('serif', appearance.font === 'serif');
}
