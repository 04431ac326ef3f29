import { exchangeAuthorizationCode, refreshAccessToken, revokeToken } from '../../domain/oauth/tokens.js';
import { clientCredentialsOf } from '../client-credentials.js';
import { missingRequestBody } from '../oauth-problem.js';
import type { Handler, RequestBody } from './types.js';

/** Token responses carry secrets: no cache may keep them (RFC 6749 section 5.1). */
const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const createOAuthToken: Handler<'createOAuthToken'> = async ({ body, services, header }) => {
  // The validator lets an absent body through; the form parser leaves none when nothing was sent.
  const request = body as RequestBody<'createOAuthToken'> | undefined;
  if (request === undefined) throw missingRequestBody();
  const client = clientCredentialsOf(header('authorization'), request);
  const issued =
    request.grant_type === 'authorization_code'
      ? await exchangeAuthorizationCode(services, {
          ...client,
          code: request.code,
          redirectUri: request.redirect_uri,
          codeVerifier: request.code_verifier,
        })
      : await refreshAccessToken(services, { ...client, refreshToken: request.refresh_token });
  return {
    status: 200,
    headers: noStore,
    body: {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      refresh_token: issued.refreshToken,
      scope: issued.scopes.join(' '),
    },
  };
};

export const revokeOAuthToken: Handler<'revokeOAuthToken'> = async ({ body, services, header }) => {
  const request = body as RequestBody<'revokeOAuthToken'> | undefined;
  if (request === undefined) throw missingRequestBody();
  await revokeToken(services, {
    ...clientCredentialsOf(header('authorization'), request),
    token: request.token,
    tokenTypeHint: request.token_type_hint,
  });
  return { status: 200, headers: noStore, body: { object: 'oauth_revocation' } };
};
