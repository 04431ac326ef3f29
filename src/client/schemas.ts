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
export type SubmissionContext = Schema<'SubmissionContext'>;
export type SubmissionContextCreate = Schema<'SubmissionContextCreate'>;
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
export type AuditEventType = Schema<'AuditEventType'>;
/** `type` is open: a kind of object added within v1 (as `integration` was) comes as a string; show it as it is. */
export type AuditTarget = WithOpenEnum<Schema<'AuditTarget'>, 'type'>;
/** An audit log entry; `type` and `target.type` are open (see OpenEnum). */
export type AuditEvent = Omit<WithOpenEnum<Schema<'AuditEvent'>, 'type'>, 'target'> & { target: AuditTarget };
export type AuditEventList = Omit<Schema<'AuditEventList'>, 'data'> & { data: AuditEvent[] };
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
/** What dispatch sends: a ping (`{}`), a synthetic sample of an event type (`type`) or a replay (`event_id`). */
export type IntegrationDispatch = Schema<'IntegrationDispatch'>;
export type EventType = Schema<'EventType'>;
/**
 * An event as the events feed (`GET /events`) returns it: the envelope its webhook deliveries carry. `type` is open
 * (see OpenEnum): acknowledge and skip a type you do not know.
 */
export type Event = WithOpenEnum<Schema<'Event'>, 'type'>;
export type EventList = Omit<Schema<'EventList'>, 'data'> & { data: Event[] };
// The union of event bodies lives in webhooks.ts (WebhookEvent), derived from the contract's `webhooks`.

/** A problem document; `code` is open (see OpenEnum): fall back on `type` and the status for a code you do not know. */
export type Problem = WithOpenEnum<Schema<'Problem'>, 'code'>;
export type ProblemDetails = Schema<'ProblemDetails'>;
export type ErrorCode = Schema<'ErrorCode'>;
/**
 * A value of an enum the document declares open (openapi/baseline/open-enums.yaml: `ErrorCode`, `EventType`, the
 * audit event and target types): within v1 it may gain values, so code that reads one takes any string as well as
 * the known values (`string & {}` keeps the known ones for completion). A switch over one needs a `default` branch,
 * and one that assigns the value to `never` there is a type error.
 *
 * Why here and not in generated/openapi.d.ts: openapi-fetch's response types pass every body through
 * `Readable<T>` (openapi-typescript-helpers), which maps any type that extends `object` key by key, and
 * `string & {}` does; it would turn the open member into an object of String's methods. So the generated types and
 * openapi-fetch's `data` keep the known values, and the named types below, which `data` is assignable to, are open.
 */
export type OpenEnum<Known extends string> = Known | (string & {});
/** `Base` with its member `Key`, an open enum, widened to OpenEnum. */
type WithOpenEnum<Base, Key extends keyof Base> = Omit<Base, Key> & { [Name in Key]: OpenEnum<Extract<Base[Name], string>> };
export type ErrorType = Schema<'ErrorType'>;
