import type pg from 'pg';
import { StoreConflict } from '../errors.js';
import type { OAuthStore, TokenPair } from '../oauth-store.js';
import { type ClientRow, type CodeRow, type GrantColumns, toClient, toGrant, toRedeemedCode } from '../rows/oauth.js';
import { inTransaction, one, type Queryable, run } from './database.js';

/** Selected with every code or token, so the caller sees the grant as it was inside the same statement. */
const grantColumns = `g.id AS grant_id, g.client_id, g.workspace_id, g.scopes, g.created_at AS grant_created_at,
  g.revoked_at AS grant_revoked_at`;

async function insertTokens(db: Queryable, grantId: string, { access, refresh, issuedAt }: TokenPair): Promise<void> {
  await run(db, 'INSERT INTO oauth_access_tokens (id, grant_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
    access.id,
    grantId,
    access.hash,
    access.expiresAt,
    issuedAt,
  ]);
  await run(db, 'INSERT INTO oauth_refresh_tokens (id, grant_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
    refresh.id,
    grantId,
    refresh.hash,
    refresh.expiresAt,
    issuedAt,
  ]);
}

/**
 * The grant, still active, share-locked until the transaction ends: a concurrent revocation (which updates the
 * grant row) waits, and then revokes the tokens stored here too.
 */
const lockActiveGrant = async (db: Queryable, grantId: string): Promise<boolean> =>
  (await one(db, 'SELECT 1 FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [grantId])) !== undefined;

export function postgresOAuth(pool: pg.Pool): OAuthStore {
  return {
    async createClient(client) {
      await run(pool, 'INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)', [
        client.id,
        client.name,
        JSON.stringify(client.redirectUris),
        client.createdAt,
      ]);
    },

    async getClient(id) {
      const row = await one<ClientRow>(pool, 'SELECT * FROM oauth_clients WHERE id = $1', [id]);
      return row && toClient(row);
    },

    async createGrant(grant, code) {
      await inTransaction(pool, async (client) => {
        await run(client, 'INSERT INTO oauth_grants (id, client_id, workspace_id, scopes, created_at) VALUES ($1, $2, $3, $4, $5)', [
          grant.id,
          grant.clientId,
          grant.workspaceId,
          JSON.stringify(grant.scopes),
          grant.createdAt,
        ]);
        await run(
          client,
          `INSERT INTO oauth_authorization_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [code.hash, grant.id, code.redirectUri, code.codeChallenge, code.expiresAt, grant.createdAt],
        );
      });
    },

    async redeemCode(hash, at) {
      return inTransaction(pool, async (client) => {
        // The row lock makes concurrent exchanges of one code take turns: exactly one sees it unredeemed.
        const row = await one<CodeRow>(
          client,
          `SELECT c.redirect_uri, c.code_challenge, c.expires_at, c.redeemed_at, ${grantColumns}
           FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = $1 FOR UPDATE OF c`,
          [hash],
        );
        if (!row) return undefined;
        if (row.redeemed_at === null)
          await run(client, 'UPDATE oauth_authorization_codes SET redeemed_at = $1 WHERE code_hash = $2', [at, hash]);
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
      >(
        pool,
        `SELECT t.id, t.token_hash, t.expires_at, t.rotated_at, t.revoked_at, ${grantColumns}
         FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
        [hash],
      );
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
      >(
        pool,
        `SELECT t.id, t.token_hash, t.expires_at, t.revoked_at, c.name AS client_name, ${grantColumns}
         FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
         WHERE t.token_hash = $1`,
        [hash],
      );
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
        await run(client, 'UPDATE oauth_grants SET revoked_at = $1, revocation_reason = $2 WHERE id = $3 AND revoked_at IS NULL', [
          at,
          reason,
          grantId,
        ]);
        await run(client, 'UPDATE oauth_access_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL', [at, grantId]);
        await run(client, 'UPDATE oauth_refresh_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL', [at, grantId]);
      });
    },
  };
}
