/**
 * An invitation's page, opened from its email: which workspace, which role and what it allows, and one button that
 * accepts it. Signed in with another address, the page says so and offers to sign out instead: an invitation is
 * accepted only by the account of the address it was sent to.
 */
import type { Schema } from '../../contract.js';
import { hiddenField, html, type PageAssets, peopleDocument, signOutForm, withArticle } from './layout.js';

export interface InviteView {
  /** The invitation link's token, posted back by the Accept button. */
  token: string;
  workspaceName: string;
  role: Schema<'MemberRole'>;
  /** What the role allows, as a sentence; by default what the contract's description of `MemberRole` says. */
  roleWords?: string;
  /** The invited address. */
  email: string;
  /** Who sent it (a name or an address); absent when unknown. */
  inviter?: string | null;
  /** The signed-in account's email, when someone is signed in on this browser. */
  signedInAs?: string | null;
}

/** The contract's description of `MemberRole`, one role at a time, for a caller that passes no words of its own. */
const defaultRoleWords: Record<Schema<'MemberRole'>, string> = {
  admin: 'An admin can do everything: forms, submissions, integrations, keys, the team and billing.',
  editor: 'An editor works on forms, submissions and integrations.',
  viewer: 'A viewer can read the workspace’s forms and submissions, and change nothing.',
};

export function invitePage(assets: PageAssets, view: InviteView): string {
  const invitedBy = view.inviter ? `${html(view.inviter)} invited` : 'This is an invitation for';
  const lead =
    `<p>${invitedBy} <strong class="address">${html(view.email)}</strong> ` +
    `to the <strong>${html(view.workspaceName)}</strong> workspace on Form-Funnel.</p>\n` +
    `<p>${html(view.roleWords ?? defaultRoleWords[view.role])}</p>\n`;
  const other = view.signedInAs && view.signedInAs.toLowerCase() !== view.email.toLowerCase() ? view.signedInAs : undefined;
  const action = other
    ? `<p class="message message-error" role="alert">You are signed in as <strong class="address">${html(other)}</strong>, ` +
      `and this invitation is for <strong class="address">${html(view.email)}</strong>. Sign out, then open the ` +
      'invitation again to accept it.</p>\n' +
      signOutForm(`/invites/accept?token=${encodeURIComponent(view.token)}`)
    : (view.signedInAs ? `<p class="hint">Signed in as <span class="address">${html(view.signedInAs)}</span>.</p>\n` : '') +
      '<form method="post" action="/invites/accept">\n' +
      `${hiddenField('token', view.token)}\n` +
      '<button type="submit">Accept invitation</button>\n' +
      '</form>\n';
  return peopleDocument({ heading: `Join ${view.workspaceName} as ${withArticle(view.role)}`, body: lead + action, assets });
}
