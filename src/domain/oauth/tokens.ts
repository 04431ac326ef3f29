/**
 * The token endpoint's two grants (RFC 6749 sections 4.1.3 and 6). Following RFC 6819 and the OAuth 2.0
 * Security BCP: a code works once, and the first exchange that presents it uses it up, whether or not it
 * succeeds; presenting it again revokes everything issued from it. Refresh tokens are rotated on every use,
 * and presenting a rotated one revokes every token of its grant, since either the client or an attacker
 * holds a stolen copy and the service cannot tell which.
 */
import type { Scope } from '../../contract.js';
import { isStoreConflict } from '../../store/errors.js';
import type { OAuthGrant, TokenPair } from '../../store/oauth-store.js';
import { type AppError, invalidGrant } from '../errors.js';
import type { Services } from '../services.js';
import { authenticateClient } from './clients.js';
import { isFirstPartyClient, memberSignedIn, oauthPlan, planAllowsClient } from './first-party.js';
import { verifierMatchesChallenge } from './pkce.js';
import {
  accessTokenLifetimeSeconds,
  authorizationCodePattern,
  generateAccessToken,
  generateRefreshToken,
  hashesMatch,
  hashToken,
  newOAuthId,
  refreshTokenLifetimeSeconds,
  refreshTokenPattern,
  secondsAfter,
} from './secrets.js';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  /** The granted scopes, in ascending power. */
  scopes: Scope[];
}

const unusableCode = (): AppError => invalidGrant('The authorization code is invalid, expired or already used.');
const unusableRefreshToken = (): AppError => invalidGrant('The refresh token is invalid, expired or revoked.');

/** Who is asking: `client_id`, and a confidential client's secret (from HTTP Basic or the body). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string | undefined;
}

export async function exchangeAuthorizationCode(
  services: Services,
  request: ClientCredentials & { code: string; redirectUri: string; codeVerifier: string },
): Promise<IssuedTokens> {
  await authenticateClient(services, request);
  if (!authorizationCodePattern.test(request.code)) throw unusableCode();
  const now = services.now();
  const code = await services.store.oauth.redeemCode(hashToken(request.code), now.toISOString());
  if (!code) throw unusableCode();
  if (code.previouslyRedeemedAt !== null) {
    await services.store.oauth.revokeGrant(code.grant.id, now.toISOString(), 'authorization code reused');
    throw invalidGrant('The authorization code was already used; the tokens issued from it have been revoked.');
  }
  // A code issued to another client is refused like an unknown one (RFC 6749 section 4.1.3).
  if (code.grant.clientId !== request.clientId || code.grant.revokedAt !== null) throw unusableCode();
  if (Date.parse(code.expiresAt) <= now.getTime()) throw unusableCode();
  if (request.redirectUri !== code.redirectUri)
    throw invalidGrant('redirect_uri does not match the redirect_uri of the authorization request.');
  if (!verifierMatchesChallenge(request.codeVerifier, code.codeChallenge)) {
    throw invalidGrant('code_verifier does not match the code_challenge of the authorization request.');
  }
  await assertWorkspaceMayUseOAuth(services, code.grant);
  const { tokens, issued } = newTokenPair(now, code.grant.scopes);
  await services.store.oauth.issueTokens(code.grant.id, tokens).catch((error: unknown) => {
    throw isStoreConflict(error, 'grant_revoked') ? unusableCode() : error;
  });
  return issued;
}

export async function refreshAccessToken(services: Services, request: ClientCredentials & { refreshToken: string }): Promise<IssuedTokens> {
  await authenticateClient(services, request);
  if (!refreshTokenPattern.test(request.refreshToken)) throw unusableRefreshToken();
  const hash = hashToken(request.refreshToken);
  const record = await services.store.oauth.findRefreshToken(hash);
  if (!record || !hashesMatch(record.hash, hash) || record.grant.clientId !== request.clientId) throw unusableRefreshToken();
  const now = services.now();
  if (record.rotatedAt !== null) return reuseDetected(services, record.grant, now);
  if (record.revokedAt !== null || record.grant.revokedAt !== null || Date.parse(record.expiresAt) <= now.getTime())
    throw unusableRefreshToken();
  await assertWorkspaceMayUseOAuth(services, record.grant);
  const { tokens, issued } = newTokenPair(now, record.grant.scopes);
  // Losing the race to a concurrent use of the same token is a reuse as well.
  try {
    await services.store.oauth.rotateRefreshToken(record.id, tokens);
  } catch (error) {
    if (isStoreConflict(error, 'token_spent')) return reuseDetected(services, record.grant, now);
    throw error;
  }
  return issued;
}

async function reuseDetected(services: Services, grant: OAuthGrant, now: Date): Promise<never> {
  await services.store.oauth.revokeGrant(grant.id, now.toISOString(), 'refresh token reused');
  throw invalidGrant('The refresh token was already used; every token of its grant has been revoked. Start the authorization again.');
}

/**
 * A workspace that has left the Enterprise plan keeps its grants on record but gets no new tokens (but the dashboard's).
 * The dashboard's grant gets tokens only while its member is signed in to the service.
 */
async function assertWorkspaceMayUseOAuth(services: Services, grant: OAuthGrant): Promise<void> {
  const workspace = await services.store.workspaces.get(grant.workspaceId);
  if (!workspace || !planAllowsClient(workspace.plan, grant.clientId))
    throw invalidGrant(`OAuth 2.0 needs the ${oauthPlan} plan, which the workspace of this grant is no longer on.`);
  if (isFirstPartyClient(grant.clientId) && !(await memberSignedIn(services, grant.workspaceId, grant.memberId))) {
    throw invalidGrant('The sign-in behind this dashboard has ended: sign in again.');
  }
}

function newTokenPair(now: Date, scopes: Scope[]): { tokens: TokenPair; issued: IssuedTokens } {
  const accessToken = generateAccessToken();
  const refreshToken = generateRefreshToken();
  return {
    tokens: {
      access: { id: newOAuthId('oat'), hash: hashToken(accessToken), expiresAt: secondsAfter(now, accessTokenLifetimeSeconds) },
      refresh: { id: newOAuthId('ort'), hash: hashToken(refreshToken), expiresAt: secondsAfter(now, refreshTokenLifetimeSeconds) },
      issuedAt: now.toISOString(),
    },
    issued: { accessToken, refreshToken, expiresIn: accessTokenLifetimeSeconds, scopes },
  };
}

/**
 * Token revocation (RFC 7009). A refresh token takes its whole grant with it (section 2.1: the access tokens of
 * the grant too); an access token only itself. A token that is unknown, or was issued to another client, is left
 * alone and the answer is the same, so that a caller learns nothing about tokens it does not hold.
 */
export async function revokeToken(
  services: Services,
  request: ClientCredentials & { token: string; tokenTypeHint: 'access_token' | 'refresh_token' | undefined },
): Promise<void> {
  const client = await authenticateClient(services, request);
  const at = services.now().toISOString();
  const hash = hashToken(request.token);
  const revokeAccess = async (): Promise<boolean> => {
    const record = await services.store.oauth.findAccessToken(hash);
    if (!record || !hashesMatch(record.hash, hash) || record.grant.clientId !== client.id) return false;
    if (record.revokedAt === null) await services.store.oauth.revokeAccessToken(record.id, at);
    return true;
  };
  const revokeRefresh = async (): Promise<boolean> => {
    const record = await services.store.oauth.findRefreshToken(hash);
    if (!record || !hashesMatch(record.hash, hash) || record.grant.clientId !== client.id) return false;
    if (record.grant.revokedAt === null) await services.store.oauth.revokeGrant(record.grant.id, at, 'refresh token revoked by the client');
    return true;
  };
  // The hint only says where to look first (section 2.1); the other kind is looked up when it is not there.
  const [first, second] = request.tokenTypeHint === 'refresh_token' ? [revokeRefresh, revokeAccess] : [revokeAccess, revokeRefresh];
  if (!(await first())) await second();
}
