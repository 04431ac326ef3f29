/**
 * One step of a form as the hosted page shows it: the form's logo and name, the progress, the step's heading,
 * description and fields, and the Back and Next (or Submit) buttons; and the form's appearance. The page (main.ts) adds
 * its behaviour to these elements; the dashboard's builder shows the same markup as its preview, so what a form's
 * author sees is what respondents get. The page's own words come from `text`, the form's language (English unless
 * given).
 */
import type { Schema } from '../../contract.js';
import { type AskedField, h, renderField } from './fields.js';
import { englishText, type Localizer } from './i18n/localize.js';

type Appearance = Schema<'FormAppearance'>;
type Logo = Schema<'FormLogo'>;

/** What the top of every screen shows of a form. */
export interface FormBrand {
  name: string;
  logo?: Logo | null;
}

export const askedFields = (fields: readonly Schema<'Field'>[]): AskedField[] =>
  fields.filter((field): field is AskedField => field.type !== 'hidden');

export interface StepPlace {
  /** 1-based position of the step on the respondent's path, and the path's length. */
  position: number;
  total: number;
  /** Whether the step is the last on the path (its button submits). */
  isLast: boolean;
  /** Whether Back is offered (not on the first step shown). */
  canGoBack: boolean;
}

export interface StepView {
  /** The page's content, in order: the form's logo and name, the progress and the step's form. */
  nodes: HTMLElement[];
  heading: HTMLHeadingElement;
  form: HTMLFormElement;
  back: HTMLButtonElement;
  next: HTMLButtonElement;
  /** Shows another place on the path (the path follows the answers): the progress, and whether the button submits. */
  showPlace(place: Pick<StepPlace, 'position' | 'total' | 'isLast'>): void;
}

/** The tallest and widest a logo is shown, in CSS pixels: a header's size, never larger than the image itself. */
const logoBox = { width: 280, height: 64 };

/**
 * The form's logo, sized by its width and height attributes before it loads (no layout shift): the image scaled down
 * into the logo box, keeping its proportions. The stylesheet narrows it further on a narrow screen.
 */
function logoImage(logo: Logo, name: string, text: Localizer): HTMLImageElement {
  const scale = Math.min(1, logoBox.width / logo.width, logoBox.height / logo.height);
  return h('img', {
    class: 'logo',
    src: logo.url,
    alt: text.text('logoAlt', { name }),
    width: Math.max(1, Math.round(logo.width * scale)),
    height: Math.max(1, Math.round(logo.height * scale)),
  });
}

/** The top of every screen (a step, the welcome, the ending): the logo, if the form has one, and the form's name. */
export function renderBrand(form: FormBrand, text: Localizer = englishText): HTMLElement[] {
  return [...(form.logo ? [logoImage(form.logo, form.name, text)] : []), h('h1', {}, form.name)];
}

/** `extra` goes after the fields, inside the step's form (the page's honeypot). */
export function renderStep(
  form: FormBrand,
  step: Schema<'Step'>,
  answers: Record<string, unknown>,
  place: StepPlace,
  extra: Node | '' = '',
  text: Localizer = englishText,
): StepView {
  const heading = h('h2', { tabindex: -1, id: 'step-title' }, step.title);
  const fields = askedFields(step.fields).map((field) => renderField(field, answers[field.ref], text));
  const back = h('button', { type: 'button', class: 'secondary', id: 'back', hidden: !place.canGoBack }, text.text('back'));
  const next = h('button', { type: 'submit', id: 'next' });
  const formElement = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'step-title' },
    heading,
    step.description ? h('p', { class: 'description' }, step.description) : '',
    ...fields,
    extra,
    h('div', { class: 'actions' }, back, next),
  );
  const bar = h('progress');
  const caption = h('p', { 'aria-hidden': 'true' });
  const showPlace = ({ position, total, isLast }: Pick<StepPlace, 'position' | 'total' | 'isLast'>) => {
    const words = text.text('progress', { position, total });
    bar.max = total;
    bar.value = position;
    bar.setAttribute('aria-label', words);
    caption.textContent = words;
    next.textContent = text.text(isLast ? 'submit' : 'next');
  };
  showPlace(place);
  const nodes = [...renderBrand(form, text), h('div', { class: 'progress' }, bar, caption), formElement];
  return { nodes, heading, form: formElement, back, next, showPlace };
}

/** The form's accent colour and typeface on `root` (the page's `<html>`, or a preview's). */
export function applyAppearance(appearance: Appearance, root: HTMLElement = document.documentElement): void {
  // Through the CSSOM, which the page's Content-Security-Policy allows (a style attribute it would not).
  root.style.setProperty('--accent', appearance.accent_color);
  root.classList.toggle('serif', appearance.font === 'serif');
}

/** The form's language on `root`: `lang` for assistive technology and hyphenation, `dir` for right-to-left scripts. */
export function applyLanguage(tag: string, text: Localizer, root: HTMLElement = document.documentElement): void {
  root.lang = tag;
  root.dir = text.dir;
}
