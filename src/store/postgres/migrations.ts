import type pg from 'pg';
import { advisoryLocks } from './advisory-locks.js';
import { coreSchema } from './schema/core.js';
import { eventsFeedSchema } from './schema/events-feed.js';
import { eventsSubmissionIdSchema } from './schema/events-submission-id.js';
import { eventsSyntheticSchema } from './schema/events-synthetic.js';
import { formLogosSchema } from './schema/form-logos.js';
import { formVersionSummariesSchema } from './schema/form-version-summaries.js';
import { hostedPagesSchema } from './schema/hosted-pages.js';
import { hotParentKeysSchema } from './schema/hot-parent-keys.js';
import { idempotencyErasureSchema } from './schema/idempotency-erasure.js';
import { integrationCircuitSchema, integrationsSchema } from './schema/integrations.js';
import { oauthSchema } from './schema/oauth.js';
import { oauthEnterpriseSchema } from './schema/oauth-enterprise.js';
import { oauthMemberSchema } from './schema/oauth-member.js';
import { peopleSchema } from './schema/people.js';
import { peopleLinkEmailSchema } from './schema/people-link-email.js';
import { peoplePurgeSchema } from './schema/people-purge.js';
import { publishableKeysSchema } from './schema/publishable-keys.js';
import { sourceRowsEmptiedSchema } from './schema/source-rows-emptied.js';
import { spamSchema } from './schema/spam.js';
import { spamSpentSchema } from './schema/spam-spent.js';
import { submissionContextSchema } from './schema/submission-context.js';
import { submissionDeltasSchema } from './schema/submission-deltas.js';
import { submissionEmailsSchema } from './schema/submission-emails.js';
import { submissionFindSchema } from './schema/submission-find.js';
import { submissionMetadataSchema } from './schema/submission-metadata.js';
import { submissionResumeSchema } from './schema/submission-resume.js';
import { submissionUpdatedSchema } from './schema/submission-updated.js';
import { submissionsSchema } from './schema/submissions.js';
import { transfersSchema } from './schema/transfers.js';
import { usageSchema } from './schema/usage.js';
import { usageMetersSchema } from './schema/usage-meters.js';

/**
 * Schema migrations, applied in order at start, each once, in its own transaction, recorded in
 * `schema_migrations`. Never edit a released migration; append a new one. The same partitioning as the SQLite
 * store: every row of workspace data carries `environment` ('live' | 'test'), and lists are keyset-paged on
 * (created_at, id) with composite indexes.
 */
const migrations: readonly string[] = [
  coreSchema,
  submissionsSchema,
  integrationsSchema,
  oauthSchema,
  formVersionSummariesSchema,
  integrationCircuitSchema,
  transfersSchema,
  submissionMetadataSchema,
  submissionEmailsSchema,
  eventsFeedSchema,
  usageSchema,
  submissionResumeSchema,
  submissionFindSchema,
  submissionUpdatedSchema,
  usageMetersSchema,
  idempotencyErasureSchema,
  submissionDeltasSchema,
  hotParentKeysSchema,
  submissionContextSchema,
  eventsSyntheticSchema,
  oauthEnterpriseSchema,
  publishableKeysSchema,
  spamSchema,
  hostedPagesSchema,
  eventsSubmissionIdSchema,
  spamSpentSchema,
  sourceRowsEmptiedSchema,
  peopleSchema,
  oauthMemberSchema,
  peoplePurgeSchema,
  peopleLinkEmailSchema,
  formLogosSchema,
];

const migrationLock = advisoryLocks.migrations;

export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLock]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations');
      for (let index = rows[0]!.version; index < migrations.length; index++) {
        await client.query('BEGIN');
        try {
          await client.query(migrations[index]!);
          await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())', [index + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [migrationLock]);
    }
  } finally {
    client.release();
  }
}
