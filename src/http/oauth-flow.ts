/**
 * The OAuth flow as the contract describes it (its `oauth2` security scheme's authorization-code flow): where the
 * consent page is (the path of `authorizationUrl`), where tokens are issued, and the scopes with their words. The
 * pages and the authorization server metadata read them from here, so neither can disagree with the contract.
 */
import type { OpenApiDocument } from './contract-document.js';

export interface OAuthFlow {
  /** The path of the contract's `authorizationUrl`, where the consent page is served. */
  consentPath: string;
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl: string | undefined;
  /** Each scope's description, by name, in the document's order. */
  scopes: Readonly<Record<string, string>>;
}

interface AuthorizationCodeFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

export function oauthFlow(document: OpenApiDocument): OAuthFlow {
  const components = document.components as {
    securitySchemes?: Record<string, { type?: string; flows?: { authorizationCode?: AuthorizationCodeFlow } }>;
  };
  const schemes = components.securitySchemes ?? {};
  const flow = Object.values(schemes).find((scheme) => scheme.type === 'oauth2')?.flows?.authorizationCode;
  if (!flow) throw new Error('The contract describes no OAuth 2.0 authorization-code flow');
  return {
    consentPath: new URL(flow.authorizationUrl).pathname,
    authorizationUrl: flow.authorizationUrl,
    tokenUrl: flow.tokenUrl,
    refreshUrl: flow.refreshUrl,
    scopes: { ...flow.scopes },
  };
}
