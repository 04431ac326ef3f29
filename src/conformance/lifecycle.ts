/**
 * The happy paths of the workspace's content, stateful: each resource is made from the documented example, read
 * back, listed, changed, and (in `tearDown`) deleted and asked for again. Operations run in the order their
 * prerequisites need: a form before its submissions, an event before its dispatch. When a prerequisite could not be
 * made, the operation is still asked with the schema's example id, so a stub still says "not implemented" and a
 * server says why not.
 */
import { exampleBody, uniqueEmail } from './examples.js';
import { expectListed, walkList } from './pagination.js';
import type { Expectation, Session } from './session.js';
import { adminOnly, checkLocation, createForm, gone, idOf, made, ok, readBack } from './steps.js';
import type { World } from './world.js';

export async function identify(session: Session, world: World): Promise<void> {
  const me = await session.call('getMe', {}, ok('the calling key'));
  const body = me?.json as { scope?: string; environment?: string; workspace?: { id?: string } } | undefined;
  if (body?.scope && body.environment && body.workspace?.id) {
    world.me = { scope: body.scope, environment: body.environment, workspaceId: body.workspace.id };
  }
  if (world.keys.otherWorkspace) {
    const other = await session.call('getMe', { key: world.keys.otherWorkspace }, ok("the other workspace's key"));
    const otherBody = other?.json as { scope?: string; workspace?: { id?: string } } | undefined;
    if (otherBody?.scope && otherBody.workspace?.id) world.other = { scope: otherBody.scope, workspaceId: otherBody.workspace.id };
    if (world.other && world.other.workspaceId === world.me?.workspaceId) {
      throw new Error('--key-other-workspace names the same workspace as --key: give a key of a second workspace.');
    }
  }
}

export async function folders(session: Session, world: World): Promise<void> {
  const body = exampleBody(session.contract, 'createFolder');
  body.name = `${String(body.name)} ${world.suffix}`;
  const folder = await session.call('createFolder', { body }, made('a folder from the example'));
  checkLocation(session, 'createFolder', folder);
  world.ids.folder = idOf(folder);
  await session.call('getFolder', { path: { id: world.ids.folder } }, readBack('the folder just made'));
  const update = exampleBody(session.contract, 'updateFolder');
  update.name = `${String(update.name)} ${world.suffix}`;
  await session.call('updateFolder', { path: { id: world.ids.folder }, body: update }, ok('renaming the folder and setting its metadata'));
  await idempotentReplay(session, world, body);
  expectListed(session, 'listFolders', await walkList(session, 'listFolders'), world.ids.folder);
}

/**
 * A POST repeated with the same `Idempotency-Key` and body answers what the first did, without making a second
 * resource; the same key with another body is refused with 409.
 */
async function idempotentReplay(session: Session, world: World, example: Record<string, unknown>): Promise<void> {
  const idempotent = (what: string, status: number[]): Expectation => ({ status, check: 'idempotency_replay', what });
  const headers = { 'idempotency-key': `conformance-${world.suffix}` };
  const body = { ...example, name: `${String(example.name)} replayed` };
  const first = await session.call('createFolder', { body, headers }, made('a folder with an Idempotency-Key'));
  world.ids.replayedFolder = idOf(first);
  if (!first) return;
  const again = await session.call('createFolder', { body, headers }, idempotent('the same request again', [first.status]));
  if (again && idOf(again) !== idOf(first)) {
    session.fail(
      'createFolder',
      'idempotency_replay',
      `POST ${first.url}`,
      `the repeat made ${String(idOf(again))}, the first ${String(idOf(first))}`,
    );
  }
  await session.call(
    'createFolder',
    { body: { ...body, name: `${body.name} changed` }, headers },
    idempotent('the same key with another body', [409]),
  );
}

export async function forms(session: Session, world: World): Promise<void> {
  world.ids.form = await createForm(session, world, 'main');
  const id = world.ids.form;
  await session.call('getForm', { path: { id } }, readBack('the form just made'));
  expectListed(session, 'listForms', await walkList(session, 'listForms'), id);
  await session.call(
    'updateForm',
    { path: { id }, body: exampleBody(session.contract, 'updateForm'), headers: { 'if-match': '"conformance-stale"' } },
    { status: [412], check: 'conditional_request', what: 'an If-Match that names no version of the form' },
  );
  await session.call('updateForm', { path: { id }, body: exampleBody(session.contract, 'updateForm') }, ok('the example change'));
  const versions = await walkList(session, 'listFormVersions', { path: { id } });
  const version = (versions?.at(-1)?.version as number | undefined) ?? 1;
  await session.call('getFormVersion', { path: { id, version } }, ok('the first version'));
  await session.call('restoreFormVersion', { path: { id, version } }, ok('restoring the first version'));
}

export async function submissions(session: Session, world: World): Promise<void> {
  const form = world.ids.form;
  const completed = exampleBody(session.contract, 'createSubmission', { form }, 'completed');
  const submission = await session.call('createSubmission', { body: completed }, made('a submission from the example'));
  checkLocation(session, 'createSubmission', submission);
  world.ids.submission = idOf(submission);
  await session.call('getSubmission', { path: { id: world.ids.submission } }, readBack('the submission just made'));
  expectListed(session, 'listSubmissions', await walkList(session, 'listSubmissions', { query: { form_id: form } }), world.ids.submission);

  const partial = await session.call(
    'createSubmission',
    { body: exampleBody(session.contract, 'createSubmission', { form }, 'partial') },
    made('a partial submission from the example'),
  );
  world.ids.partial = idOf(partial);
  await session.call(
    'updateSubmission',
    { path: { id: world.ids.partial }, body: exampleBody(session.contract, 'updateSubmission') },
    ok('completing the partial submission'),
  );
  await session.call('rescoreSubmission', { path: { id: world.ids.submission } }, ok('rescoring the submission'));
  await session.call('exportSubmissions', { query: { form_id: form } }, ok("exporting the form's submissions"));
  const job = await session.call('rescoreForm', { path: { id: form } }, made('rescoring the form', 202));
  world.ids.rescoreJob = idOf(job);
  await session.call('getRescoreJob', { path: { id: world.ids.rescoreJob } }, readBack('the rescore job just queued'));
  await session.call('getAnalytics', { query: { form_id: form } }, ok("the form's analytics"));
}

export async function integrations(session: Session, world: World): Promise<void> {
  const body = exampleBody(session.contract, 'createIntegration', { form: world.ids.form });
  if (world.webhookUrl) body.url = world.webhookUrl;
  const integration = await session.call('createIntegration', { body }, made('an integration from the example'));
  checkLocation(session, 'createIntegration', integration);
  const id = idOf(integration);
  world.ids.integration = id;
  await session.call('getIntegration', { path: { id } }, readBack('the integration just made'));
  expectListed(session, 'listIntegrations', await walkList(session, 'listIntegrations'), id);
  await session.call(
    'updateIntegration',
    { path: { id }, body: exampleBody(session.contract, 'updateIntegration') },
    ok('the example change'),
  );
  const events = await walkList(session, 'listEvents');
  world.ids.event = events?.find((event) => typeof event.id === 'string')?.id as string | undefined;
  if (events && !world.ids.event)
    session.note('getEvent', 'the events feed was empty after the run made a form: getEvent asked with the example id');
  await session.call('getEvent', { path: { id: world.ids.event } }, readBack('an event of the feed'));
  await session.call(
    'dispatchIntegration',
    { path: { id }, body: exampleBody(session.contract, 'dispatchIntegration', { evt: world.ids.event }) },
    made('replaying an event', 202),
  );
  await walkList(session, 'listIntegrationLogs', { path: { id } });
  await session.call(
    'rotateIntegrationSecret',
    { path: { id }, body: exampleBody(session.contract, 'rotateIntegrationSecret') },
    ok('rotating the secret'),
  );
}

/** Deletes what the run made and asks for each again: a deleted resource answers 404 (Schemathesis's use_after_free). */
export async function tearDown(session: Session, world: World): Promise<void> {
  const { ids } = world;
  await session.call('deleteSubmission', { path: { id: ids.submission } }, ok('deleting the submission'));
  await session.call('getSubmission', { path: { id: ids.submission } }, gone('the deleted submission'));
  await session.call('deleteIntegration', { path: { id: ids.integration } }, ok('deleting the integration'));
  await session.call('getIntegration', { path: { id: ids.integration } }, gone('the deleted integration'));
  await session.call('deleteForm', { path: { id: ids.form } }, ok('deleting the form'));
  await session.call('getForm', { path: { id: ids.form } }, gone('the deleted form'));
  await session.call('getSubmission', { path: { id: ids.partial } }, gone('a submission of the deleted form'));
  await session.call(
    'createSubmission',
    { body: exampleBody(session.contract, 'createSubmission', { form: ids.form }, 'completed') },
    gone('a submission to the deleted form'),
  );
  await session.call('deleteFolder', { path: { id: ids.folder } }, ok('deleting the folder'));
  await session.call('getFolder', { path: { id: ids.folder } }, gone('the deleted folder'));
  if (ids.replayedFolder) await session.call('deleteFolder', { path: { id: ids.replayedFolder } }, ok('deleting the replayed folder'));

  if (adminOnly(session, world, 'eraseSubmissions', 'resetTestData')) {
    const body = exampleBody(session.contract, 'eraseSubmissions');
    if (typeof body.email === 'string') body.email = uniqueEmail(body.email, world.suffix);
    await session.call('eraseSubmissions', { body }, ok("erasing one person's submissions"));
    // It empties the workspace's test data, whichever the key's environment: docs say to run on a spare workspace.
    await session.call('resetTestData', {}, ok('resetting the test data'));
  }
}
