// Names for the generated component schemas, so partners write `Form` instead of
// `components['schemas']['Form']`. Every alias points into generated/openapi.d.ts: the contract
// stays the only place a shape is defined.
import type { components, paths } from '../../generated/openapi.js';

export type { components, paths };

/** Any component schema by name, e.g. `Schema<'FormVersion'>`; covers schemas added after this file. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export type Form = Schema<'Form'>;
export type FormSummary = Schema<'FormSummary'>;
export type FormList = Schema<'FormList'>;
export type FormCreate = Schema<'FormCreate'>;
export type FormUpdate = Schema<'FormUpdate'>;
export type FormVersion = Schema<'FormVersion'>;
export type FormVersionSummary = Schema<'FormVersionSummary'>;
export type FormVersionList = Schema<'FormVersionList'>;
export type Step = Schema<'Step'>;
export type Field = Schema<'Field'>;
export type LogicRule = Schema<'LogicRule'>;
export type Condition = Schema<'Condition'>;
export type Scoring = Schema<'Scoring'>;
export type Deleted = Schema<'Deleted'>;
export type FormTransfer = Schema<'FormTransfer'>;
export type FormTransferList = Schema<'FormTransferList'>;

export type Folder = Schema<'Folder'>;
export type FolderList = Schema<'FolderList'>;
export type FolderCreate = Schema<'FolderCreate'>;

export type Submission = Schema<'Submission'>;
export type SubmissionList = Schema<'SubmissionList'>;
/** The filters, sort and cursor of `GET /v1/submissions`, e.g. `{ grade: ['hot', 'warm'], sort: '-score' }`. */
export type SubmissionListQuery = NonNullable<paths['/submissions']['get']['parameters']['query']>;
export type SubmissionCreate = Schema<'SubmissionCreate'>;
export type SubmissionUpdate = Schema<'SubmissionUpdate'>;
export type SubmissionMetadata = Schema<'SubmissionMetadata'>;
export type SubmissionMetadataCreate = Schema<'SubmissionMetadataCreate'>;
export type RescoredSubmission = Schema<'RescoredSubmission'>;
export type SubmissionErasure = Schema<'SubmissionErasure'>;
export type SubmissionErasureRequest = Schema<'SubmissionErasureRequest'>;
export type RescoreJob = Schema<'RescoreJob'>;
export type Analytics = Schema<'Analytics'>;

export type Me = Schema<'Me'>;
export type ApiKey = Schema<'ApiKey'>;
export type ApiKeyList = Schema<'ApiKeyList'>;
export type ApiKeyCreate = Schema<'ApiKeyCreate'>;
export type ApiKeyCreated = Schema<'ApiKeyCreated'>;
export type AuditEvent = Schema<'AuditEvent'>;
export type AuditEventList = Schema<'AuditEventList'>;
export type Usage = Schema<'Usage'>;
export type UsagePeriod = Schema<'UsagePeriod'>;
export type RateLimits = Schema<'RateLimits'>;

export type Member = Schema<'Member'>;
export type MemberList = Schema<'MemberList'>;
export type Invite = Schema<'Invite'>;
export type InviteList = Schema<'InviteList'>;
export type InviteCreate = Schema<'InviteCreate'>;

export type Integration = Schema<'Integration'>;
export type IntegrationList = Schema<'IntegrationList'>;
export type IntegrationCreate = Schema<'IntegrationCreate'>;
export type IntegrationUpdate = Schema<'IntegrationUpdate'>;
export type IntegrationLog = Schema<'IntegrationLog'>;
export type IntegrationLogList = Schema<'IntegrationLogList'>;
export type IntegrationSecretRotate = Schema<'IntegrationSecretRotate'>;
export type EventType = Schema<'EventType'>;
/** An event as the events feed (`GET /events`) returns it: the envelope its webhook deliveries carry. */
export type Event = Schema<'Event'>;
export type EventList = Schema<'EventList'>;
// The union of event bodies lives in webhooks.ts (WebhookEvent), derived from the contract's `webhooks`.

export type Problem = Schema<'Problem'>;
export type ProblemDetails = Schema<'ProblemDetails'>;
export type ErrorCode = Schema<'ErrorCode'>;
export type ErrorType = Schema<'ErrorType'>;
