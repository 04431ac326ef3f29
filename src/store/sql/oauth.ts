import { shared } from './statement.js';

/** Selected with every code or token, so the caller sees the grant as it was inside the same statement. */
const grantColumns = `g.id AS grant_id, g.client_id, g.workspace_id, g.scopes, g.environment AS grant_environment,
  g.member_id AS grant_member_id, g.created_at AS grant_created_at, g.revoked_at AS grant_revoked_at`;

const tokenColumns = '(id, grant_id, token_hash, expires_at, created_at) VALUES (:id, :grantId, :hash, :expiresAt, :createdAt)';

export const oauthSql = {
  insertClient: shared(
    `INSERT INTO oauth_clients (id, name, redirect_uris, secret_hash, created_at)
     VALUES (:id, :name, :redirectUris, :secretHash, :createdAt)`,
  ),
  /** The service's own client (src/domain/oauth/first-party.ts): registered by whichever request comes first. */
  insertClientIfAbsent: shared(
    `INSERT INTO oauth_clients (id, name, redirect_uris, secret_hash, created_at)
     VALUES (:id, :name, :redirectUris, :secretHash, :createdAt)
     ON CONFLICT (id) DO NOTHING`,
  ),
  getClient: shared('SELECT * FROM oauth_clients WHERE id = :id'),
  // The scopes' encoding differs (SQLite: space-separated text; PostgreSQL: a JSONB array): each store gives its own.
  insertGrant: shared(
    `INSERT INTO oauth_grants (id, client_id, workspace_id, scopes, environment, member_id, created_at)
     VALUES (:id, :clientId, :workspaceId, :scopes, :environment, :memberId, :createdAt)`,
  ),
  insertCode: shared(
    `INSERT INTO oauth_authorization_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at, created_at)
     VALUES (:hash, :grantId, :redirectUri, :codeChallenge, :expiresAt, :createdAt)`,
  ),
  // The row lock makes concurrent exchanges of one code take turns: exactly one sees it unredeemed.
  codeForRedemption: shared(
    `SELECT c.redirect_uri, c.code_challenge, c.expires_at, c.redeemed_at, ${grantColumns}
     FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = :hash`,
    { postgresLock: 'FOR UPDATE OF c' },
  ),
  markCodeRedeemed: shared('UPDATE oauth_authorization_codes SET redeemed_at = :at WHERE code_hash = :hash'),
  // The grant, still active, share-locked until the transaction ends: a concurrent revocation (which updates the
  // grant row) waits, and then revokes the tokens stored meanwhile too.
  activeGrant: shared('SELECT 1 FROM oauth_grants WHERE id = :id AND revoked_at IS NULL', { postgresLock: 'FOR SHARE' }),
  insertAccessToken: shared(`INSERT INTO oauth_access_tokens ${tokenColumns}`),
  insertRefreshToken: shared(`INSERT INTO oauth_refresh_tokens ${tokenColumns}`),
  refreshToken: shared(
    `SELECT t.id, t.token_hash, t.expires_at, t.rotated_at, t.revoked_at, ${grantColumns}
     FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = :hash`,
  ),
  accessToken: shared(
    `SELECT t.id, t.token_hash, t.expires_at, t.revoked_at, c.name AS client_name, ${grantColumns}
     FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
     WHERE t.token_hash = :hash`,
  ),
  revokeGrant: shared('UPDATE oauth_grants SET revoked_at = :at, revocation_reason = :reason WHERE id = :id AND revoked_at IS NULL'),
  // A member removed (TeamStore.removeMember, in its transaction): their grants first, then every token of those grants,
  // as revokeGrant does, so that tokens stored by an issue the grant's lock held off are revoked too.
  revokeMemberGrants: shared(
    `UPDATE oauth_grants SET revoked_at = :at, revocation_reason = 'member_removed' WHERE member_id = :memberId AND revoked_at IS NULL`,
  ),
  revokeMemberAccessTokens: shared(
    `UPDATE oauth_access_tokens SET revoked_at = :at
     WHERE revoked_at IS NULL AND grant_id IN (SELECT id FROM oauth_grants WHERE member_id = :memberId)`,
  ),
  revokeMemberRefreshTokens: shared(
    `UPDATE oauth_refresh_tokens SET revoked_at = :at
     WHERE revoked_at IS NULL AND grant_id IN (SELECT id FROM oauth_grants WHERE member_id = :memberId)`,
  ),
  revokeAccessToken: shared('UPDATE oauth_access_tokens SET revoked_at = :at WHERE id = :id AND revoked_at IS NULL'),
  revokeAccessTokens: shared('UPDATE oauth_access_tokens SET revoked_at = :at WHERE grant_id = :grantId AND revoked_at IS NULL'),
  revokeRefreshTokens: shared('UPDATE oauth_refresh_tokens SET revoked_at = :at WHERE grant_id = :grantId AND revoked_at IS NULL'),
};
