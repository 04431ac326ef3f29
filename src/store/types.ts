/**
 * What the service needs from persistence. The SQLite implementation in `./sqlite/` is the default; an
 * implementer who keeps data elsewhere implements these interfaces and passes the result to `buildApp`.
 * Methods are shaped by use case (a cascade or an aggregate update is one call) so that every change that
 * must be atomic is one transaction in the implementation. A lookup that finds nothing returns `undefined`;
 * a write that cannot be made throws one of the classes in `./errors.ts` (nothing else, and never an API error).
 * A method that ends a use case's change takes an optional `Outbox` (see ./outbox.ts) that commits with it.
 */
import type { Attachment, Environment, Plan, Schema } from '../contract.js';
import type { AuditEventInput } from './audit-event-input.js';
import type { EventStore } from './event-store.js';
import type { FormLogoStore } from './form-logo-store.js';
import type { IntegrationStore } from './integration-store.js';
import type { OAuthStore } from './oauth-store.js';
import type { IdempotentResponse, Outbox } from './outbox.js';
import type { Page, PageRequest } from './page.js';
import type { PeopleStore } from './people-store.js';
import type { PublicOriginStore } from './public-origin-store.js';
import type { RescoreJobStore } from './rescore-job-store.js';
import type { SpamStore } from './spam-store.js';
import type { SubmissionStore } from './submission-store.js';
import type { UsageStore } from './usage-store.js';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
  /** Limits an operator set for the workspace (Enterprise plans); null for the standard ones. */
  rateLimits?: WorkspaceRateLimits | null | undefined;
}

export interface WorkspaceRateLimits {
  perKeyPerSecond: number;
  perWorkspacePerMinute: number;
}

/** An API key as stored: never the secret, only its hash. */
export interface ApiKeyRecord {
  key: Schema<'ApiKey'>;
  workspaceId: string;
  secretHash: Buffer;
}

/** A key found by its secret, with its workspace: authentication needs both on every request, so they are read together. */
export interface ApiKeyCredential extends ApiKeyRecord {
  workspace: Workspace;
}

/** A publishable key as stored, with the secret that signs its forms' `started_token`s (never shown). */
export interface PublishableKeyRecord {
  key: Schema<'PublishableKey'>;
  workspaceId: string;
  tokenSecret: Buffer;
}

/** A publishable key found by its value, with its workspace: every public request reads both. */
export interface PublishableKeyCredential extends PublishableKeyRecord {
  workspace: Workspace;
  /** The key the service manages for its hosted pages: allowed on the service's own origin, never listed. */
  hostedPage: boolean;
}

/** The hash of a public submission's resume token and when it stops working; never the token. */
export interface ResumeTokenRecord {
  submissionId: string;
  tokenHash: Buffer;
  expiresAt: string;
}

/** Which forms a caller may see: its workspace, the environments it reads, and its attachment. */
export interface FormVisibility {
  workspaceId: string;
  environments: readonly Environment[];
  attachment: Attachment;
}

export interface FormRecord {
  form: Schema<'Form'>;
  workspaceId: string;
  environment: Environment;
}

export interface FolderRecord {
  folder: Schema<'Folder'>;
  workspaceId: string;
  environment: Environment;
}

// In a module of its own, so that the per-area store interfaces (./submission-store.ts) can use it without a cycle.
export type { AuditEventInput } from './audit-event-input.js';

export interface WorkspaceStore {
  create(workspace: Workspace): Promise<void>;
  get(id: string): Promise<Workspace | undefined>;
  /** Sets (or, with null, clears) the workspace's rate limits and records `audit`, in one transaction; the workspace as it now is. */
  setRateLimits(id: string, limits: WorkspaceRateLimits | null, audit: AuditEventInput): Promise<Workspace | undefined>;
}

export interface ApiKeyStore {
  /**
   * Stores the key and its `api_key.created` audit event in one transaction. A key attached to a form or folder is
   * written only while that form or folder is the workspace's: `RecordNotFound('form' | 'folder')` otherwise.
   */
  create(record: ApiKeyRecord, audit: AuditEventInput, outbox?: Outbox<void>): Promise<void>;
  /** One indexed lookup joining the key to its workspace; never cached, so a revocation applies to the next request. */
  findBySecretHash(hash: Buffer): Promise<ApiKeyCredential | undefined>;
  get(workspaceId: string, id: string): Promise<ApiKeyRecord | undefined>;
  /** Keys of both environments: keys are not sandboxed data, and admins manage them all in one place. */
  list(workspaceId: string, filter: { status?: 'active' | 'revoked' | undefined }, page: PageRequest): Promise<Page<Schema<'ApiKey'>>>;
  /** Revokes an active key and records the audit event in the same transaction; returns the key as it now is. */
  revoke(
    id: string,
    revocation: { at: string; reason: string | null; cause: NonNullable<Schema<'ApiKey'>['revocation_cause']> },
    audit: AuditEventInput,
  ): Promise<Schema<'ApiKey'> | undefined>;
  /** Records use; implementations may coalesce writes but must not lose the latest time. */
  touch(id: string, at: string): Promise<void>;
  /** Active keys whose expiry has passed, for the sweep. */
  listExpired(now: string, limit: number): Promise<ApiKeyRecord[]>;
}

export interface PublishableKeyStore {
  /**
   * Stores the key and its `publishable_key.created` audit event in one transaction. A key attached to a form or folder is
   * written only while that form or folder is the workspace's: `RecordNotFound('form' | 'folder')` otherwise.
   */
  create(record: PublishableKeyRecord, audit: AuditEventInput, outbox?: Outbox<void>): Promise<void>;
  /** One indexed lookup joining the key to its workspace; never cached, so a revocation applies to the next request. */
  findByValue(value: string): Promise<PublishableKeyCredential | undefined>;
  get(workspaceId: string, id: string): Promise<PublishableKeyRecord | undefined>;
  /** Keys of both environments, newest first. */
  list(workspaceId: string, page: PageRequest): Promise<Page<Schema<'PublishableKey'>>>;
  /**
   * Gives the workspace's key `changes.id` the name and allowed origins of `changes` and records `audit`, in one
   * transaction; returns the key as it now is. `RecordNotFound('publishable_key')` when the workspace has no such key
   * (the hosted pages' keys are not the workspace's), `StoreConflict('key_revoked')` when it is revoked. With
   * `expectedTag`, only if the stored key's entity tag (`entityTagOf`, src/etag.ts) still equals it, compared inside
   * the transaction: `StoreConflict('changed_since_read')` otherwise.
   */
  update(
    workspaceId: string,
    changes: Pick<Schema<'PublishableKey'>, 'id' | 'name' | 'allowed_origins'>,
    audit: AuditEventInput,
    options?: { expectedTag?: string | undefined },
  ): Promise<Schema<'PublishableKey'>>;
  /**
   * Revokes an active key and records the audit event in the same transaction; returns the key as it now is. With
   * `expectedTag`, only if the stored key's entity tag still equals it: `StoreConflict('changed_since_read')` otherwise.
   */
  revoke(
    id: string,
    at: string,
    audit: AuditEventInput,
    options?: { expectedTag?: string | undefined },
  ): Promise<Schema<'PublishableKey'> | undefined>;
  /** Records use; implementations may coalesce writes but must not lose the latest time. */
  touch(id: string, at: string): Promise<void>;
  /** Keeps the hash of a new public submission's resume token. */
  saveResumeToken(token: ResumeTokenRecord): Promise<void>;
  findResumeToken(submissionId: string): Promise<ResumeTokenRecord | undefined>;
  /** The key of the workspace's hosted pages in this environment, if one was made; such keys are never listed nor got. */
  findHostedPageKey(workspaceId: string, environment: Environment): Promise<PublishableKeyRecord | undefined>;
  /**
   * Stores `record` as the hosted pages' key of its workspace and environment, unless another request stored one
   * first; returns the one that is stored.
   */
  createHostedPageKey(record: PublishableKeyRecord): Promise<PublishableKeyRecord>;
}

export interface FormStore {
  /** `filter.metadata`: pairs the form's `metadata` must hold, each exactly. */
  list(
    visibility: FormVisibility,
    filter: { folderId?: string | undefined; metadata?: Readonly<Record<string, string>> | undefined },
    page: PageRequest,
  ): Promise<Page<Schema<'FormSummary'>>>;
  get(workspaceId: string, id: string): Promise<FormRecord | undefined>;
  /** The workspace holding a form, found by its id alone: a hosted page's URL names only the form. */
  workspaceOf(id: string): Promise<string | undefined>;
  /**
   * Inserts the form and its version-1 snapshot; `StoreConflict('slug_taken')` when the slug is taken,
   * `ReferenceMissing('folder')` when its folder no longer exists.
   */
  create(record: FormRecord, outbox?: Outbox<void>): Promise<void>;
  /**
   * Replaces the form and stores the snapshot of its new version; snapshots older than the latest
   * `keepVersions` are deleted, and so are the form's logo images but the one its `logo` names (form-logo-store.ts);
   * `audit`, when given, is recorded with it. The write is made only while the form is
   * still in `record.workspaceId` (`RecordNotFound('form')` otherwise). With `expectedTag`, the write is made
   * only if the stored form's entity tag (`entityTagOf`, src/etag.ts) still equals it, compared inside the
   * transaction: `StoreConflict('changed_since_read')` otherwise, `RecordNotFound('form')` when it is gone.
   * `StoreConflict('slug_taken')` and `ReferenceMissing('folder')` as for `create`.
   */
  update(
    record: FormRecord,
    options: { keepVersions: number; expectedTag?: string | undefined; audit?: AuditEventInput | undefined },
    outbox?: Outbox<void>,
  ): Promise<void>;
  /**
   * Deletes the workspace's form, its snapshots, logo images, submissions and aggregates, and revokes the keys
   * attached to it, in one transaction, with the audit event `audit.form` when given; `RecordNotFound('form')` when
   * the workspace no longer holds it (deleted, or moved by a transfer since the caller read it). With `expectedTag`,
   * only if the stored form's entity tag still equals it (`StoreConflict('changed_since_read')` otherwise, and nothing
   * is deleted).
   */
  delete(
    workspaceId: string,
    id: string,
    at: string,
    audit: { form?: AuditEventInput | undefined; revokedKey: (key: Schema<'ApiKey'>) => AuditEventInput },
    outbox?: Outbox<void>,
    options?: { expectedTag?: string | undefined },
  ): Promise<void>;
  /** Summaries only: a page of full definitions could be tens of megabytes. */
  listVersions(formId: string, page: PageRequest): Promise<Page<Schema<'FormVersionSummary'>>>;
  getVersion(formId: string, version: number): Promise<Schema<'FormVersion'> | undefined>;
}

type FormTransfer = Schema<'FormTransfer'>;
export type TransferAcceptance = { outcome: 'accepted' | 'not_pending' | 'form_gone'; transfer: FormTransfer };

/**
 * Form transfers between workspaces. A pending transfer whose `expires_at` has passed at `now` is reported,
 * and stored, as `expired`.
 */
export interface TransferStore {
  /**
   * Stores a pending transfer and its audit events, unless the form already has a pending one: then its id.
   * `RecordNotFound('form')` when the form is no longer in `from_workspace_id`.
   */
  create(
    transfer: FormTransfer,
    now: string,
    audit: readonly AuditEventInput[],
    outbox?: Outbox<{ pendingId: string } | undefined>,
  ): Promise<{ pendingId: string } | undefined>;
  /** A transfer the workspace sent or received. */
  get(workspaceId: string, id: string, now: string): Promise<FormTransfer | undefined>;
  list(
    workspaceId: string,
    filter: { direction?: 'incoming' | 'outgoing' | undefined },
    now: string,
    page: PageRequest,
  ): Promise<Page<FormTransfer>>;
  /**
   * Declines or cancels a pending transfer and records the audit events, in one transaction; undefined when it
   * was no longer pending.
   */
  close(
    id: string,
    status: 'declined' | 'canceled',
    at: string,
    audit: readonly AuditEventInput[],
    outbox?: Outbox<FormTransfer | undefined>,
  ): Promise<FormTransfer | undefined>;
  /**
   * Accepts a pending transfer in one transaction: moves the form with its rows, revokes the keys attached to it
   * (one audit event each, from `revokedKey`) and records `audit`. `not_pending` when it was answered, canceled or
   * expired first; `form_gone` (and the transfer canceled) when the form left its workspace. A destination form
   * with the same slug throws `StoreConflict('slug_taken')` and moves nothing.
   */
  accept(
    id: string,
    at: string,
    audit: { events: readonly AuditEventInput[]; revokedKey: (key: Schema<'ApiKey'>) => AuditEventInput },
    outbox?: Outbox<TransferAcceptance>,
  ): Promise<TransferAcceptance>;
}

export interface FolderStore {
  list(workspaceId: string, environments: readonly Environment[], page: PageRequest): Promise<Page<Schema<'Folder'>>>;
  get(workspaceId: string, id: string): Promise<FolderRecord | undefined>;
  create(record: FolderRecord, outbox?: Outbox<void>): Promise<void>;
  /**
   * Deletes an empty folder and revokes the keys attached to it (a folder already gone is not an error);
   * `StoreConflict('folder_not_empty')` when it still holds forms.
   */
  delete(id: string, at: string, audit: { folder: AuditEventInput; revokedKey: (key: Schema<'ApiKey'>) => AuditEventInput }): Promise<void>;
  /**
   * Replaces the workspace's folder's `name` and `metadata` with `change(current)`'s, under a write lock, and
   * returns the folder as stored; undefined when the workspace holds no such folder.
   */
  update(workspaceId: string, id: string, change: (current: Schema<'Folder'>) => Schema<'Folder'>): Promise<Schema<'Folder'> | undefined>;
}

export interface AuditEventStore {
  record(event: AuditEventInput): Promise<void>;
  /** The whole workspace's log; each event names its environment. */
  list(workspaceId: string, filter: { type?: string | undefined }, page: PageRequest): Promise<Page<Schema<'AuditEvent'>>>;
}

export type IdempotencyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; sealedResponse: string }
  /** `erased`: the same request was answered, but the submission its response carried has since been erased. */
  | { outcome: 'conflict'; reason: 'different_request' | 'in_progress' | 'erased' };

/**
 * Idempotency keys, stored by hash with the response sealed by the caller (see src/http/sealed-response.ts):
 * the store never sees a key or a response in the clear. A request that changes something completes its claim
 * in the change's own transaction (`OutboxEntries.response`); `complete` and `release` are for the others, and
 * leave a claim that is already done as it is.
 */
export interface IdempotencyStore {
  /** Claims the key for this request, or reports the stored response or a conflict, atomically. */
  claim(ownerId: string, keyHash: string, fingerprint: string, now: string, ttlSeconds: number): Promise<IdempotencyClaim>;
  complete(response: IdempotentResponse): Promise<void>;
  release(ownerId: string, keyHash: string): Promise<void>;
  /** Deletes at most `limit` keys created before `before` (oldest first); returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}

export interface TeamStore {
  listMembers(workspaceId: string, page: PageRequest): Promise<Page<Schema<'Member'>>>;
  getMember(workspaceId: string, id: string): Promise<Schema<'Member'> | undefined>;
  addMember(workspaceId: string, member: Schema<'Member'>): Promise<void>;
  /**
   * Removes a member and writes the audit event in the same transaction; `StoreConflict('last_admin')` for the
   * only admin, `RecordNotFound` when the member is gone.
   */
  removeMember(workspaceId: string, id: string, audit: AuditEventInput): Promise<void>;
  listInvites(
    workspaceId: string,
    filter: { status?: Schema<'Invite'>['status'] | undefined },
    page: PageRequest,
    now: string,
  ): Promise<Page<Schema<'Invite'>>>;
  /** Pending invites whose `expires_at` is not after `now` (the caller's clock) read as expired. */
  getInvite(workspaceId: string, id: string, now: string): Promise<Schema<'Invite'> | undefined>;
  /** Creates a pending invite; `StoreConflict('member_exists')` when the email is a member or already invited. */
  createInvite(workspaceId: string, invite: Schema<'Invite'>, audit: AuditEventInput, outbox?: Outbox<void>): Promise<void>;
  revokeInvite(workspaceId: string, id: string, at: string, audit: AuditEventInput): Promise<Schema<'Invite'> | undefined>;
  /**
   * Makes a pending or expired invite pending until `expiresAt` and writes the audit event (at `audit.at`), in one
   * transaction; undefined when there is no such invite. `StoreConflict('invite_closed')` when it was accepted or
   * revoked, `StoreConflict('member_exists')` when its email is a member's or another pending invite's.
   */
  renewInvite(workspaceId: string, id: string, expiresAt: string, audit: AuditEventInput): Promise<Schema<'Invite'> | undefined>;
}

export interface Store {
  workspaces: WorkspaceStore;
  apiKeys: ApiKeyStore;
  publishableKeys: PublishableKeyStore;
  forms: FormStore;
  formLogos: FormLogoStore;
  transfers: TransferStore;
  folders: FolderStore;
  auditEvents: AuditEventStore;
  idempotency: IdempotencyStore;
  team: TeamStore;
  submissions: SubmissionStore;
  integrations: IntegrationStore;
  events: EventStore;
  oauth: OAuthStore;
  rescoreJobs: RescoreJobStore;
  usage: UsageStore;
  spam: SpamStore;
  publicOrigins: PublicOriginStore;
  people: PeopleStore;
  /** Deletes every test-mode row of the workspace and records the audit event; returns the counts. */
  resetTestData(workspaceId: string, audit: AuditEventInput): Promise<Schema<'TestDataReset'>['deleted']>;
  /**
   * Moves aggregate changes appended by writes into the aggregate rows, returning how many it moved; only a store
   * that appends them has it (PostgreSQL, docs/internals/postgres-writes.md). Reads are exact either way.
   */
  foldAggregates?(): Promise<number>;
  close(): Promise<void>;
}
