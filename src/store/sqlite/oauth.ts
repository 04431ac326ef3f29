import type Database from 'better-sqlite3';
import { StoreConflict } from '../errors.js';
import type { OAuthStore, TokenPair } from '../oauth-store.js';
import { type ClientRow, type CodeRow, type GrantColumns, toClient, toGrant, toRedeemedCode } from '../rows/oauth.js';
import { statement, transaction } from './statements.js';

/** Selected with every code or token, so the caller sees the grant as it was inside the same statement. */
const grantColumns = `g.id AS grant_id, g.client_id, g.workspace_id, g.scopes, g.created_at AS grant_created_at,
  g.revoked_at AS grant_revoked_at`;

function insertTokens(db: Database.Database, grantId: string, { access, refresh, issuedAt }: TokenPair): void {
  statement(db, 'INSERT INTO oauth_access_tokens (id, grant_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?)').run(
    access.id,
    grantId,
    access.hash,
    access.expiresAt,
    issuedAt,
  );
  statement(db, 'INSERT INTO oauth_refresh_tokens (id, grant_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?)').run(
    refresh.id,
    grantId,
    refresh.hash,
    refresh.expiresAt,
    issuedAt,
  );
}

const grantIsActive = (db: Database.Database, grantId: string): boolean =>
  statement(db, 'SELECT 1 FROM oauth_grants WHERE id = ? AND revoked_at IS NULL').get(grantId) !== undefined;

export function sqliteOAuth(db: Database.Database): OAuthStore {
  return {
    async createClient(client) {
      statement(db, 'INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)').run(
        client.id,
        client.name,
        JSON.stringify(client.redirectUris),
        client.createdAt,
      );
    },

    async getClient(id) {
      const row = statement(db, 'SELECT * FROM oauth_clients WHERE id = ?').get(id) as ClientRow | undefined;
      return row && toClient(row);
    },

    async createGrant(grant, code) {
      transaction(db, 'deferred', () => {
        statement(db, 'INSERT INTO oauth_grants (id, client_id, workspace_id, scopes, created_at) VALUES (?, ?, ?, ?, ?)').run(
          grant.id,
          grant.clientId,
          grant.workspaceId,
          grant.scopes.join(' '),
          grant.createdAt,
        );
        statement(
          db,
          `INSERT INTO oauth_authorization_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        ).run(code.hash, grant.id, code.redirectUri, code.codeChallenge, code.expiresAt, grant.createdAt);
      });
    },

    async redeemCode(hash, at) {
      return transaction(db, 'immediate', () => {
        const row = statement(
          db,
          `SELECT c.redirect_uri, c.code_challenge, c.expires_at, c.redeemed_at, ${grantColumns}
           FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = ?`,
        ).get(hash) as CodeRow | undefined;
        if (!row) return undefined;
        if (row.redeemed_at === null)
          statement(db, 'UPDATE oauth_authorization_codes SET redeemed_at = ? WHERE code_hash = ?').run(at, hash);
        return toRedeemedCode(row);
      });
    },

    async issueTokens(grantId, tokens) {
      return transaction(db, 'immediate', () => {
        if (!grantIsActive(db, grantId)) throw new StoreConflict('grant_revoked');
        insertTokens(db, grantId, tokens);
      });
    },

    async findRefreshToken(hash) {
      const row = statement(
        db,
        `SELECT t.id, t.token_hash, t.expires_at, t.rotated_at, t.revoked_at, ${grantColumns}
         FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?`,
      ).get(hash) as
        | (GrantColumns & { id: string; token_hash: Buffer; expires_at: string; rotated_at: string | null; revoked_at: string | null })
        | undefined;
      return (
        row && {
          id: row.id,
          hash: row.token_hash,
          expiresAt: row.expires_at,
          rotatedAt: row.rotated_at,
          revokedAt: row.revoked_at,
          grant: toGrant(row),
        }
      );
    },

    async rotateRefreshToken(id, tokens) {
      return transaction(db, 'immediate', () => {
        const rotated = statement(
          db,
          `UPDATE oauth_refresh_tokens SET rotated_at = ?
           WHERE id = ? AND rotated_at IS NULL AND revoked_at IS NULL
             AND grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at IS NULL)
           RETURNING grant_id`,
        ).get(tokens.issuedAt, id) as { grant_id: string } | undefined;
        if (!rotated) throw new StoreConflict('token_spent');
        insertTokens(db, rotated.grant_id, tokens);
      });
    },

    async findAccessToken(hash) {
      const row = statement(
        db,
        `SELECT t.id, t.token_hash, t.expires_at, t.revoked_at, c.name AS client_name, ${grantColumns}
         FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
         WHERE t.token_hash = ?`,
      ).get(hash) as
        | (GrantColumns & { id: string; token_hash: Buffer; expires_at: string; revoked_at: string | null; client_name: string })
        | undefined;
      return (
        row && {
          id: row.id,
          hash: row.token_hash,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
          grant: toGrant(row),
          clientName: row.client_name,
        }
      );
    },

    async revokeGrant(grantId, at, reason) {
      transaction(db, 'immediate', () => {
        statement(db, 'UPDATE oauth_grants SET revoked_at = ?, revocation_reason = ? WHERE id = ? AND revoked_at IS NULL').run(
          at,
          reason,
          grantId,
        );
        statement(db, 'UPDATE oauth_access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, grantId);
        statement(db, 'UPDATE oauth_refresh_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, grantId);
      });
    },
  };
}
