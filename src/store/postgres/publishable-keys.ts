import type pg from 'pg';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { assertTagUnchanged } from '../rows/entity-tags.js';
import {
  type PublishableKeyRow,
  publishableCredentialQuery,
  toPublishableKey,
  toPublishableKeyCredential,
  toPublishableKeyRecord,
} from '../rows/publishable-keys.js';
import {
  notHostedPageKey,
  publishableKeyParameters,
  publishableKeySql,
  type ResumeTokenRow,
  resumeTokenParameters,
  toResumeToken,
} from '../sql/publishable-keys.js';
import type { PublishableKeyStore } from '../types.js';
import { assertAttachmentOwned } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { inTransaction, one, Parameters, run } from './database.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

/** Built once: every public request runs it. */
const credentialSql = publishableCredentialQuery('$1');

export function postgresPublishableKeys(pool: pg.Pool): PublishableKeyStore {
  return {
    async create(record, audit, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await assertAttachmentOwned(client, record.workspaceId, record.key.attachment);
        await run(client, ...publishableKeySql.insert.bindPostgres(publishableKeyParameters(record)));
        await insertAuditEvent(client, audit);
      });
    },
    async findByValue(value) {
      const row = await one<PublishableKeyRow>(pool, credentialSql, [value]);
      return row && toPublishableKeyCredential(row);
    },
    async get(workspaceId, id) {
      const row = await one<PublishableKeyRow>(pool, ...publishableKeySql.get.bindPostgres({ id, workspaceId }));
      return row && toPublishableKeyRecord(row);
    },
    async list(workspaceId, page) {
      const params = new Parameters();
      const result = await keysetPage<PublishableKeyRow>(pool, {
        from: 'publishable_keys k',
        alias: 'k',
        select: 'k.*',
        where: `k.workspace_id = ${params.add(workspaceId)} AND ${notHostedPageKey}`,
        params,
        page,
      });
      return { data: result.data.map(toPublishableKey), hasMore: result.hasMore };
    },
    async update(workspaceId, { id, name, allowed_origins }, audit, options = {}) {
      return inTransaction(pool, async (client) => {
        const row = await one<PublishableKeyRow>(client, ...publishableKeySql.getForChange.bindPostgres({ id, workspaceId }));
        if (!row) throw new RecordNotFound('publishable_key', id);
        assertTagUnchanged(row, toPublishableKey, options.expectedTag, { kind: 'publishable_key', id });
        if (row.status !== 'active') throw new StoreConflict('key_revoked');
        await run(client, ...publishableKeySql.update.bindPostgres({ id, name, allowedOrigins: JSON.stringify(allowed_origins) }));
        await insertAuditEvent(client, audit);
        return toPublishableKey((await one<PublishableKeyRow>(client, ...publishableKeySql.byId.bindPostgres({ id })))!);
      });
    },
    async revoke(id, at, audit, options = {}) {
      // The conditional UPDATE locks the row: of two concurrent revocations exactly one changes it and audits.
      await inTransaction(pool, async (client) => {
        if (options.expectedTag !== undefined) {
          const row = await one<PublishableKeyRow>(client, ...publishableKeySql.byIdForChange.bindPostgres({ id }));
          assertTagUnchanged(row, toPublishableKey, options.expectedTag, { kind: 'publishable_key', id });
        }
        if ((await run(client, ...publishableKeySql.revoke.bindPostgres({ id, at }))) === 1) await insertAuditEvent(client, audit);
      });
      const row = await one<PublishableKeyRow>(pool, ...publishableKeySql.byId.bindPostgres({ id }));
      return row && toPublishableKey(row);
    },
    async touch(id, at) {
      await run(pool, ...publishableKeySql.touch.bindPostgres({ id, at }));
    },
    async saveResumeToken(token) {
      await run(pool, ...publishableKeySql.saveResumeToken.bindPostgres(resumeTokenParameters(token)));
    },
    async findResumeToken(submissionId) {
      const row = await one<ResumeTokenRow>(pool, ...publishableKeySql.findResumeToken.bindPostgres({ submissionId }));
      return row && toResumeToken(row);
    },
    async findHostedPageKey(workspaceId, environment) {
      const row = await one<PublishableKeyRow>(pool, ...publishableKeySql.hostedPageKey.bindPostgres({ workspaceId, environment }));
      return row && toPublishableKeyRecord(row);
    },
    async createHostedPageKey(record) {
      const { workspaceId, key } = record;
      // Two first visits at once: the primary key lets one claim the slot; the other's key is removed with its claim.
      await inTransaction(pool, async (client) => {
        await run(client, ...publishableKeySql.insert.bindPostgres(publishableKeyParameters(record)));
        const claimed = await run(
          client,
          ...publishableKeySql.claimHostedPageKey.bindPostgres({ workspaceId, environment: key.environment, keyId: key.id }),
        );
        if (claimed === 0) await run(client, ...publishableKeySql.deleteUnclaimed.bindPostgres({ id: key.id }));
      });
      const row = await one<PublishableKeyRow>(
        pool,
        ...publishableKeySql.hostedPageKey.bindPostgres({ workspaceId, environment: key.environment }),
      );
      return toPublishableKeyRecord(row!);
    },
  };
}
