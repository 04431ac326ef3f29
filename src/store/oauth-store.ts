/**
 * Persistence of OAuth 2.0 clients, grants, authorization codes and tokens. A grant is one consent (a
 * workspace let a client act with some scopes); its code and every token issued from it hang off it, so
 * reuse detection can revoke the whole family in one call. Codes and tokens are stored only as hashes.
 */
import type { Environment, Scope } from '../contract.js';

export interface OAuthClient {
  /** The public `client_id`. */
  id: string;
  name: string;
  /** Compared by exact string match (RFC 6749 section 3.1.2.3, RFC 6819 section 5.2.3.5). */
  redirectUris: string[];
  /** A confidential client's secret as its SHA-256 hash; null for a public client (PKCE alone). */
  secretHash: Buffer | null;
  createdAt: string;
}

export interface OAuthGrant {
  id: string;
  clientId: string;
  workspaceId: string;
  /** In ascending power, without duplicates. */
  scopes: Scope[];
  /** Chosen at consent: every token of the grant acts in this environment. */
  environment: Environment;
  /**
   * The member who consented on the consent page; null for a grant the operator's command made. Removing the member
   * revokes the grant (TeamStore.removeMember), and the column is then cleared.
   */
  memberId: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewAuthorizationCode {
  hash: Buffer;
  redirectUri: string;
  /** The S256 `code_challenge`, base64url. */
  codeChallenge: string;
  expiresAt: string;
}

export interface RedeemedCode {
  grant: OAuthGrant;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: string;
  /** When an earlier exchange redeemed the code; not null means this one is a reuse. */
  previouslyRedeemedAt: string | null;
}

export interface NewToken {
  id: string;
  hash: Buffer;
  expiresAt: string;
}

export interface TokenPair {
  access: NewToken;
  refresh: NewToken;
  issuedAt: string;
}

export interface AccessTokenRecord {
  id: string;
  hash: Buffer;
  expiresAt: string;
  revokedAt: string | null;
  grant: OAuthGrant;
  /** The client's current name, which the token's principal reports. */
  clientName: string;
}

export interface RefreshTokenRecord {
  id: string;
  hash: Buffer;
  expiresAt: string;
  /** When it was exchanged for its successor; a rotated token presented again is a reuse. */
  rotatedAt: string | null;
  revokedAt: string | null;
  grant: OAuthGrant;
}

export interface OAuthStore {
  createClient(client: OAuthClient): Promise<void>;
  /** Registers the client unless one with its id exists (then nothing changes). */
  createClientIfAbsent(client: OAuthClient): Promise<void>;
  getClient(id: string): Promise<OAuthClient | undefined>;
  /**
   * Records a consent and the authorization code that carries it to the client, in one transaction;
   * `RecordNotFound('member')`, storing nothing, when the grant's member has been removed meanwhile.
   */
  createGrant(grant: OAuthGrant, code: NewAuthorizationCode): Promise<void>;
  /** Marks the code redeemed and returns it as it was; of concurrent calls, exactly one sees it unredeemed. */
  redeemCode(hash: Buffer, at: string): Promise<RedeemedCode | undefined>;
  /** Stores a token pair for the grant; `StoreConflict('grant_revoked')`, storing nothing, when the grant has been revoked meanwhile. */
  issueTokens(grantId: string, tokens: TokenPair): Promise<void>;
  findRefreshToken(hash: Buffer): Promise<RefreshTokenRecord | undefined>;
  /**
   * Marks the refresh token rotated and stores its successors, atomically; `StoreConflict('token_spent')`,
   * storing nothing, when it was rotated or revoked first (a concurrent use) or its grant has been revoked.
   */
  rotateRefreshToken(id: string, tokens: TokenPair): Promise<void>;
  findAccessToken(hash: Buffer): Promise<AccessTokenRecord | undefined>;
  /** Revokes the grant and every access and refresh token issued under it. */
  revokeGrant(grantId: string, at: string, reason: string): Promise<void>;
  /** Revokes one access token (RFC 7009); its grant and refresh token stay. */
  revokeAccessToken(id: string, at: string): Promise<void>;
}
