/**
 * Registering a partner's application: what the dashboard's developer settings do; the operator command
 * (`npm run admin -- oauth-client`) and the tests use it. Clients are public (RFC 6749 section 2.1: browser and
 * native apps, which can keep no secret and prove the flow with PKCE) or confidential (servers: they also hold a
 * client secret, returned once by registration and kept only as its hash, and authenticate with it).
 */
import type { ValidationIssue } from '../../contract.js';
import type { OAuthClient } from '../../store/oauth-store.js';
import { invalidClient, invalidValue } from '../errors.js';
import { type Services, timestamp } from '../services.js';
import { generateClientSecret, hashesMatch, hashToken, newOAuthId } from './secrets.js';

export type { OAuthClient };

const maxRedirectUris = 10;
/** The contract's `redirect_uri` maxLength. */
const maxRedirectUriLength = 2048;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or undefined. Absolute, no fragment (RFC 6749 section 3.1.2),
 * HTTPS except on the loopback interface for native apps (RFC 8252 section 7.3): codes travel in it.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > maxRedirectUriLength) return `must be at most ${maxRedirectUriLength} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return undefined;
  return 'must use https (http only on the loopback interface)';
}

export interface RegisteredClient {
  client: OAuthClient;
  /** A confidential client's secret, returned only here; undefined for a public client. */
  secret: string | undefined;
}

export async function registerOAuthClient(
  services: Services,
  input: { name: string; redirectUris: readonly string[]; confidential?: boolean | undefined },
): Promise<RegisteredClient> {
  const name = input.name.trim();
  const issues: ValidationIssue[] = [];
  if (name.length === 0 || name.length > 200) {
    issues.push({
      location: 'body',
      pointer: '/name',
      code: name.length === 0 ? 'min_length' : 'max_length',
      message: 'must be 1 to 200 characters',
    });
  }
  if (input.redirectUris.length === 0 || input.redirectUris.length > maxRedirectUris) {
    const code = input.redirectUris.length === 0 ? 'min_items' : 'max_items';
    issues.push({ location: 'body', pointer: '/redirect_uris', code, message: `must list 1 to ${maxRedirectUris} redirect URIs` });
  }
  input.redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) issues.push({ location: 'body', pointer: `/redirect_uris/${index}`, code: 'format', message: `${uri} ${problem}` });
  });
  if (issues.length > 0) throw invalidValue(issues, 'The OAuth client cannot be registered.');
  const secret = input.confidential ? generateClientSecret() : undefined;
  const client: OAuthClient = {
    id: newOAuthId('client'),
    name,
    redirectUris: [...new Set(input.redirectUris)],
    secretHash: secret === undefined ? null : hashToken(secret),
    createdAt: timestamp(services),
  };
  await services.store.oauth.createClient(client);
  return { client, secret };
}

/**
 * Client authentication at the token and revocation endpoints (RFC 6749 section 2.3): the client must exist; a
 * confidential one must present its secret, compared by hash in constant time; a public one has none to present.
 */
export async function authenticateClient(
  services: Services,
  credentials: { clientId: string; clientSecret: string | undefined },
): Promise<OAuthClient> {
  const client = await services.store.oauth.getClient(credentials.clientId);
  if (!client) throw invalidClient();
  const { clientSecret } = credentials;
  if (client.secretHash === null) {
    if (clientSecret !== undefined) throw invalidClient('This client is public and has no secret: send client_id alone.');
    return client;
  }
  if (clientSecret === undefined) {
    throw invalidClient('This client is confidential: authenticate with its client secret (HTTP Basic or client_secret).');
  }
  if (!hashesMatch(client.secretHash, hashToken(clientSecret))) throw invalidClient('The client secret is wrong.');
  return client;
}
