/**
 * The account page: the workspaces the person belongs to, their passkeys (add one, remove one) and signing out. With
 * no passkey yet (just signed in by a link) adding one is the page's first offer, since the next sign-in needs it.
 */
import type { Plan, Schema } from '../../contract.js';
import { html, noticeMessage, type PageAssets, peopleDocument, signOutForm } from './layout.js';
import { passkeyButton } from './sign-in.js';

export interface AccountView {
  account: { email: string; name: string | null };
  /** `workspaceId` lets an admin invite people to the workspace from this page. */
  memberships: ReadonlyArray<{ workspaceId?: string; workspaceName: string; role: Schema<'MemberRole'>; plan: Plan }>;
  passkeys: ReadonlyArray<{ id: string; name: string; createdAt: string; lastUsedAt: string | null }>;
  /** What just happened (a passkey added or removed). */
  notice?: string;
}

/** A timestamp as a day people read ("6 Dec 2026"), machine-readable in `datetime`. */
const day = (iso: string): string => {
  const format = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  return `<time datetime="${html(iso)}">${html(format.format(new Date(iso)))}</time>`;
};

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

function passkeyItem(passkey: AccountView['passkeys'][number]): string {
  const used = passkey.lastUsedAt ? `last used ${day(passkey.lastUsedAt)}` : 'not used yet';
  return (
    `<li class="item"><div><strong>${html(passkey.name)}</strong>` +
    `<p class="hint">Added ${day(passkey.createdAt)}, ${used}</p></div>` +
    `<form method="post" action="/account/passkeys/${encodeURIComponent(passkey.id)}/remove" class="inline-form">` +
    `<button type="submit" class="secondary">Remove<span class="visually-hidden"> ${html(passkey.name)}</span></button>` +
    '</form></li>\n'
  );
}

const addPasskey = (): string =>
  '<div class="field"><label for="passkey-name">Name for the new passkey <span class="hint">(optional)</span></label>\n' +
  '<input id="passkey-name" name="passkey-name" type="text" maxlength="100" autocomplete="off" ' +
  'placeholder="e.g. Work laptop"></div>\n' +
  passkeyButton('register', 'Add a passkey', { 'name-input': 'passkey-name' });

/** For an admin: invite someone to one of the workspaces they administer (the API's invitation, emailed). */
function inviteForm(view: AccountView): string {
  const administered = view.memberships.filter((membership) => membership.role === 'admin' && membership.workspaceId);
  const [first] = administered;
  if (!first) return '';
  const workspace =
    administered.length === 1
      ? `<input type="hidden" name="workspace" value="${html(first.workspaceId!)}">\n`
      : '<div class="field"><label for="invite-workspace">Workspace</label>\n<select id="invite-workspace" name="workspace">' +
        administered
          .map((membership) => `<option value="${html(membership.workspaceId!)}">${html(membership.workspaceName)}</option>`)
          .join('') +
        '</select></div>\n';
  const roles = (['viewer', 'editor', 'admin'] as const).map((role) => `<option value="${role}">${capitalised(role)}</option>`).join('');
  return (
    '<section class="panel" aria-labelledby="invite-heading">\n' +
    `<h2 id="invite-heading">Invite someone${administered.length === 1 ? ` to ${html(first.workspaceName)}` : ''}</h2>\n` +
    '<form method="post" action="/account/invites">\n' +
    workspace +
    '<div class="field"><label for="invite-email">Email address</label>\n' +
    '<input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off"></div>\n' +
    `<div class="field"><label for="invite-role">Role</label>\n<select id="invite-role" name="role">${roles}</select></div>\n` +
    '<button type="submit">Invite</button>\n</form></section>\n'
  );
}

export function accountPage(assets: PageAssets, view: AccountView): string {
  const who = view.account.name
    ? `<p>Signed in as <strong>${html(view.account.name)}</strong> (<span class="address">${html(view.account.email)}</span>).</p>\n`
    : `<p>Signed in as <strong class="address">${html(view.account.email)}</strong>.</p>\n`;
  const passkeys =
    view.passkeys.length === 0
      ? '<section class="panel panel-prompt" aria-labelledby="passkeys-heading">\n' +
        '<h2 id="passkeys-heading">Add a passkey</h2>\n' +
        '<p>You have no passkey yet. Add one now: next time you sign in with it, without waiting for an email.</p>\n' +
        `${addPasskey()}</section>\n`
      : '<section class="panel" aria-labelledby="passkeys-heading">\n' +
        '<h2 id="passkeys-heading">Passkeys</h2>\n' +
        `<ul class="list">\n${view.passkeys.map(passkeyItem).join('')}</ul>\n` +
        `${addPasskey()}</section>\n`;
  const memberships =
    '<section class="panel" aria-labelledby="workspaces-heading">\n' +
    '<h2 id="workspaces-heading">Workspaces</h2>\n' +
    (view.memberships.length === 0
      ? '<p>You are not a member of any workspace.</p>\n'
      : `<ul class="list">\n${view.memberships
          .map(
            (membership) =>
              `<li class="item"><div><strong>${html(membership.workspaceName)}</strong>` +
              `<p class="hint">${html(capitalised(membership.role))} · ${html(capitalised(membership.plan))} plan</p></div>` +
              (membership.workspaceId
                ? `<a href="/dashboard/?workspace=${html(encodeURIComponent(membership.workspaceId))}">` +
                  `Open the dashboard<span class="visually-hidden"> of ${html(membership.workspaceName)}</span></a>`
                : '') +
              '</li>\n',
          )
          .join('')}</ul>\n`) +
    '</section>\n';
  const body = noticeMessage(view.notice) + who + passkeys + memberships + inviteForm(view) + signOutForm();
  return peopleDocument({ heading: 'Your account', body, assets, script: true });
}
