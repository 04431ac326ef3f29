/**
 * The frame of every people page (sign-in, invitation, account, OAuth consent): a complete HTML document with the
 * hashed stylesheet and, only where a passkey ceremony runs, the hashed script. No inline script or style anywhere, so
 * the pages run under `peoplePagePolicy`; what the script needs is in data attributes.
 */
import type { HostedAssetManifest } from '../../hosted/manifest.js';
import { escapeHtml } from '../escape-html.js';

/**
 * The people pages' Content-Security-Policy: files of the page's own origin only, forms posting to it only, or, on the
 * consent page, also to the application's redirect origin (`formTarget`): browsers hold the redirect that follows a
 * form's POST to `form-action` too, and Approve and Deny end there.
 */
export const peoplePolicy = (formTarget?: string): string =>
  [
    "default-src 'self'",
    "base-uri 'none'",
    `form-action 'self'${formTarget ? ` ${formTarget}` : ''}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

export const peoplePagePolicy = peoplePolicy();

/** Where the pages load their two files from (paths on the page's origin, with the content hash in the name). */
export interface PageAssets {
  stylesheet: string;
  script: string;
}

/** The built files' paths, as the hosted page's asset route serves them (`/f/assets/<hashed name>`). */
export const peopleAssets = (manifest: Pick<HostedAssetManifest, 'people.css' | 'people.js'>): PageAssets => ({
  stylesheet: `/f/assets/${manifest['people.css']}`,
  script: `/f/assets/${manifest['people.js']}`,
});

/** Every value interpolated into a page goes through this: text and quoted attribute values alike. */
export const html = escapeHtml;

export interface Document {
  /** The page's one `<h1>`, and the start of its `<title>`. */
  heading: string;
  /** The markup under the heading, already escaped. */
  body: string;
  /** Absent when the browser files are not built: the page still reads, unstyled (an error page, mostly). */
  assets: PageAssets | undefined;
  /** Whether the page runs a passkey ceremony and so loads the script. */
  script?: boolean;
}

export function peopleDocument({ heading, body, assets, script = false }: Document): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<title>${html(heading)} · Form-Funnel</title>
${assets ? `<link rel="stylesheet" href="${html(assets.stylesheet)}">\n` : ''}${script && assets ? `<script src="${html(assets.script)}" defer></script>\n` : ''}</head>
<body>
<header class="brand"><p>Form-Funnel</p></header>
<main>
<h1>${html(heading)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** A hidden field of a form: no label (nothing to fill in), the value escaped. */
export const hiddenField = (name: string, value: string): string => `<input type="hidden" name="${html(name)}" value="${html(value)}">`;

/** A message the server has for the person on arrival: an error (an alert, read out at once)... */
export const errorMessage = (text: string | undefined): string =>
  text ? `<p class="message message-error" role="alert">${html(text)}</p>\n` : '';

/** ...or news (a status: what just happened, read out politely). */
export const noticeMessage = (text: string | undefined): string =>
  text ? `<p class="message message-notice" role="status">${html(text)}</p>\n` : '';

/** The sign-out button: a POST from this origin (the server checks Origin), never a link a prefetch could follow. */
export const signOutForm = (next?: string): string =>
  `<form method="post" action="/sign-out" class="inline-form">${next ? hiddenField('next', next) : ''}` +
  '<button type="submit" class="secondary">Sign out</button></form>';

/** "a viewer", "an admin", "an editor". */
export const withArticle = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
