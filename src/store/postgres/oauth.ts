import type pg from 'pg';
import { RecordNotFound, StoreConflict } from '../errors.js';
import type { OAuthStore, TokenPair } from '../oauth-store.js';
import { type ClientRow, type CodeRow, type GrantColumns, toClient, toGrant, toRedeemedCode } from '../rows/oauth.js';
import { oauthSql } from '../sql/oauth.js';
import { teamSql } from '../sql/team.js';
import { inTransaction, isForeignKeyViolation, one, type Queryable, run } from './database.js';

async function insertTokens(db: Queryable, grantId: string, { access, refresh, issuedAt }: TokenPair): Promise<void> {
  await run(db, ...oauthSql.insertAccessToken.bindPostgres({ ...access, grantId, createdAt: issuedAt }));
  await run(db, ...oauthSql.insertRefreshToken.bindPostgres({ ...refresh, grantId, createdAt: issuedAt }));
}

/** Whether the grant is active, share-locking it until the transaction ends (see `oauthSql.activeGrant`). */
const lockActiveGrant = async (db: Queryable, grantId: string): Promise<boolean> =>
  (await one(db, ...oauthSql.activeGrant.bindPostgres({ id: grantId }))) !== undefined;

export function postgresOAuth(pool: pg.Pool): OAuthStore {
  return {
    async createClient(client) {
      await run(pool, ...oauthSql.insertClient.bindPostgres({ ...client, redirectUris: JSON.stringify(client.redirectUris) }));
    },

    async createClientIfAbsent(client) {
      await run(pool, ...oauthSql.insertClientIfAbsent.bindPostgres({ ...client, redirectUris: JSON.stringify(client.redirectUris) }));
    },

    async getClient(id) {
      const row = await one<ClientRow>(pool, ...oauthSql.getClient.bindPostgres({ id }));
      return row && toClient(row);
    },

    async createGrant(grant, code) {
      const { memberId, workspaceId } = grant;
      try {
        await inTransaction(pool, async (client) => {
          // A grant outlives no member: the member must still be the workspace's (see TeamStore.removeMember).
          const gone = memberId !== null && !(await one(client, ...teamSql.getMember.bindPostgres({ id: memberId, workspaceId })));
          if (gone) throw new RecordNotFound('member', memberId);
          await run(client, ...oauthSql.insertGrant.bindPostgres({ ...grant, scopes: JSON.stringify(grant.scopes) }));
          await run(client, ...oauthSql.insertCode.bindPostgres({ ...code, grantId: grant.id, createdAt: grant.createdAt }));
        });
      } catch (error) {
        // A removal in progress when the member was read: the foreign key's check waited for it and found no member.
        if (memberId !== null && isForeignKeyViolation(error, 'oauth_grants_member')) throw new RecordNotFound('member', memberId);
        throw error;
      }
    },

    async redeemCode(hash, at) {
      return inTransaction(pool, async (client) => {
        const row = await one<CodeRow>(client, ...oauthSql.codeForRedemption.bindPostgres({ hash }));
        if (!row) return undefined;
        if (row.redeemed_at === null) await run(client, ...oauthSql.markCodeRedeemed.bindPostgres({ at, hash }));
        return toRedeemedCode(row);
      });
    },

    async issueTokens(grantId, tokens) {
      await inTransaction(pool, async (client) => {
        if (!(await lockActiveGrant(client, grantId))) throw new StoreConflict('grant_revoked');
        await insertTokens(client, grantId, tokens);
      });
    },

    async findRefreshToken(hash) {
      const row = await one<
        GrantColumns & { id: string; token_hash: Buffer; expires_at: string; rotated_at: string | null; revoked_at: string | null }
      >(pool, ...oauthSql.refreshToken.bindPostgres({ hash }));
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
      await inTransaction(pool, async (client) => {
        const token = await one<{ grant_id: string }>(client, 'SELECT grant_id FROM oauth_refresh_tokens WHERE id = $1', [id]);
        if (!token || !(await lockActiveGrant(client, token.grant_id))) throw new StoreConflict('token_spent');
        // The conditional UPDATE takes the token's row lock: of two concurrent rotations the second re-reads it rotated.
        const rotated = await run(
          client,
          'UPDATE oauth_refresh_tokens SET rotated_at = $1 WHERE id = $2 AND rotated_at IS NULL AND revoked_at IS NULL',
          [tokens.issuedAt, id],
        );
        if (rotated === 0) throw new StoreConflict('token_spent');
        await insertTokens(client, token.grant_id, tokens);
      });
    },

    async findAccessToken(hash) {
      const row = await one<
        GrantColumns & { id: string; token_hash: Buffer; expires_at: string; revoked_at: string | null; client_name: string }
      >(pool, ...oauthSql.accessToken.bindPostgres({ hash }));
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
      await inTransaction(pool, async (client) => {
        await run(client, ...oauthSql.revokeGrant.bindPostgres({ at, reason, id: grantId }));
        await run(client, ...oauthSql.revokeAccessTokens.bindPostgres({ at, grantId }));
        await run(client, ...oauthSql.revokeRefreshTokens.bindPostgres({ at, grantId }));
      });
    },

    async revokeAccessToken(id, at) {
      await run(pool, ...oauthSql.revokeAccessToken.bindPostgres({ at, id }));
    },
  };
}
