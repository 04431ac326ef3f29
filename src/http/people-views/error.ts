/** A refusal, for a person and not a program: a bad authorization request, a spent link, a forged Origin, a 429. */
import { html, type PageAssets, peopleDocument } from './layout.js';

export interface ErrorView {
  status: number;
  title: string;
  /** What happened and what the person can do; one or two sentences. */
  message: string;
}

export function errorPage(assets: PageAssets | undefined, view: ErrorView): string {
  const body =
    `<p>${html(view.message)}</p>\n` +
    `<p class="hint">Error ${html(String(view.status))}</p>\n` +
    '<p><a href="/sign-in">Go to sign in</a></p>\n';
  return peopleDocument({ heading: view.title, body, assets });
}
