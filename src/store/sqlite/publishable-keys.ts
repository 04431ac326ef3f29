import type Database from 'better-sqlite3';
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
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

/** Built once: every public request runs it. */
const credentialSql = publishableCredentialQuery('?');

export function sqlitePublishableKeys(db: Database.Database): PublishableKeyStore {
  const byId = (id: string) => prepared(db, publishableKeySql.byId).get({ id }) as PublishableKeyRow | undefined;
  return {
    async create(record, audit, outbox) {
      withOutbox(db, outbox, () => {
        assertAttachmentOwned(db, record.workspaceId, record.key.attachment);
        prepared(db, publishableKeySql.insert).run(publishableKeyParameters(record));
        insertAuditEvent(db, audit);
      });
    },
    async findByValue(value) {
      const row = statement(db, credentialSql).get(value) as PublishableKeyRow | undefined;
      return row && toPublishableKeyCredential(row);
    },
    async get(workspaceId, id) {
      const row = prepared(db, publishableKeySql.get).get({ id, workspaceId }) as PublishableKeyRow | undefined;
      return row && toPublishableKeyRecord(row);
    },
    async list(workspaceId, page) {
      const result = keysetPage<PublishableKeyRow>(db, {
        from: 'publishable_keys k',
        alias: 'k',
        select: 'k.*',
        where: `k.workspace_id = ? AND ${notHostedPageKey}`,
        params: [workspaceId],
        page,
      });
      return { data: result.data.map(toPublishableKey), hasMore: result.hasMore };
    },
    async update(workspaceId, { id, name, allowed_origins }, audit, options = {}) {
      return transaction(db, 'immediate', () => {
        const row = prepared(db, publishableKeySql.get).get({ id, workspaceId }) as PublishableKeyRow | undefined;
        if (!row) throw new RecordNotFound('publishable_key', id);
        assertTagUnchanged(row, toPublishableKey, options.expectedTag, { kind: 'publishable_key', id });
        if (row.status !== 'active') throw new StoreConflict('key_revoked');
        prepared(db, publishableKeySql.update).run({ id, name, allowedOrigins: JSON.stringify(allowed_origins) });
        insertAuditEvent(db, audit);
        return toPublishableKey(byId(id)!);
      });
    },
    async revoke(id, at, audit, options = {}) {
      transaction(db, 'deferred', () => {
        assertTagUnchanged(byId(id), toPublishableKey, options.expectedTag, { kind: 'publishable_key', id });
        if (prepared(db, publishableKeySql.revoke).run({ id, at }).changes === 1) insertAuditEvent(db, audit);
      });
      const row = byId(id);
      return row && toPublishableKey(row);
    },
    async touch(id, at) {
      prepared(db, publishableKeySql.touch).run({ id, at });
    },
    async saveResumeToken(token) {
      prepared(db, publishableKeySql.saveResumeToken).run(resumeTokenParameters(token));
    },
    async findResumeToken(submissionId) {
      const row = prepared(db, publishableKeySql.findResumeToken).get({ submissionId }) as ResumeTokenRow | undefined;
      return row && toResumeToken(row);
    },
    async findHostedPageKey(workspaceId, environment) {
      const row = prepared(db, publishableKeySql.hostedPageKey).get({ workspaceId, environment }) as PublishableKeyRow | undefined;
      return row && toPublishableKeyRecord(row);
    },
    async createHostedPageKey(record) {
      const { workspaceId, key } = record;
      transaction(db, 'immediate', () => {
        prepared(db, publishableKeySql.insert).run(publishableKeyParameters(record));
        const claimed = prepared(db, publishableKeySql.claimHostedPageKey).run({
          workspaceId,
          environment: key.environment,
          keyId: key.id,
        });
        if (claimed.changes === 0) prepared(db, publishableKeySql.deleteUnclaimed).run({ id: key.id });
      });
      const row = prepared(db, publishableKeySql.hostedPageKey).get({ workspaceId, environment: key.environment }) as PublishableKeyRow;
      return toPublishableKeyRecord(row);
    },
  };
}
