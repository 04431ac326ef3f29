/**
 * The authorization step (RFC 6749 section 4.1.1 to 4.1.2): the user of a workspace consents on the
 * dashboard's screen, and is sent back to the client's redirect URI with a code. The screen is not part of
 * this API; the operator command `npm run admin -- oauth-authorize` and the tests stand in for it and call
 * this with the parameters of the authorization URL.
 *
 * Every check happens before anything is stored. A real consent screen shows the first two failures (unknown
 * client, unregistered redirect URI) to the user instead of redirecting (RFC 6749 section 4.1.2.1); the others
 * it would report to the client as `error=` on the redirect.
 */
import type { Environment, Scope, ValidationIssue } from '../../contract.js';
import { type AppError, forbidden, invalidValue } from '../errors.js';
import type { Services } from '../services.js';
import { oauthPlan, planAllowsClient, redirectUrisOf } from './first-party.js';
import { codeChallengePattern, supportedChallengeMethods } from './pkce.js';
import { parseScopes, scopeList } from './scopes.js';
import { authorizationCodeLifetimeSeconds, generateAuthorizationCode, hashToken, newOAuthId, secondsAfter } from './secrets.js';

export { oauthPlan };

/** `state` goes back to the client verbatim; it must survive a URL and stay a reasonable size. */
const statePattern = /^[\x20-\x7E]{1,500}$/;

export interface AuthorizationRequest {
  workspaceId: string;
  clientId: string;
  /** Space-separated scopes (RFC 6749 section 3.3). */
  scope: string;
  redirectUri: string;
  codeChallenge: string;
  /** Defaults to `plain` in RFC 7636, which is refused: clients must send `S256`. */
  codeChallengeMethod: string;
  state?: string | undefined;
  /** `live` (the default) or `test`: shown on the consent screen; every token of the grant acts in it. */
  environment?: string | undefined;
  /** The member who consents on the consent page; none for the operator's command. The grant records them. */
  memberId?: string | undefined;
  /** The origin the consent page was reached at: the dashboard's redirect URI is on it (first-party.ts). */
  origin?: string | undefined;
}

export interface Authorization {
  /** Where the user's browser goes next: the redirect URI with `code` (and `state`). */
  redirectUrl: string;
  code: string;
  state: string | null;
  scopes: Scope[];
  environment: Environment;
  expiresAt: string;
}

/** `Record<Environment, …>` fails to compile when the document adds an environment. */
const environments: Record<Environment, true> = { live: true, test: true };
const isEnvironment = (value: string): value is Environment => Object.hasOwn(environments, value);

/** An authorization request parameter the service cannot accept; they arrive in the authorization URL's query. */
const invalidParameter = (name: string, code: string, message: string): AppError =>
  invalidValue([{ location: 'query', pointer: `/${name}`, code, message } satisfies ValidationIssue], `${name} ${message}.`);

export async function authorizeOAuthClient(services: Services, request: AuthorizationRequest): Promise<Authorization> {
  const { store } = services;
  const client = await store.oauth.getClient(request.clientId);
  if (!client) throw invalidParameter('client_id', 'not_found', 'names no registered OAuth client');
  const registered = redirectUrisOf(client, request.origin);
  if (!registered.includes(request.redirectUri)) {
    throw invalidParameter(
      'redirect_uri',
      'not_found',
      `is not registered for this client (exact match required; registered: ${registered.join(', ')})`,
    );
  }
  const workspace = await store.workspaces.get(request.workspaceId);
  if (!workspace) throw invalidParameter('workspace', 'not_found', 'names no workspace');
  if (!planAllowsClient(workspace.plan, client.id)) {
    throw forbidden(
      'plan_required',
      `OAuth 2.0 is available on the ${oauthPlan} plan only; workspace ${workspace.id} is on the ${workspace.plan} plan.`,
      {
        required_plan: oauthPlan,
      },
    );
  }
  const scopes = parseScopes(request.scope);
  if (!scopes) throw invalidParameter('scope', 'enum', `must be one or more of ${scopeList()}, separated by spaces`);
  if (!(supportedChallengeMethods as readonly string[]).includes(request.codeChallengeMethod)) {
    throw invalidParameter('code_challenge_method', 'enum', `must be ${supportedChallengeMethods.join(', ')} (plain is refused)`);
  }
  if (!codeChallengePattern.test(request.codeChallenge)) {
    throw invalidParameter(
      'code_challenge',
      'pattern',
      'must be the base64url SHA-256 of the code_verifier, 43 characters without padding',
    );
  }
  if (request.state !== undefined && !statePattern.test(request.state)) {
    throw invalidParameter('state', 'pattern', 'must be 1 to 500 printable ASCII characters');
  }
  const environment = request.environment ?? 'live';
  if (!isEnvironment(environment)) throw invalidParameter('environment', 'enum', `must be ${Object.keys(environments).join(' or ')}`);

  const now = services.now();
  const code = generateAuthorizationCode();
  const expiresAt = secondsAfter(now, authorizationCodeLifetimeSeconds);
  await store.oauth.createGrant(
    {
      id: newOAuthId('ogr'),
      clientId: client.id,
      workspaceId: workspace.id,
      scopes,
      environment,
      memberId: request.memberId ?? null,
      createdAt: now.toISOString(),
      revokedAt: null,
    },
    { hash: hashToken(code), redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, expiresAt },
  );
  // Parameters are added to the registered URI, keeping its own query (RFC 6749 section 3.1.2).
  const redirect = new URL(request.redirectUri);
  redirect.searchParams.append('code', code);
  if (request.state !== undefined) redirect.searchParams.append('state', request.state);
  return { redirectUrl: redirect.toString(), code, state: request.state ?? null, scopes, environment, expiresAt };
}
