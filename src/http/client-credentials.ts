/**
 * Client authentication at the OAuth endpoints (RFC 6749 section 2.3.1): a confidential client sends its secret by
 * HTTP Basic (`client_id:client_secret`, each form-encoded, then base64) or as `client_secret` in the body, never
 * both; `client_id` is in the body either way, and must be the one Basic names. A public client sends no secret.
 */

import { badRequest, invalidClient } from '../domain/errors.js';
import type { ClientCredentials } from '../domain/oauth/tokens.js';

const formDecoded = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));

export function clientCredentialsOf(
  authorization: string | undefined,
  body: { client_id: string; client_secret?: string | undefined },
): ClientCredentials {
  if (authorization === undefined) return { clientId: body.client_id, clientSecret: body.client_secret };
  const basic = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(authorization);
  if (!basic) throw invalidClient('Authenticate the client with HTTP Basic (client_id:client_secret), or send no Authorization header.');
  if (body.client_secret !== undefined) {
    throw badRequest('invalid_parameters', 'Send the client secret once: by HTTP Basic or as client_secret, not both.', [
      {
        location: 'body',
        pointer: '/client_secret',
        code: 'mutually_exclusive',
        message: 'must not be sent with HTTP Basic authentication',
      },
    ]);
  }
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  let clientId: string;
  let clientSecret: string;
  try {
    if (colon < 0) throw new URIError('no colon');
    clientId = formDecoded(decoded.slice(0, colon));
    clientSecret = formDecoded(decoded.slice(colon + 1));
  } catch {
    throw invalidClient('The HTTP Basic credentials must be client_id:client_secret, each form-encoded.');
  }
  if (clientId !== body.client_id) throw invalidClient('client_id differs from the client that HTTP Basic authenticates.');
  return { clientId, clientSecret };
}
