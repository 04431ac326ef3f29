/**
 * Authentication by OAuth access token, the bearer-token twin of API key authentication: the token is
 * looked up by its hash, and every failure is the same 401 `invalid_api_key`. As for keys, only a caller
 * holding a real token learns from the message that it was revoked or has expired; an unknown token gets
 * the generic message, so nothing is revealed about which tokens exist. The principal acts for the grant's
 * workspace with the highest granted scope, for the member who approved it (when a member did).
 */
import { type Principal, principalWorkspace } from '../access.js';
import { unauthorized } from '../errors.js';
import type { Services } from '../services.js';
import { oauthPlan, planAllowsClient } from './first-party.js';
import { highestScope } from './scopes.js';
import { hashesMatch, hashToken } from './secrets.js';

/** OAuth access tokens: `svc_oat_` and random base62 characters, sent as a bearer token like an API key. */
export const accessTokenPattern = /^svc_oat_[0-9A-Za-z]{32,64}$/;

/** Resolves an OAuth access token to its principal; unknown, expired or revoked tokens are 401. */
export async function authenticateAccessToken(services: Services, token: string): Promise<Principal> {
  const hash = hashToken(token);
  const record = await services.store.oauth.findAccessToken(hash);
  if (!record || !hashesMatch(record.hash, hash)) throw unauthorized();
  if (record.revokedAt !== null || record.grant.revokedAt !== null) throw unauthorized('This OAuth access token has been revoked.');
  if (Date.parse(record.expiresAt) <= services.now().getTime()) {
    throw unauthorized('This OAuth access token has expired; get a new one with the refresh token.');
  }
  const workspace = await services.store.workspaces.get(record.grant.workspaceId);
  if (!workspace) throw unauthorized();
  if (!planAllowsClient(workspace.plan, record.grant.clientId))
    throw unauthorized(`OAuth access tokens work only while the workspace is on the ${oauthPlan} plan.`);
  return {
    authType: 'oauth_token',
    id: record.id,
    name: record.clientName,
    workspace: principalWorkspace(workspace),
    // The environment the user consented to, as for a live or test API key.
    environment: record.grant.environment,
    scope: highestScope(record.grant.scopes),
    attachment: { type: 'workspace' },
    expiresAt: record.expiresAt,
    credentialId: record.grant.id,
    oauthClientId: record.grant.clientId,
    memberId: record.grant.memberId,
  };
}
