import type Database from 'better-sqlite3';
import { RecordNotFound } from '../errors.js';
import type { FormLogoStore } from '../form-logo-store.js';
import { formLogoSql, type LogoFileRow } from '../sql/form-logos.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

export function sqliteFormLogos(db: Database.Database): FormLogoStore {
  return {
    async stage(workspaceId, formId, { sha256, contentType, bytes, createdAt }) {
      transaction(db, 'immediate', () => {
        // The ownership predicate (docs/internals/tenancy.md): only the workspace's form gets its bytes.
        if (!statement(db, 'SELECT 1 FROM forms WHERE id = ? AND workspace_id = ?').get(formId, workspaceId)) {
          throw new RecordNotFound('form', formId);
        }
        prepared(db, formLogoSql.stage).run({ formId, sha256, contentType, bytes: Buffer.from(bytes), createdAt });
      });
    },
    async get(formId, sha256) {
      const row = prepared(db, formLogoSql.get).get({ formId, sha256 }) as LogoFileRow | undefined;
      return row && { contentType: row.content_type, bytes: row.bytes };
    },
  };
}
