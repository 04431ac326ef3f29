/**
 * The OAuth consent page's decisions (RFC 6749 section 4.1.1 to 4.1.2.1). A bad `client_id`, `redirect_uri` or PKCE
 * parameter is shown to the person and never redirected (the redirect could lead anywhere, and a code without PKCE
 * could be exchanged by whoever intercepts it); every other fault goes back to the client as `error=` on its
 * registered redirect URI. A member grants at most what their role allows in the chosen
 * workspace (admin → `admin`, editor → `read_write`, viewer → `read`); the grant records them, so `GET /v1/me` names
 * them and their removal from the workspace revokes it.
 */
import type { Environment, Scope } from '../../contract.js';
import { RecordNotFound } from '../../store/errors.js';
import type { Account, MemberRole, Membership } from '../../store/people-store.js';
import { authorizeOAuthClient } from '../oauth/authorize.js';
import { dashboardClientId, ensureDashboardClient, isFirstPartyClient, planAllowsClient, redirectUrisOf } from '../oauth/first-party.js';
import { codeChallengePattern, supportedChallengeMethods } from '../oauth/pkce.js';
import { parseScopes } from '../oauth/scopes.js';
import type { Services } from '../services.js';
import { membershipsOf } from './accounts.js';
import { PageRefusal } from './refusal.js';

/** What each role may grant, as `../shared` decisions map roles to scopes. `Record` fails to compile on a new role. */
const roleScope: Record<MemberRole, Scope> = { admin: 'admin', editor: 'read_write', viewer: 'read' };
const rank: Record<Scope, number> = { read: 0, read_write: 1, admin: 2 };

export const grantableScopes = (role: MemberRole, requested: readonly Scope[]): { granted: Scope[]; withheld: Scope[] } => ({
  granted: requested.filter((scope) => rank[scope] <= rank[roleScope[role]]),
  withheld: requested.filter((scope) => rank[scope] > rank[roleScope[role]]),
});

/** The authorization request, checked; `parameters` are what the consent form carries back on Approve or Deny. */
export interface ConsentRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string;
  environment: Environment;
  parameters: Record<string, string>;
}

export type CheckedRequest = { ok: true; request: ConsentRequest } | { ok: false; redirect: string };

/** The parameters the request may carry (RFC 6749 section 4.1.1, RFC 7636 section 4.3, and `environment`). */
const parameterNames = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'environment',
] as const;

const statePattern = /^[\x20-\x7E]{1,500}$/;

/** The client is told what went wrong on its own redirect URI, with its `state`. */
function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.append('error', error);
  url.searchParams.append('error_description', description);
  if (state !== undefined) url.searchParams.append('state', state);
  return url.toString();
}

const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `origin` is where the person reached the service: the dashboard's redirect URI is on it. */
export async function checkAuthorizationRequest(
  services: Services,
  query: Record<string, unknown>,
  origin: string,
): Promise<CheckedRequest> {
  const clientId = single(query.client_id);
  const client =
    clientId === dashboardClientId
      ? await ensureDashboardClient(services)
      : clientId
        ? await services.store.oauth.getClient(clientId)
        : undefined;
  if (!clientId || !client) {
    throw new PageRefusal(400, 'Unknown application', 'The link that brought you here names no application registered with Form-Funnel.');
  }
  const redirectUri = single(query.redirect_uri);
  if (!redirectUri || !redirectUrisOf(client, origin).includes(redirectUri)) {
    throw new PageRefusal(
      400,
      'This link is not valid',
      `The address ${client.name} asked to send you back to is not one it registered, so you will not be sent there.`,
    );
  }
  // From here the client is known and its redirect URI registered: faults go back to it.
  const rawState = query.state;
  const state = single(rawState);
  const stateBack = state !== undefined && statePattern.test(state) ? state : undefined;
  const fail = (error: string, description: string): CheckedRequest => ({
    ok: false,
    redirect: errorRedirect(redirectUri, error, description, stateBack),
  });
  for (const name of parameterNames) {
    if (query[name] !== undefined && typeof query[name] !== 'string') return fail('invalid_request', `${name} is given more than once.`);
  }
  if (query.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
  if (state !== undefined && stateBack === undefined) return fail('invalid_request', 'state must be 1 to 500 printable ASCII characters.');
  const scopes = parseScopes(single(query.scope) ?? '');
  if (!scopes) return fail('invalid_scope', 'scope must be one or more of read, read_write, admin, separated by spaces.');
  // Without PKCE a code could be exchanged by whoever intercepts it: such a link is the application's fault, shown to
  // the person as one and never redirected, as the contract's oauth2 scheme says.
  const method = single(query.code_challenge_method);
  const codeChallenge = single(query.code_challenge) ?? '';
  if (!method || !(supportedChallengeMethods as readonly string[]).includes(method) || !codeChallengePattern.test(codeChallenge)) {
    throw new PageRefusal(
      400,
      'This link is not valid',
      `${client.name} sent you here without the proof (PKCE, S256) that keeps your approval safe, so nothing can be approved. Tell its makers.`,
    );
  }
  const environment = single(query.environment) ?? 'live';
  if (environment !== 'live' && environment !== 'test') return fail('invalid_request', 'environment must be live or test.');
  const parameters: Record<string, string> = {};
  for (const name of parameterNames) {
    const value = single(query[name]);
    if (value !== undefined) parameters[name] = value;
  }
  return {
    ok: true,
    request: { clientId, clientName: client.name, redirectUri, scopes, state, codeChallenge, environment, parameters },
  };
}

export interface ConsentChoice {
  /** The workspaces the person may connect the application to (OAuth is an Enterprise feature but for the dashboard). */
  workspaces: Membership[];
  /** Where the person belongs but OAuth is not available. */
  unavailable: Membership[];
}

export async function consentChoices(services: Services, account: Account, clientId: string): Promise<ConsentChoice> {
  const memberships = await membershipsOf(services, account);
  return {
    workspaces: memberships.filter((membership) => planAllowsClient(membership.plan, clientId)),
    unavailable: memberships.filter((membership) => !planAllowsClient(membership.plan, clientId)),
  };
}

/**
 * Approve: records the grant for the member, at most their role's scopes, and gives the redirect with the code. For
 * the dashboard this happens without a page (consent is implied), in the workspace asked for or the first one.
 */
export async function approveConsent(
  services: Services,
  account: Account,
  request: ConsentRequest,
  workspaceId: unknown,
  origin: string,
): Promise<string> {
  const { workspaces } = await consentChoices(services, account, request.clientId);
  const membership =
    workspaces.find((candidate) => candidate.workspaceId === workspaceId) ??
    (isFirstPartyClient(request.clientId) && workspaceId === undefined ? workspaces[0] : undefined);
  if (!membership && isFirstPartyClient(request.clientId)) {
    throw new PageRefusal(
      403,
      workspaces.length === 0 ? 'You are not a member of a workspace' : 'Choose one of your workspaces',
      workspaces.length === 0
        ? 'The dashboard shows a workspace’s forms and leads, and you belong to none. Ask an admin for an invitation.'
        : 'You are not a member of that workspace. Open the dashboard from your account page.',
    );
  }
  if (!membership)
    throw new PageRefusal(
      403,
      'Choose one of your workspaces',
      'You can connect the application to a workspace you belong to on the Enterprise plan only.',
    );
  const { granted } = grantableScopes(membership.role, request.scopes);
  if (granted.length === 0) {
    return errorRedirect(request.redirectUri, 'access_denied', 'The member cannot grant the scopes asked for.', request.state);
  }
  const authorization = await authorizeOAuthClient(services, {
    workspaceId: membership.workspaceId,
    clientId: request.clientId,
    scope: granted.join(' '),
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: 'S256',
    state: request.state,
    environment: request.environment,
    memberId: membership.memberId,
    origin,
  }).catch((error: unknown) => {
    // Removed from the workspace between the page and the answer: the store refuses a grant for a member who is gone.
    if (error instanceof RecordNotFound && error.kind === 'member') {
      throw new PageRefusal(
        403,
        'You are no longer a member',
        `You were removed from ${membership.workspaceName}, so you cannot connect it.`,
      );
    }
    throw error;
  });
  return authorization.redirectUrl;
}

/** Deny: the client hears `access_denied`, with its `state`. */
export const denyConsent = (request: ConsentRequest): string =>
  errorRedirect(request.redirectUri, 'access_denied', 'The person declined.', request.state);
