/**
 * The service's own dashboard (`/dashboard`) is an OAuth client like any partner's, with three differences a
 * first-party client earns: it is registered by the service itself (on first use, so no operator step and no
 * migration), its redirect URI is the dashboard on the origin people reach the service at (which only the request
 * knows: `PUBLIC_BASE_URL`, or the local server's host), and consent is implied: the member signed in to this
 * service to use it. It works on every plan; OAuth for other applications stays an Enterprise feature.
 * The scope still follows the member's role, as for every client. And its grants last only as long as the member is
 * signed in to the service: a refresh, or an API key made with its token, needs a live session of the member's
 * (`memberSignedIn`), so signing out everywhere, or staying away past a session's idle or absolute end, ends the
 * dashboard's access within an access token's hour, and its power to make keys at once.
 */
import type { Plan } from '../../contract.js';
import type { OAuthClient } from '../../store/oauth-store.js';
import { keepLiveSession } from '../people/sessions.js';
import { type Services, timestamp } from '../services.js';

/** OAuth 2.0 for partners' applications is an Enterprise feature, as `Plan` in the document says. */
export const oauthPlan: Plan = 'enterprise';

/** The dashboard's `client_id` (a public client: PKCE, no secret). */
export const dashboardClientId = 'form-funnel-dashboard';
export const dashboardClientName = 'Form-Funnel dashboard';
/** Where the dashboard is served, and so where its authorization ends. */
export const dashboardPath = '/dashboard/';

export const isFirstPartyClient = (clientId: string): boolean => clientId === dashboardClientId;

/** Whether a workspace on `plan` may authorize `clientId`, and use its tokens. */
export const planAllowsClient = (plan: Plan, clientId: string): boolean => plan === oauthPlan || isFirstPartyClient(clientId);

/**
 * The redirect URIs a client may use on a request that reached the service at `origin`: a partner's are the ones
 * it registered; the dashboard's is the dashboard on that same origin (none without one).
 */
export const redirectUrisOf = (client: OAuthClient, origin: string | undefined): readonly string[] =>
  isFirstPartyClient(client.id) ? (origin === undefined ? [] : [`${origin}${dashboardPath}`]) : client.redirectUris;

/** The dashboard's client record, created the first time anyone signs in to the dashboard. */
export async function ensureDashboardClient(services: Services): Promise<OAuthClient> {
  const existing = await services.store.oauth.getClient(dashboardClientId);
  if (existing) return existing;
  const client: OAuthClient = {
    id: dashboardClientId,
    name: dashboardClientName,
    redirectUris: [],
    secretHash: null,
    createdAt: timestamp(services),
  };
  // Two first sign-ins at once (two workers): whichever inserts second changes nothing.
  await services.store.oauth.createClientIfAbsent(client);
  return (await services.store.oauth.getClient(dashboardClientId)) ?? client;
}

/** Whether the member behind a dashboard grant is still signed in to the service (and keeps their session alive). */
export async function memberSignedIn(services: Services, workspaceId: string, memberId: string | null | undefined): Promise<boolean> {
  if (!memberId) return false;
  const member = await services.store.team.getMember(workspaceId, memberId);
  return member !== undefined && keepLiveSession(services, member.email);
}
