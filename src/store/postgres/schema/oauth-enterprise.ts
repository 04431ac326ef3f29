/**
 * OAuth for Enterprise partners. `oauth_clients.secret_hash`: a confidential client's secret, kept only as its
 * SHA-256 hash like every OAuth secret (null: a public client, which proves the flow with PKCE alone).
 * `oauth_grants.environment`: the environment the user consented to; every token of the grant acts in it (grants
 * made before could only be live).
 */
export const oauthEnterpriseSchema = `
  ALTER TABLE oauth_clients ADD COLUMN secret_hash BYTEA;
  ALTER TABLE oauth_grants ADD COLUMN environment TEXT NOT NULL DEFAULT 'live' CHECK (environment IN ('live','test'));
`;
