/**
 * Signing in: the sign-in page (a passkey, or a link by email), the answer to asking for a link (the same whether or
 * not the address has an account), and the page a link opens (a button that spends it: a GET never does, since mail
 * scanners open links too).
 */
import { passkeyEndpoints } from '../../people/passkey-protocol.js';
import { errorMessage, hiddenField, html, noticeMessage, type PageAssets, peopleDocument } from './layout.js';

export interface SignInView {
  /** The local path to go to once signed in (already checked by the caller). */
  next?: string;
  /** Why the person is here again (an expired link, a refused passkey). */
  error?: string;
  /** Something that went well (signed out). */
  notice?: string;
}

/**
 * The passkey button, hidden until the script shows it (in a browser with WebAuthn); in its place until then a line
 * saying a passkey needs JavaScript, which the script removes: shown where JavaScript is off or the script was
 * blocked, unlike a <noscript>. And the status line the script's messages go to.
 */
export function passkeyButton(ceremony: 'sign-in' | 'register', label: string, attributes: Record<string, string> = {}): string {
  const data = Object.entries(attributes)
    .map(([name, value]) => ` data-${name}="${html(value)}"`)
    .join('');
  const endpoints = passkeyEndpoints[ceremony];
  return (
    `<button type="button" class="passkey" data-passkey="${ceremony}" data-options="${endpoints.options}" ` +
    `data-verify="${endpoints.verify}" data-status="passkey-status" data-fallback="passkey-fallback"${data} hidden>` +
    `${html(label)}</button>\n` +
    '<p id="passkey-fallback" class="hint">A passkey needs JavaScript, which is off in this browser.</p>\n' +
    '<p id="passkey-status" class="status" role="status" aria-live="polite"></p>\n'
  );
}

export function signInPage(assets: PageAssets, view: SignInView): string {
  const body =
    errorMessage(view.error) +
    noticeMessage(view.notice) +
    '<section class="panel" aria-labelledby="passkey-heading">\n' +
    '<h2 id="passkey-heading">With a passkey</h2>\n' +
    '<p class="hint">Your device unlocks it with your fingerprint, face or screen lock.</p>\n' +
    passkeyButton('sign-in', 'Sign in with a passkey', view.next ? { next: view.next } : {}) +
    '</section>\n' +
    '<section class="panel" aria-labelledby="email-heading">\n' +
    '<h2 id="email-heading">With a link by email</h2>\n' +
    '<form method="post" action="/sign-in/email">\n' +
    (view.next ? `${hiddenField('next', view.next)}\n` : '') +
    '<div class="field"><label for="email">Email address</label>\n' +
    '<input id="email" name="email" type="email" autocomplete="username webauthn" required spellcheck="false"></div>\n' +
    '<button type="submit" class="secondary">Email me a sign-in link</button>\n' +
    '</form>\n' +
    '</section>\n';
  return peopleDocument({ heading: 'Sign in to Form-Funnel', body, assets, script: true });
}

export interface EmailSentView {
  /** The address as the person typed it. */
  email: string;
}

export function emailSentPage(assets: PageAssets, view: EmailSentView): string {
  const body =
    `<p>If an account exists for <strong class="address">${html(view.email)}</strong>, a link to sign in is on its way. ` +
    'It works once, and only for a short while.</p>\n' +
    '<p class="hint">Nothing arrived? Check the spam folder, or ask for another link.</p>\n' +
    '<p><a href="/sign-in">Back to sign in</a></p>\n';
  return peopleDocument({ heading: 'Check your email', body, assets });
}

export interface LinkView {
  /** The link's token, posted back by the button (the GET that showed this page spent nothing). */
  token: string;
  /** Whom the link was sent to. */
  email: string;
  next?: string;
  /** What the link is for: signing in (the default), or signing in to accept an invitation. */
  purpose?: 'sign_in' | 'invite';
}

export function linkPage(assets: PageAssets, view: LinkView): string {
  const what =
    view.purpose === 'invite'
      ? 'This link signs you in to Form-Funnel on this device, to accept your invitation.'
      : 'This link signs you in to Form-Funnel on this device.';
  const body =
    `<p>${what} It works once.</p>\n` +
    '<form method="post" action="/sign-in/link">\n' +
    `${hiddenField('token', view.token)}\n` +
    (view.next ? `${hiddenField('next', view.next)}\n` : '') +
    '<button type="submit">Continue</button>\n' +
    '</form>\n' +
    `<p class="hint">Not <span class="address">${html(view.email)}</span>? Close this page: nothing happens until you continue.</p>\n`;
  return peopleDocument({ heading: `Continue as ${view.email}`, body, assets });
}
