/**
 * The screens around the steps: the form's welcome before the first step, and after completion its ending (or the
 * page's own thank-you), which names where the respondent is being sent when the ending redirects. Each has the
 * form's logo and name on top and a heading the page moves focus to when the screen appears. The form's texts are
 * plain text; their line breaks are kept (by the stylesheet).
 */
import type { Schema } from '../../contract.js';
import { h } from './fields.js';
import type { Localizer } from './i18n/localize.js';
import { type FormBrand, renderBrand } from './step-view.js';

export interface ScreenView {
  nodes: HTMLElement[];
  heading: HTMLHeadingElement;
}

const screenText = (text: string | null | undefined) => (text ? h('p', { class: 'screen-text' }, text) : '');

/** The welcome screen; `start` opens the first step. */
export function renderWelcome(form: FormBrand, welcome: Schema<'FormWelcome'>, text: Localizer): ScreenView & { start: HTMLButtonElement } {
  const heading = h('h2', { tabindex: -1, id: 'screen-title' }, welcome.title);
  const start = h('button', { type: 'button', id: 'start' }, welcome.button_label ?? text.text('start'));
  const section = h('section', { class: 'screen welcome', 'aria-labelledby': 'screen-title' }, heading, screenText(welcome.text), start);
  return { nodes: [...renderBrand(form, text), section], heading, start };
}

/**
 * The ending: the form's own, or the page's thank-you when it has none. With `redirect`, the address the page is
 * taking the respondent to, it also says so and links there, should the browser not follow.
 */
export function renderEnding(form: FormBrand, ending: Schema<'FormEnding'> | null, text: Localizer, redirect?: URL): ScreenView {
  const heading = h('h2', { tabindex: -1, id: 'screen-title' }, ending ? ending.title : text.text('thanksTitle'));
  const onward = redirect
    ? h(
        'p',
        { class: 'redirecting' },
        `${text.text('redirecting')} `,
        // From inside a frame, the link takes the whole window, as embed.js does for the redirect itself.
        h('a', { href: redirect.href, target: '_top' }, text.text('continue')),
      )
    : '';
  const section = h(
    'section',
    { class: 'screen done', role: 'status', 'aria-labelledby': 'screen-title' },
    heading,
    ending ? screenText(ending.text) : h('p', {}, text.text('thanksText')),
    onward,
  );
  return { nodes: [...renderBrand(form, text), section], heading };
}

/**
 * The ending's redirect address for a completed submission: its `{submission_id}` placeholder replaced by the id,
 * URL-encoded. Only an https:// address, as the contract allows; anything else is not followed.
 */
export function redirectTarget(template: string, submissionId: string | undefined): URL | undefined {
  try {
    const url = new URL(template.replaceAll('{submission_id}', encodeURIComponent(submissionId ?? '')));
    return url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
