/**
 * The OAuth consent page at the authorization URL: which application, which workspace (a choice when the person
 * belongs to several), which environment, and what the application may do, in words. Scopes the person's role cannot
 * grant are listed as not granted, so nobody approves more than they see. Approve and Deny post one form back to the
 * same path with the request's parameters in hidden fields.
 */
import type { Environment, Plan, Schema } from '../../contract.js';
import { hiddenField, html, type PageAssets, peopleDocument } from './layout.js';

export interface ScopeInWords {
  /** The scope's name (`read`, `read_write`, `admin`), shown beside its words. */
  scope: string;
  /** What the scope allows, in words. */
  words: string;
}

export interface ConsentView {
  /** The OAuth client's name, as registered. */
  clientName: string;
  /** The host of the redirect URI the person returns to. */
  redirectHost: string;
  workspaces: ReadonlyArray<{ id: string; name: string; role: Schema<'MemberRole'>; plan: Plan }>;
  /** The workspace checked first (the only one, or the person's last choice). */
  selectedWorkspaceId: string;
  environment: Environment;
  /** The scopes asked for that the selected workspace's role can grant. */
  scopes: readonly ScopeInWords[];
  /** The scopes asked for that it cannot: shown as not granted. */
  deniedScopes: readonly ScopeInWords[];
  /** The authorization request's parameters, posted back unchanged (client_id, redirect_uri, state, PKCE…). */
  hidden: Readonly<Record<string, string>>;
  account: { email: string; name: string | null };
  /** Where the form posts: the authorization URL's path. */
  action?: string;
}

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

function workspaceChoice(view: ConsentView): string {
  if (view.workspaces.length === 1) {
    const [only] = view.workspaces;
    return (
      `<p>Workspace: <strong>${html(only!.name)}</strong> <span class="hint">(${html(capitalised(only!.role))}, ` +
      `${html(capitalised(only!.plan))} plan)</span></p>\n${hiddenField('workspace', only!.id)}\n`
    );
  }
  const options = view.workspaces
    .map((workspace, index) => {
      const id = `workspace-${index}`;
      const checked = workspace.id === view.selectedWorkspaceId ? ' checked' : '';
      return (
        `<div class="choice"><input type="radio" id="${id}" name="workspace" value="${html(workspace.id)}"${checked} required>` +
        `<label for="${id}">${html(workspace.name)} <span class="hint">(${html(capitalised(workspace.role))}, ` +
        `${html(capitalised(workspace.plan))} plan)</span></label></div>\n`
      );
    })
    .join('');
  return (
    '<fieldset class="field">\n<legend>Workspace</legend>\n' +
    options +
    '<p class="hint">Your role in the workspace you choose limits what the application is granted.</p>\n</fieldset>\n'
  );
}

const scopeList = (scopes: readonly ScopeInWords[], className: string): string =>
  `<ul class="${className}">\n${scopes
    .map((scope) => `<li>${html(scope.words)} <code>${html(scope.scope)}</code></li>\n`)
    .join('')}</ul>\n`;

export function consentPage(assets: PageAssets, view: ConsentView): string {
  const environment =
    view.environment === 'test'
      ? '<p class="environment environment-test"><strong>Test environment</strong>: the application sees test data ' +
        'only, never live forms or submissions.</p>\n'
      : '<p class="environment">Environment: <strong>Live</strong>.</p>\n';
  const granted =
    view.scopes.length > 0
      ? `<h2>It will be able to</h2>\n${scopeList(view.scopes, 'scopes')}`
      : '<h2>It will be able to</h2>\n<p>Nothing: your role grants none of the access it asks for.</p>\n';
  const denied =
    view.deniedScopes.length > 0
      ? `<h2>Not granted</h2>\n<p class="hint">Asked for, but beyond what your role can grant:</p>\n${scopeList(view.deniedScopes, 'scopes scopes-denied')}`
      : '';
  const hidden = Object.entries(view.hidden)
    .map(([name, value]) => `${hiddenField(name, value)}\n`)
    .join('');
  const body =
    `<p>Signed in as <strong class="address">${html(view.account.email)}</strong>.</p>\n` +
    `<form method="post" action="${html(view.action ?? '/oauth/authorize')}">\n` +
    hidden +
    workspaceChoice(view) +
    environment +
    granted +
    denied +
    `<p>You will be sent back to <strong class="address">${html(view.redirectHost)}</strong>.</p>\n` +
    '<div class="actions">\n' +
    '<button type="submit" name="decision" value="deny" class="secondary">Deny</button>\n' +
    '<button type="submit" name="decision" value="approve">Approve</button>\n' +
    '</div>\n' +
    '</form>\n';
  return peopleDocument({ heading: `${view.clientName} wants to access your Form-Funnel workspace`, body, assets });
}
