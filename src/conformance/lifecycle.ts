/**
 * The happy paths of the workspace's content, stateful: each resource is made from the documented example, read
 * back, listed, changed, and (in `tearDown`) deleted and asked for again. Operations run in the order their
 * prerequisites need: a form before its submissions, an event before its dispatch. When a prerequisite failed, what
 * needs it is not run and says so (`whenMade`); when it is not implemented, what needs it is still asked with the
 * schema's example id, so a stub still says "not implemented" for each.
 */
import { exampleBody, uniqueEmail } from './examples.js';
import type { Exchange } from './http.js';
import { pngImage, svgImage } from './images.js';
import { expectListed, walkList } from './pagination.js';
import type { Expectation, Session } from './session.js';
import { adminOnly, checkLocation, createForm, gone, idOf, keepMade, made, ok, readBack, whenMade } from './steps.js';
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
  keepMade(session, world, 'folder', 'createFolder', folder);
  if (whenMade(session, world, 'folder', 'getFolder', 'updateFolder')) {
    await session.call('getFolder', { path: { id: world.ids.folder } }, readBack('the folder just made'));
    const update = exampleBody(session.contract, 'updateFolder');
    update.name = `${String(update.name)} ${world.suffix}`;
    await session.call(
      'updateFolder',
      { path: { id: world.ids.folder }, body: update },
      ok('renaming the folder and setting its metadata'),
    );
  }
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
  const id = await createForm(session, world, 'form', 'main');
  expectListed(session, 'listForms', await walkList(session, 'listForms'), id);
  const dependents = ['getForm', 'updateForm', 'listFormVersions', 'getFormVersion', 'restoreFormVersion', 'setFormLogo', 'deleteFormLogo'];
  if (!whenMade(session, world, 'form', ...dependents)) return;
  await session.call('getForm', { path: { id } }, readBack('the form just made'));
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
  await formLogo(session, id);
}

/**
 * A form's logo: an image uploaded as the file itself and described from its bytes, the same image again (which
 * changes nothing), an SVG and a stale If-Match refused, and the logo removed.
 */
async function formLogo(session: Session, id: string | undefined): Promise<void> {
  const image = pngImage(64, 32);
  const upload = { path: { id }, rawBody: image, contentType: 'image/png' };
  const set = await session.call('setFormLogo', upload, ok('a 64x32 PNG as the logo'));
  const logoOf = (exchange: Exchange) => (exchange.json as { logo?: Record<string, unknown> | null } | undefined)?.logo;
  const versionOf = (exchange: Exchange) => (exchange.json as { version?: unknown } | undefined)?.version;
  if (set) {
    const logo = logoOf(set);
    if (logo?.content_type !== 'image/png' || logo.width !== 64 || logo.height !== 32 || logo.size !== image.length) {
      session.fail('setFormLogo', 'positive_data_acceptance', `PUT ${set.url}`, `logo ${JSON.stringify(logo)}, not the 64x32 PNG sent`);
    }
    const again = await session.call('setFormLogo', upload, ok('the same image again'));
    if (again && versionOf(again) !== versionOf(set)) {
      session.fail('setFormLogo', 'positive_data_acceptance', `PUT ${again.url}`, 'the same image again made a new version');
    }
  }
  await session.call(
    'setFormLogo',
    { path: { id }, rawBody: svgImage(), contentType: 'image/png' },
    { status: [422], check: 'negative_data_rejection', what: 'an SVG sent as image/png', code: 'invalid_image' },
  );
  await session.call(
    'setFormLogo',
    { ...upload, headers: { 'if-match': '"conformance-stale"' } },
    { status: [412], check: 'conditional_request', what: 'an If-Match that names no version of the form' },
  );
  const removed = await session.call('deleteFormLogo', { path: { id } }, ok('removing the logo'));
  if (removed && logoOf(removed) !== null) {
    session.fail('deleteFormLogo', 'positive_data_acceptance', `DELETE ${removed.url}`, 'the form still has a logo');
  }
}

/** Operations that work on the run's form, or on what is made in it. */
const formDependents = [
  'createSubmission',
  'getSubmission',
  'listSubmissions',
  'updateSubmission',
  'rescoreSubmission',
  'exportSubmissions',
  'rescoreForm',
  'getRescoreJob',
  'getAnalytics',
];

export async function submissions(session: Session, world: World): Promise<void> {
  if (!whenMade(session, world, 'form', ...formDependents)) {
    for (const resource of ['submission', 'partial', 'rescoreJob'] as const) world.unmade[resource] = world.unmade.form;
    return;
  }
  const form = world.ids.form;
  const completed = exampleBody(session.contract, 'createSubmission', { form }, 'completed');
  const submission = await session.call('createSubmission', { body: completed }, made('a submission from the example'));
  checkLocation(session, 'createSubmission', submission);
  keepMade(session, world, 'submission', 'createSubmission', submission);
  if (whenMade(session, world, 'submission', 'getSubmission', 'listSubmissions')) {
    await session.call('getSubmission', { path: { id: world.ids.submission } }, readBack('the submission just made'));
    expectListed(
      session,
      'listSubmissions',
      await walkList(session, 'listSubmissions', { query: { form_id: form } }),
      world.ids.submission,
    );
  }

  const partial = await session.call(
    'createSubmission',
    { body: exampleBody(session.contract, 'createSubmission', { form }, 'partial') },
    made('a partial submission from the example'),
  );
  keepMade(session, world, 'partial', 'createSubmission', partial);
  if (whenMade(session, world, 'partial', 'updateSubmission')) {
    await session.call(
      'updateSubmission',
      { path: { id: world.ids.partial }, body: exampleBody(session.contract, 'updateSubmission') },
      ok('completing the partial submission'),
    );
  }
  if (whenMade(session, world, 'submission', 'rescoreSubmission')) {
    await session.call('rescoreSubmission', { path: { id: world.ids.submission } }, ok('rescoring the submission'));
  }
  await session.call('exportSubmissions', { query: { form_id: form } }, ok("exporting the form's submissions"));
  const job = await session.call('rescoreForm', { path: { id: form } }, made('rescoring the form', 202));
  keepMade(session, world, 'rescoreJob', 'rescoreForm', job);
  if (whenMade(session, world, 'rescoreJob', 'getRescoreJob')) {
    await session.call('getRescoreJob', { path: { id: world.ids.rescoreJob } }, readBack('the rescore job just queued'));
  }
  await session.call('getAnalytics', { query: { form_id: form } }, ok("the form's analytics"));
}

/** Operations that need the run's integration. */
const integrationDependents = [
  'getIntegration',
  'updateIntegration',
  'dispatchIntegration',
  'listIntegrationLogs',
  'rotateIntegrationSecret',
  'deleteIntegration',
];

export async function integrations(session: Session, world: World): Promise<void> {
  const events = await walkList(session, 'listEvents');
  world.ids.event = events?.find((event) => typeof event.id === 'string')?.id as string | undefined;
  if (events && !world.ids.event)
    session.note('getEvent', 'the events feed was empty after the run made a form: getEvent asked with the example id');
  await session.call('getEvent', { path: { id: world.ids.event } }, readBack('an event of the feed'));
  const id = await createIntegration(session, world);
  expectListed(session, 'listIntegrations', await walkList(session, 'listIntegrations'), id);
  if (!whenMade(session, world, 'integration', ...integrationDependents)) return;
  await session.call('getIntegration', { path: { id } }, readBack('the integration just made'));
  await session.call(
    'updateIntegration',
    { path: { id }, body: exampleBody(session.contract, 'updateIntegration') },
    ok('the example change'),
  );
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

/** An integration from the example, listening to the run's form; its id, or undefined when it could not be made. */
async function createIntegration(session: Session, world: World): Promise<string | undefined> {
  if (!whenMade(session, world, 'form', 'createIntegration')) {
    world.unmade.integration = world.unmade.form;
    return undefined;
  }
  const body = exampleBody(session.contract, 'createIntegration', { form: world.ids.form });
  if (world.webhookUrl) body.url = world.webhookUrl;
  const integration = await session.call(
    'createIntegration',
    { body },
    {
      ...made('an integration from the example'),
      hint: world.webhookUrl
        ? undefined
        : "no --webhook-url was given, and a server that checks webhook URLs refuses the example's (its host does not resolve): pass --webhook-url with an https URL your server accepts",
    },
  );
  checkLocation(session, 'createIntegration', integration);
  return keepMade(session, world, 'integration', 'createIntegration', integration);
}

/** Deletes what the run made and asks for each again: a deleted resource answers 404 (Schemathesis's use_after_free). */
export async function tearDown(session: Session, world: World): Promise<void> {
  const { ids } = world;
  if (whenMade(session, world, 'submission', 'deleteSubmission', 'getSubmission')) {
    await session.call('deleteSubmission', { path: { id: ids.submission } }, ok('deleting the submission'));
    await session.call('getSubmission', { path: { id: ids.submission } }, gone('the deleted submission'));
  }
  if (whenMade(session, world, 'integration', 'deleteIntegration', 'getIntegration')) {
    await session.call('deleteIntegration', { path: { id: ids.integration } }, ok('deleting the integration'));
    await session.call('getIntegration', { path: { id: ids.integration } }, gone('the deleted integration'));
  }
  if (whenMade(session, world, 'form', 'deleteForm', 'getForm', 'createSubmission')) {
    await session.call('deleteForm', { path: { id: ids.form } }, ok('deleting the form'));
    await session.call('getForm', { path: { id: ids.form } }, gone('the deleted form'));
    if (whenMade(session, world, 'partial', 'getSubmission')) {
      await session.call('getSubmission', { path: { id: ids.partial } }, gone('a submission of the deleted form'));
    }
    await session.call(
      'createSubmission',
      { body: exampleBody(session.contract, 'createSubmission', { form: ids.form }, 'completed') },
      gone('a submission to the deleted form'),
    );
  }
  if (whenMade(session, world, 'folder', 'deleteFolder', 'getFolder')) {
    await session.call('deleteFolder', { path: { id: ids.folder } }, ok('deleting the folder'));
    await session.call('getFolder', { path: { id: ids.folder } }, gone('the deleted folder'));
  }
  if (ids.replayedFolder) await session.call('deleteFolder', { path: { id: ids.replayedFolder } }, ok('deleting the replayed folder'));

  if (adminOnly(session, world, 'eraseSubmissions', 'resetTestData')) {
    const body = exampleBody(session.contract, 'eraseSubmissions');
    if (typeof body.email === 'string') body.email = uniqueEmail(body.email, world.suffix);
    await session.call('eraseSubmissions', { body }, ok("erasing one person's submissions"));
    // It empties the workspace's test data, whichever the key's environment: docs say to run on a spare workspace.
    await session.call('resetTestData', {}, ok('resetting the test data'));
  }
}
