import type { Environment, Scope } from '../../contract.js';
import type { OAuthClient, OAuthGrant, RedeemedCode } from '../oauth-store.js';
import { fromJson } from './json.js';

export interface ClientRow {
  id: string;
  name: string;
  redirect_uris: unknown;
  secret_hash: Buffer | null;
  created_at: string;
}

/** The grant's columns as selected with every code or token (aliased so they cannot clash with the token's). */
export interface GrantColumns {
  grant_id: string;
  client_id: string;
  workspace_id: string;
  /** SQLite keeps the scopes space-separated; PostgreSQL as a JSONB array. */
  scopes: string | Scope[];
  grant_environment: Environment;
  grant_member_id: string | null;
  grant_created_at: string;
  grant_revoked_at: string | null;
}

export const toClient = (row: ClientRow): OAuthClient => ({
  id: row.id,
  name: row.name,
  redirectUris: fromJson<string[]>(row.redirect_uris),
  secretHash: row.secret_hash,
  createdAt: row.created_at,
});

export const toGrant = (row: GrantColumns): OAuthGrant => ({
  id: row.grant_id,
  clientId: row.client_id,
  workspaceId: row.workspace_id,
  scopes: typeof row.scopes === 'string' ? (row.scopes.split(' ') as Scope[]) : row.scopes,
  environment: row.grant_environment,
  memberId: row.grant_member_id,
  createdAt: row.grant_created_at,
  revokedAt: row.grant_revoked_at,
});

/** An authorization code's columns with its grant's, as both stores select them to redeem it. */
export type CodeRow = GrantColumns & { redirect_uri: string; code_challenge: string; expires_at: string; redeemed_at: string | null };

/** The code as it was before this redemption (`previouslyRedeemedAt` null when this one is the first). */
export const toRedeemedCode = (row: CodeRow): RedeemedCode => ({
  grant: toGrant(row),
  redirectUri: row.redirect_uri,
  codeChallenge: row.code_challenge,
  expiresAt: row.expires_at,
  previouslyRedeemedAt: row.redeemed_at,
});
