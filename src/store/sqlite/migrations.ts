import type Database from 'better-sqlite3';
import { coreSchema } from './schema/core.js';
import { eventsFeedSchema } from './schema/events-feed.js';
import { eventsSyntheticSchema } from './schema/events-synthetic.js';
import { formLogosSchema } from './schema/form-logos.js';
import { formVersionSummariesSchema } from './schema/form-version-summaries.js';
import { hostedPagesSchema } from './schema/hosted-pages.js';
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
 * Schema migrations, applied in order at start. Each runs once, inside a transaction, and bumps
 * `PRAGMA user_version`; never edit a released migration, append a new one.
 *
 * Every row of workspace data carries `environment` ('live' | 'test'): the test sandbox is a partition
 * of the same tables, so a query that forgets the environment is visible in review, not silently shared.
 * Lists are paged by keyset on (created_at, id), hence the composite indexes.
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
  submissionContextSchema,
  eventsSyntheticSchema,
  oauthEnterpriseSchema,
  publishableKeysSchema,
  spamSchema,
  hostedPagesSchema,
  spamSpentSchema,
  sourceRowsEmptiedSchema,
  peopleSchema,
  oauthMemberSchema,
  peoplePurgeSchema,
  peopleLinkEmailSchema,
  formLogosSchema,
];

/**
 * Applies the migrations not yet applied, each in its own transaction. Each reads the schema version under the
 * write lock (`BEGIN IMMEDIATE`), so processes opening one file at once (the server and the admin command on a
 * fresh `DATA_DIR`) apply each migration once: the second waits (`busy_timeout`), then finds it applied.
 */
export function migrate(db: Database.Database): void {
  const applyNext = db.transaction((): boolean => {
    const applied = db.pragma('user_version', { simple: true }) as number;
    if (applied >= migrations.length) return false;
    db.exec(migrations[applied]!);
    db.pragma(`user_version = ${applied + 1}`);
    return true;
  });
  while (applyNext.immediate()) {
    // one migration per transaction
  }
}
