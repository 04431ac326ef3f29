/**
 * The story the document's examples tell, in the order a partner lives it: a workspace and its keys, a folder, the
 * demo-request form created by createForm's example and renamed by updateForm's, submissions to that form, their
 * export, an integration that receives their events, the team, a transfer, erasure, a publishable key and the
 * website's submission with it, the clean-up, and a partner's OAuth connector from consent to revocation. Every request
 * example is sent once, with the ids of the objects the story made before it; every success answer is written to
 * its operation's example. `unrecordedExamples` lists what is not recorded, and why.
 */
import { createHash } from 'node:crypto';
import { authorizeOAuthClient } from '../domain/oauth/authorize.js';
import { registerOAuthClient } from '../domain/oauth/clients.js';
import { runRescoreJobs } from '../domain/rescore-jobs/worker.js';
import type { Services } from '../domain/services.js';
import { bootstrapWorkspace } from '../domain/workspaces/bootstrap.js';
import { newId } from '../ids.js';

/** What earlier steps made, by name: ids, keys, codes. */
export type Kept = Record<string, string>;
type Json = Record<string, unknown>;

export interface Step {
  operationId: string;
  /** Path parameters. */
  params?: (kept: Kept) => Record<string, string | number>;
  query?: (kept: Kept) => Record<string, string>;
  /** The request example sent as the body, by name; `rewrite` puts the story's ids into it (the file is rewritten too). */
  request?: string;
  rewrite?: (value: Json, kept: Kept) => Json;
  /** A body that is not one of the document's examples, for a step that only sets the scene. */
  body?: Json;
  /** A file sent as the body, as it is (a logo), in one of the media types the operation takes. */
  file?: { mediaType: string; bytes: () => Uint8Array };
  /** The name in `kept` of the key sent as the bearer credential; default `live_admin_key`, null for none. */
  key?: string | null;
  accept?: string;
  /** Which response example the answer is written to (default: the only one), or false for a step that sets the scene. */
  records?: { mediaType?: string; example?: string } | false;
  /** Keeps what later steps need from the answer: its `id` under this name, or what the function picks. */
  keep?: string | ((answer: Json, kept: Kept) => Kept);
  /** The answer is a page of events: the oldest of each type becomes the example of that webhook, if none has yet. */
  webhooks?: true;
  /** Work done beside the API before the request: what the dashboard, a worker or a consent screen does. */
  before?: (services: Services, kept: Kept, request: Json | undefined) => Promise<void>;
}

/**
 * Success examples written by hand, each with the reason it cannot be recorded. Problem examples (4xx, 5xx) are all
 * written by hand: each shows one error code, and most need a failure (a lost database, a limit) to answer.
 */
export const unrecordedExamples: Record<string, string> = {
  'getRescoreJob 200 application/json running':
    'A job part-way through is a matter of timing: the worker finishes a small form before the request could see it.',
  'webhook integration.ping': 'Sent to the receiver only, never to the event feed the story reads its events from.',
  'webhook integration.disabled': 'Needs a receiver failing every attempt for days of retries; not part of the story.',
  'createPublicChallenge 200 application/json challenge':
    "Random by design: altcha-lib draws each challenge's nonce and salt itself and takes no option or source for them.",
};

const redirectUri = 'https://connector.acme-crm.example/oauth/callback';

/** What the dashboard does before the story: the workspace, its first keys and members, the receiving workspace, a partner app. */
export async function setTheScene(services: Services, kept: Kept): Promise<void> {
  const acme = await bootstrapWorkspace(services, { name: 'Acme Growth', plan: 'enterprise', adminEmail: 'jordan.ellis@example.com' });
  Object.assign(kept, acme);
  const member = { id: newId('mem'), object: 'member' as const, email: 'li.wei@example.com', name: 'Li Wei', role: 'editor' as const };
  await services.store.team.addMember(acme.workspace_id, { ...member, created_at: services.now().toISOString() });
  kept.member_id = member.id;
  const northwind = await bootstrapWorkspace(services, {
    name: 'Northwind Traders',
    plan: 'business',
    adminEmail: 'sam@northwind.example',
  });
  kept.other_workspace_id = northwind.workspace_id;
  kept.other_admin_key = northwind.live_admin_key;
  const { client } = await registerOAuthClient(services, { name: 'Acme CRM connector', redirectUris: [redirectUri] });
  kept.oauth_client_id = client.id;
}

const toNorthwind = (body: Json, kept: Kept): Json => ({ ...body, workspace_id: kept.other_workspace_id });
const codeChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export const story: Step[] = [
  { operationId: 'getMe' },

  { operationId: 'createFolder', request: 'create', keep: 'folder_id' },
  { operationId: 'getFolder', params: (kept) => ({ id: kept.folder_id! }) },
  { operationId: 'listFolders' },

  { operationId: 'createForm', request: 'demo_request', keep: 'form_id' },
  { operationId: 'getForm', params: (kept) => ({ id: kept.form_id! }) },
  { operationId: 'updateForm', params: (kept) => ({ id: kept.form_id! }), request: 'rename' },
  { operationId: 'listFormVersions', params: (kept) => ({ id: kept.form_id! }) },
  { operationId: 'getFormVersion', params: (kept) => ({ id: kept.form_id!, version: 1 }) },
  { operationId: 'restoreFormVersion', params: (kept) => ({ id: kept.form_id!, version: 1 }) },
  { operationId: 'listForms' },

  {
    operationId: 'createApiKey',
    request: 'crm_sync',
    rewrite: (body, kept) => ({ ...body, attachment: { type: 'form', form_id: kept.form_id } }),
    keep: 'api_key_id',
  },
  { operationId: 'getApiKey', params: (kept) => ({ id: kept.api_key_id! }) },
  { operationId: 'listApiKeys' },

  {
    operationId: 'createIntegration',
    request: 'crm',
    rewrite: (body, kept) => ({ ...body, form_id: kept.form_id }),
    keep: 'integration_id',
  },
  { operationId: 'getIntegration', params: (kept) => ({ id: kept.integration_id! }) },

  {
    operationId: 'createSubmission',
    request: 'completed',
    rewrite: (body, kept) => ({ ...body, form_id: kept.form_id }),
    keep: 'submission_id',
  },
  {
    operationId: 'createSubmission',
    request: 'partial',
    rewrite: (body, kept) => ({ ...body, form_id: kept.form_id }),
    records: false,
    keep: 'partial_submission_id',
  },
  { operationId: 'getSubmission', params: (kept) => ({ id: kept.submission_id! }) },
  { operationId: 'updateSubmission', params: (kept) => ({ id: kept.partial_submission_id! }), request: 'complete' },
  { operationId: 'listSubmissions' },
  {
    operationId: 'exportSubmissions',
    query: (kept) => ({ form_id: kept.form_id! }),
    accept: 'application/x-ndjson',
    records: { mediaType: 'application/x-ndjson' },
  },
  {
    operationId: 'exportSubmissions',
    query: (kept) => ({ form_id: kept.form_id! }),
    accept: 'text/csv',
    records: { mediaType: 'text/csv' },
  },
  { operationId: 'rescoreSubmission', params: (kept) => ({ id: kept.submission_id! }) },
  {
    operationId: 'rescoreForm',
    params: (kept) => ({ id: kept.form_id! }),
    keep: 'rescore_job_id',
  },
  {
    operationId: 'getRescoreJob',
    params: (kept) => ({ id: kept.rescore_job_id! }),
    before: async (services) => void (await runRescoreJobs(services, { owner: 'rescore_examples' })),
    records: { example: 'succeeded' },
  },
  { operationId: 'getAnalytics', query: (kept) => ({ form_id: kept.form_id! }) },

  {
    operationId: 'listEvents',
    keep: (list, kept) => {
      const created = (list.data as Json[]).find(
        (event) => event.type === 'submission.created' && (event.data as { object: Json }).object.id === kept.submission_id,
      );
      return { event_id: created?.id as string };
    },
  },
  { operationId: 'getEvent', params: (kept) => ({ id: kept.event_id! }) },
  {
    operationId: 'dispatchIntegration',
    params: (kept) => ({ id: kept.integration_id! }),
    request: 'replay',
    rewrite: (body, kept) => ({ ...body, event_id: kept.event_id }),
  },
  { operationId: 'listIntegrationLogs', params: (kept) => ({ id: kept.integration_id! }) },
  { operationId: 'updateIntegration', params: (kept) => ({ id: kept.integration_id! }), request: 'pause' },
  { operationId: 'rotateIntegrationSecret', params: (kept) => ({ id: kept.integration_id! }), request: 'one_hour' },
  { operationId: 'listIntegrations' },

  { operationId: 'createInvite', request: 'editor', keep: 'invite_id' },
  { operationId: 'listInvites' },
  { operationId: 'resendInvite', params: (kept) => ({ id: kept.invite_id! }) },
  { operationId: 'revokeInvite', params: (kept) => ({ id: kept.invite_id! }) },
  { operationId: 'listMembers' },
  { operationId: 'removeMember', params: (kept) => ({ id: kept.member_id! }) },

  // A second form, offered to another workspace three times: canceled, declined, then accepted.
  {
    operationId: 'createForm',
    body: { name: 'Webinar registration', steps: [] },
    records: false,
    keep: 'transferred_form_id',
  },
  {
    operationId: 'transferForm',
    params: (kept) => ({ id: kept.transferred_form_id! }),
    request: 'transfer',
    rewrite: toNorthwind,
    keep: 'canceled_transfer_id',
  },
  { operationId: 'cancelTransfer', params: (kept) => ({ id: kept.canceled_transfer_id! }) },
  {
    operationId: 'transferForm',
    params: (kept) => ({ id: kept.transferred_form_id! }),
    request: 'transfer',
    rewrite: toNorthwind,
    records: false,
    keep: 'declined_transfer_id',
  },
  { operationId: 'declineTransfer', params: (kept) => ({ id: kept.declined_transfer_id! }), key: 'other_admin_key' },
  {
    operationId: 'transferForm',
    params: (kept) => ({ id: kept.transferred_form_id! }),
    request: 'transfer',
    rewrite: toNorthwind,
    records: false,
    keep: 'transfer_id',
  },
  { operationId: 'listTransfers' },
  { operationId: 'getTransfer', params: (kept) => ({ id: kept.transfer_id! }) },
  { operationId: 'acceptTransfer', params: (kept) => ({ id: kept.transfer_id! }), key: 'other_admin_key' },

  // The events so far, before the erasure removes a person's: the webhooks' examples.
  { operationId: 'listEvents', query: () => ({ limit: '100' }), records: false, webhooks: true },
  { operationId: 'eraseSubmissions', request: 'erase' },
  { operationId: 'deleteSubmission', params: (kept) => ({ id: kept.partial_submission_id! }) },
  // Read again before the form's deletion takes its events with it: the erasure's and the deletion's webhooks.
  { operationId: 'listEvents', query: () => ({ limit: '100' }), records: false, webhooks: true },
  { operationId: 'revokeApiKey', params: (kept) => ({ id: kept.api_key_id! }), request: 'rotation' },
  {
    operationId: 'createPublishableKey',
    request: 'website',
    keep: (key) => ({ publishable_key_id: key.id as string, publishable_key: key.value as string }),
  },
  { operationId: 'getPublishableKey', params: (kept) => ({ id: kept.publishable_key_id! }) },
  { operationId: 'listPublishableKeys' },

  // The company website, with that key: a visitor opens the demo-request form, sends the first step and finishes later.
  {
    operationId: 'getPublicForm',
    params: (kept) => ({ id: kept.form_id! }),
    key: 'publishable_key',
    keep: (form) => ({ started_token: form.started_token as string }),
  },
  {
    operationId: 'createPublicSubmission',
    request: 'partial',
    key: 'publishable_key',
    rewrite: (body, kept) => ({ ...body, form_id: kept.form_id, started_token: kept.started_token }),
    keep: (created) => ({ public_submission_id: created.id as string, resume_token: created.resume_token as string }),
  },
  {
    operationId: 'updatePublicSubmission',
    params: (kept) => ({ id: kept.public_submission_id! }),
    request: 'complete',
    key: 'publishable_key',
    rewrite: (body, kept) => ({ ...body, resume_token: kept.resume_token }),
  },
  // The company opens a shop: the website's key, renamed, allows its origin too (the pages keep the same key).
  { operationId: 'updatePublishableKey', params: (kept) => ({ id: kept.publishable_key_id! }), request: 'add_origin' },
  { operationId: 'revokePublishableKey', params: (kept) => ({ id: kept.publishable_key_id! }) },
  // Every entry of the story so far on one page, so that the example's list ends (`has_more` false).
  { operationId: 'listAuditEvents', query: () => ({ limit: '30' }) },
  { operationId: 'getUsage' },
  { operationId: 'createForm', key: 'test_admin_key', body: { name: 'Demo request (draft)' }, records: false },
  { operationId: 'resetTestData', key: 'test_admin_key' },
  { operationId: 'deleteIntegration', params: (kept) => ({ id: kept.integration_id! }) },
  { operationId: 'deleteForm', params: (kept) => ({ id: kept.form_id! }) },
  { operationId: 'deleteFolder', params: (kept) => ({ id: kept.folder_id! }) },
  { operationId: 'listEvents', query: () => ({ limit: '100' }), records: false, webhooks: true },

  // The partner's connector, after its user consented: the code for tokens, then a refresh.
  {
    operationId: 'createOAuthToken',
    request: 'authorization_code',
    key: null,
    before: async (services, kept, request) => {
      const authorization = await authorizeOAuthClient(services, {
        workspaceId: kept.workspace_id!,
        clientId: kept.oauth_client_id!,
        scope: 'read read_write',
        redirectUri,
        codeChallenge: codeChallenge(request?.code_verifier as string),
        codeChallengeMethod: 'S256',
      });
      kept.oauth_code = new URL(authorization.redirectUrl).searchParams.get('code')!;
    },
    rewrite: (body, kept) => ({ ...body, code: kept.oauth_code, client_id: kept.oauth_client_id, redirect_uri: redirectUri }),
    keep: (tokens) => ({ refresh_token: tokens.refresh_token as string }),
  },
  {
    operationId: 'createOAuthToken',
    request: 'refresh_token',
    key: null,
    records: false,
    rewrite: (body, kept) => ({ ...body, refresh_token: kept.refresh_token, client_id: kept.oauth_client_id }),
    keep: (tokens) => ({ refresh_token: tokens.refresh_token as string }),
  },
  // The user disconnects the connector: its refresh token revoked, and the grant with it.
  {
    operationId: 'revokeOAuthToken',
    request: 'refresh_token',
    key: null,
    rewrite: (body, kept) => ({ ...body, token: kept.refresh_token, client_id: kept.oauth_client_id }),
  },
];
