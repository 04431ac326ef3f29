/**
 * The authorization server metadata (RFC 8414) at /.well-known/oauth-authorization-server: what the schema
 * AuthorizationServerMetadata describes, its endpoints on the configured base URL, its scopes and flow the oauth2
 * scheme's, and each endpoint one the server answers.
 */
import { describe, expect, it } from 'vitest';
import { contractOf, type OpenApiDocument } from '../../src/http/contract-document.js';
import { authorizationServerMetadata, metadataTemplate } from '../../src/http/oauth-metadata.js';
import { document } from '../contract/support/document.js';
import { pointer, schemaErrors } from '../contract/support/schema-validator.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';

const metadataPath = '/.well-known/oauth-authorization-server';
const scheme = (document.components.securitySchemes as Record<string, Record<string, unknown>>).oauth2!;
const flow = (scheme.flows as { authorizationCode: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> } })
  .authorizationCode;

describe('with PUBLIC_BASE_URL set', () => {
  const api = useWatchedApi({ rateLimits: generousLimits, publicBaseUrl: 'https://forms.acme.example/' });

  it('when the metadata is asked for, then it is the schema’s document, on the public base URL, with the scheme’s scopes', async () => {
    const res = await api.call('get', metadataPath, null);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(schemaErrors(pointer(['components', 'schemas', 'AuthorizationServerMetadata']), res.body)).toEqual([]);
    expect(res.body).toEqual({
      issuer: 'https://forms.acme.example',
      authorization_endpoint: `https://forms.acme.example${new URL(flow.authorizationUrl).pathname}`,
      token_endpoint: `https://forms.acme.example${new URL(flow.tokenUrl).pathname}`,
      revocation_endpoint: 'https://forms.acme.example/v1/oauth/revoke',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: Object.keys(flow.scopes),
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      service_documentation: 'https://forms.acme.example/docs',
    });
  });

  it('when the metadata is asked for, then its path is the one the oauth2 scheme names, and its scopes are the Scope enum', () => {
    expect(scheme['x-authorization-server-metadata']).toBe(metadataPath);
    expect(Object.keys(flow.scopes)).toEqual(document.components.schemas.Scope!.enum);
  });

  it('when a client follows the token and revocation endpoints, then the API answers there (an OAuth error, not a 404)', async () => {
    const metadata = (await api.call('get', metadataPath, null)).body;
    for (const endpoint of [metadata.token_endpoint, metadata.revocation_endpoint]) {
      const res = await api
        .call('post', new URL(endpoint).pathname, null)
        .type('form')
        .send({ grant_type: 'authorization_code', client_id: 'client_unknown', token: 'x', code: 'x', code_verifier: 'x' });
      expect([400, 401]).toContain(res.status);
    }
  });

  it('when the metadata path is asked with another method, then it is no document (404)', async () => {
    expectProblem(await api.call('post', metadataPath, null), 404, 'not_found', 'route_not_found');
  });
});

describe('without PUBLIC_BASE_URL', () => {
  const api = useWatchedApi({ rateLimits: generousLimits, localBaseUrl: () => 'https://localhost:8443' });

  it('when the metadata is asked for, then its issuer and endpoints are the server’s own address', async () => {
    const res = await api.call('get', metadataPath, null);
    expect(res.body.issuer).toBe('https://localhost:8443');
    expect(res.body.token_endpoint).toBe('https://localhost:8443/v1/oauth/token');
    expect(schemaErrors(pointer(['components', 'schemas', 'AuthorizationServerMetadata']), res.body)).toEqual([]);
  });
});

describe('reading the metadata from the document', () => {
  /** The bundled document with its oauth2 scheme changed by `change`. */
  const withScheme = (change: (scheme: Record<string, unknown>, flow: Record<string, unknown>) => void) => {
    const copy = structuredClone(document) as unknown as OpenApiDocument & {
      components: { securitySchemes: Record<string, Record<string, unknown>> };
    };
    const changed = copy.components.securitySchemes.oauth2!;
    change(changed, (changed.flows as { authorizationCode: Record<string, unknown> }).authorizationCode);
    return contractOf(copy);
  };

  it('when the flow has no refresh URL, then refresh_token is not a grant type offered', () => {
    const template = metadataTemplate(withScheme((_scheme, flow) => delete flow.refreshUrl));
    expect(authorizationServerMetadata(template, 'https://forms.acme.example').grant_types_supported).toEqual(['authorization_code']);
  });

  it('when the token URL is not the path of createOAuthToken, then the document is refused when the server starts', () => {
    expect(() => metadataTemplate(withScheme((_scheme, flow) => (flow.tokenUrl = 'https://api.form-funnel.example/v1/token')))).toThrow(
      "The oauth2 scheme's token URL (https://api.form-funnel.example/v1/token) is not the path of createOAuthToken.",
    );
  });

  it('when the oauth2 scheme names no metadata path, then the document is refused when the server starts', () => {
    expect(() => metadataTemplate(withScheme((scheme) => delete scheme['x-authorization-server-metadata']))).toThrow(
      'The oauth2 scheme names no x-authorization-server-metadata path.',
    );
  });

  it('when the base URL ends with slashes or carries a path, then the endpoints are under it without doubled slashes', () => {
    const metadata = authorizationServerMetadata(
      metadataTemplate(contractOf(document as unknown as OpenApiDocument)),
      'https://acme.example/forms//',
    );
    expect(metadata.issuer).toBe('https://acme.example/forms');
    expect(metadata.authorization_endpoint).toBe('https://acme.example/forms/oauth/authorize');
    expect(metadata.revocation_endpoint).toBe('https://acme.example/forms/v1/oauth/revoke');
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
  });
});
