/**
 * The OAuth 2.0 authorization server metadata (RFC 8414), which OAuth libraries read to configure themselves. Every
 * value is read from the contract document (the `oauth2` scheme's flow, its scopes, the path its
 * `x-authorization-server-metadata` names, the revocation operation's path) or from where the server is reached
 * (`PUBLIC_BASE_URL`), so the contract, the consent page and this document cannot disagree. Like the published
 * contract, it is public and outside `/v1`: a plain JSON document, not an operation of the API.
 */
import { type RequestHandler, Router } from 'express';
import type { Schema } from '../contract.js';
import { supportedChallengeMethods } from '../domain/oauth/pkce.js';
import { publicBaseUrlOf, type Services } from '../domain/services.js';
import type { Contract } from './contract-document.js';
import { oauthFlow } from './oauth-flow.js';

type Metadata = Schema<'AuthorizationServerMetadata'>;

/** How clients authenticate at the token and revocation endpoints: as client-credentials.ts reads them. */
const clientAuthenticationMethods: Metadata['token_endpoint_auth_methods_supported'] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
];

/** What the document says, read once: the paths (on the service's own host) and the values that do not change. */
export interface MetadataTemplate {
  /** Where the metadata itself is served. */
  path: string;
  authorizationPath: string;
  tokenPath: string;
  revocationPath: string;
  grantTypes: Metadata['grant_types_supported'];
  scopes: Metadata['scopes_supported'];
}

export function metadataTemplate(contract: Contract): MetadataTemplate {
  const flow = oauthFlow(contract.document);
  const schemes = Object.values(
    (contract.document.components as { securitySchemes?: Record<string, Record<string, unknown>> }).securitySchemes ?? {},
  );
  const path = schemes.find((scheme) => scheme.type === 'oauth2')?.['x-authorization-server-metadata'];
  if (typeof path !== 'string') throw new Error('The oauth2 scheme names no x-authorization-server-metadata path.');
  const tokenPath = new URL(flow.tokenUrl).pathname;
  const token = contract.operations.find((operation) => operation.operationId === 'createOAuthToken');
  const revocation = contract.operations.find((operation) => operation.operationId === 'revokeOAuthToken');
  // The token URL is the token operation's path under the API's base path, which the revocation operation shares.
  if (!token || !revocation || !tokenPath.endsWith(token.path)) {
    throw new Error(`The oauth2 scheme's token URL (${flow.tokenUrl}) is not the path of createOAuthToken.`);
  }
  return {
    path,
    authorizationPath: flow.consentPath,
    tokenPath,
    revocationPath: `${tokenPath.slice(0, -token.path.length)}${revocation.path}`,
    grantTypes: flow.refreshUrl === undefined ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
    scopes: Object.keys(flow.scopes) as Metadata['scopes_supported'],
  };
}

/** The metadata for a server reached at `baseUrl` (its scheme, host and any path prefix). */
export function authorizationServerMetadata(template: MetadataTemplate, baseUrl: string): Metadata {
  const issuer = baseUrl.replace(/\/+$/, '');
  return {
    issuer,
    authorization_endpoint: `${issuer}${template.authorizationPath}`,
    token_endpoint: `${issuer}${template.tokenPath}`,
    revocation_endpoint: `${issuer}${template.revocationPath}`,
    response_types_supported: ['code'],
    grant_types_supported: template.grantTypes,
    code_challenge_methods_supported: [...supportedChallengeMethods],
    scopes_supported: template.scopes,
    token_endpoint_auth_methods_supported: clientAuthenticationMethods,
    revocation_endpoint_auth_methods_supported: clientAuthenticationMethods,
    service_documentation: `${issuer}/docs`,
  };
}

/**
 * Serves the metadata at the path the document names, after `before` (the address limits every public document
 * gets). The base URL is asked on each request: without `PUBLIC_BASE_URL` it is the server's own, known once it
 * listens.
 */
export function oauthMetadata(
  contract: Contract,
  services: Pick<Services, 'publicBaseUrl' | 'localBaseUrl'>,
  ...before: RequestHandler[]
): Router {
  const template = metadataTemplate(contract);
  const router = Router();
  router.get(template.path, ...before, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').json(authorizationServerMetadata(template, publicBaseUrlOf(services)));
  });
  return router;
}
