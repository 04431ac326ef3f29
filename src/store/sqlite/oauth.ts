import type Database from 'better-sqlite3';
import { RecordNotFound, StoreConflict } from '../errors.js';
import type { OAuthStore, TokenPair } from '../oauth-store.js';
import { type ClientRow, type CodeRow, type GrantColumns, toClient, toGrant, toRedeemedCode } from '../rows/oauth.js';
import { oauthSql } from '../sql/oauth.js';
import { teamSql } from '../sql/team.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

function insertTokens(db: Database.Database, grantId: string, { access, refresh, issuedAt }: TokenPair): void {
  prepared(db, oauthSql.insertAccessToken).run({ ...access, grantId, createdAt: issuedAt });
  prepared(db, oauthSql.insertRefreshToken).run({ ...refresh, grantId, createdAt: issuedAt });
}

export function sqliteOAuth(db: Database.Database): OAuthStore {
  return {
    async createClient(client) {
      prepared(db, oauthSql.insertClient).run({ ...client, redirectUris: JSON.stringify(client.redirectUris) });
    },

    async createClientIfAbsent(client) {
      prepared(db, oauthSql.insertClientIfAbsent).run({ ...client, redirectUris: JSON.stringify(client.redirectUris) });
    },

    async getClient(id) {
      const row = prepared(db, oauthSql.getClient).get({ id }) as ClientRow | undefined;
      return row && toClient(row);
    },

    async createGrant(grant, code) {
      const { memberId, workspaceId } = grant;
      transaction(db, 'immediate', () => {
        // A grant outlives no member: the member must still be the workspace's (see TeamStore.removeMember).
        if (memberId !== null && !prepared(db, teamSql.getMember).get({ id: memberId, workspaceId }))
          throw new RecordNotFound('member', memberId);
        prepared(db, oauthSql.insertGrant).run({ ...grant, scopes: grant.scopes.join(' ') });
        prepared(db, oauthSql.insertCode).run({ ...code, grantId: grant.id, createdAt: grant.createdAt });
      });
    },

    async redeemCode(hash, at) {
      return transaction(db, 'immediate', () => {
        const row = prepared(db, oauthSql.codeForRedemption).get({ hash }) as CodeRow | undefined;
        if (!row) return undefined;
        if (row.redeemed_at === null) prepared(db, oauthSql.markCodeRedeemed).run({ at, hash });
        return toRedeemedCode(row);
      });
    },

    async issueTokens(grantId, tokens) {
      return transaction(db, 'immediate', () => {
        if (prepared(db, oauthSql.activeGrant).get({ id: grantId }) === undefined) throw new StoreConflict('grant_revoked');
        insertTokens(db, grantId, tokens);
      });
    },

    async findRefreshToken(hash) {
      const row = prepared(db, oauthSql.refreshToken).get({ hash }) as
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
      const row = prepared(db, oauthSql.accessToken).get({ hash }) as
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
        prepared(db, oauthSql.revokeGrant).run({ at, reason, id: grantId });
        prepared(db, oauthSql.revokeAccessTokens).run({ at, grantId });
        prepared(db, oauthSql.revokeRefreshTokens).run({ at, grantId });
      });
    },

    async revokeAccessToken(id, at) {
      prepared(db, oauthSql.revokeAccessToken).run({ at, id });
    },
  };
}
