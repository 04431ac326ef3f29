import type pg from 'pg';
import { RecordNotFound } from '../errors.js';
import type { FormLogoStore } from '../form-logo-store.js';
import { formLogoSql, type LogoFileRow } from '../sql/form-logos.js';
import { inTransaction, one, run } from './database.js';

export function postgresFormLogos(pool: pg.Pool): FormLogoStore {
  return {
    async stage(workspaceId, formId, { sha256, contentType, bytes, createdAt }) {
      await inTransaction(pool, async (client) => {
        // The ownership predicate (docs/internals/tenancy.md), under a share lock of the form's row until the bytes are
        // in: a delete or a transfer's accept waits for them, and then deletes or moves them with the form.
        if (!(await one(client, 'SELECT 1 FROM forms WHERE id = $1 AND workspace_id = $2 FOR SHARE', [formId, workspaceId]))) {
          throw new RecordNotFound('form', formId);
        }
        await run(client, ...formLogoSql.stage.bindPostgres({ formId, sha256, contentType, bytes: Buffer.from(bytes), createdAt }));
      });
    },
    async get(formId, sha256) {
      const row = await one<LogoFileRow>(pool, ...formLogoSql.get.bindPostgres({ formId, sha256 }));
      return row && { contentType: row.content_type, bytes: row.bytes };
    },
  };
}
