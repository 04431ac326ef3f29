/**
 * The OAuth token endpoint and revocation (RFC 6749, RFC 7009). A code comes only from a consent (the consent page, or
 * the operator's `npm run admin -- oauth-authorize`), never from an API operation: given one (`--oauth-code` and what
 * its exchange needs), the run exchanges it, uses the token, refreshes it, revokes the grant and shows that the
 * token and the code then open nothing. Without one, each endpoint's documented refusal is checked instead.
 * It runs before the failed-authentication checks: a refused token or code counts against the address's budget.
 */
import { exampleBody } from './examples.js';
import type { Exchange } from './http.js';
import type { Session } from './session.js';
import { ok, readBack } from './steps.js';
import type { OAuthAuthorization, World } from './world.js';

const rejected = (what: string, status: number[], code?: string) => ({ status, check: 'negative_data_rejection' as const, what, code });

export async function tokens(session: Session, world: World): Promise<void> {
  const given = world.given.authorization;
  if (given) await exchange(session, given);
  else {
    session.note(
      'createOAuthToken',
      "happy path not run (needs an authorization code: pass --oauth-code); the example's spent code asked instead",
    );
    session.note(
      'revokeOAuthToken',
      "happy path not run (needs a registered OAuth client: pass --oauth-code with its --oauth-client-id); the example's unregistered client asked instead",
    );
  }
  await session.call(
    'createOAuthToken',
    { key: null, body: exampleBody(session.contract, 'createOAuthToken') },
    rejected('an unknown authorization code', [400, 401, 429]),
  );
  // RFC 7009 answers 200 even for a token it does not know, but only to a registered client: clients are registered
  // by the operator (`npm run admin -- oauth-client`), never through the API.
  await session.call(
    'revokeOAuthToken',
    { key: null, body: exampleBody(session.contract, 'revokeOAuthToken') },
    rejected('a client that is not registered', [401, 429]),
  );
}

const tokensOf = (answer: Exchange | undefined) => answer?.json as { access_token?: string; refresh_token?: string } | undefined;

async function exchange(session: Session, given: OAuthAuthorization): Promise<void> {
  const client = { client_id: given.clientId, ...(given.clientSecret === undefined ? {} : { client_secret: given.clientSecret }) };
  const codeExchange = {
    grant_type: 'authorization_code',
    code: given.code,
    redirect_uri: given.redirectUri,
    code_verifier: given.codeVerifier,
    ...client,
  };
  const issued = tokensOf(await session.call('createOAuthToken', { key: null, body: codeExchange }, ok('exchanging the --oauth-code')));
  if (!issued?.access_token || !issued.refresh_token) return;
  await session.call('getMe', { key: issued.access_token }, readBack('the access token just issued, used at once'));
  const refreshed = tokensOf(
    await session.call(
      'createOAuthToken',
      { key: null, body: { grant_type: 'refresh_token', refresh_token: issued.refresh_token, ...client } },
      ok('refreshing the tokens'),
    ),
  );
  // Revoking the refresh token revokes the grant and every token issued under it (RFC 7009 section 2.1).
  const revoked = await session.call(
    'revokeOAuthToken',
    { key: null, body: { token: refreshed?.refresh_token ?? issued.refresh_token, token_type_hint: 'refresh_token', ...client } },
    ok('revoking the grant by its refresh token'),
  );
  if (!revoked) return;
  await session.call(
    'getMe',
    { key: refreshed?.access_token ?? issued.access_token },
    { status: [401], check: 'use_after_free', what: 'an access token of a revoked grant', code: 'invalid_api_key' },
  );
  await session.call(
    'createOAuthToken',
    { key: null, body: codeExchange },
    rejected('the --oauth-code again, spent', [400], 'invalid_grant'),
  );
}
