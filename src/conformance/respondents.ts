/**
 * The happy paths of the public operations, as a web page calls them: the run makes a publishable key (read back
 * and listed), and with it, from an origin the key allows, renders its form, asks for a proof-of-work challenge,
 * starts a partial submission and completes it with the resume token it got back. Then what each kind of key must
 * not do, the key changed to allow a second origin (served at once), and a second key is revoked, so that
 * `refusals.authentication` shows the public operations refuse it (and a change to it is refused too).
 */
import { exampleBody } from './examples.js';
import type { Exchange } from './http.js';
import { expectListed, walkList } from './pagination.js';
import type { CallOptions, Expectation, Session } from './session.js';
import { adminOnly, checkLocation, keepMade, made, ok, readBack, whenMade } from './steps.js';
import type { Resource, World } from './world.js';

/** The origin the run's publishable keys allow, sent as a browser on that site would send it. */
const allowedOrigin = 'https://conformance.example';
const otherOrigin = 'https://not-allowed.conformance.example';

/**
 * A publishable key of the documented shape that no server issued: the public operations are still asked with it
 * when the run could not make a key, so that a stub still says "not implemented".
 */
const placeholderKey = 'svc_pub_test_conformance0placeholder0';

const publicOperations = ['getPublicForm', 'createPublicChallenge', 'createPublicSubmission', 'updatePublicSubmission'];

const refused = (what: string, status: number, code: string, check: Expectation['check'] = 'scope_enforcement'): Expectation => ({
  status: [status],
  check,
  what,
  code,
});

/** How the run calls the public operations: its publishable key, and the Origin it allows. */
export function publicCaller(world: World): Pick<CallOptions, 'key' | 'headers'> | undefined {
  return world.publishable && { key: world.publishable.key, headers: { origin: world.publishable.origin } };
}

export async function publishableKeys(session: Session, world: World): Promise<void> {
  const keyOperations = [
    'createPublishableKey',
    'getPublishableKey',
    'listPublishableKeys',
    'updatePublishableKey',
    'revokePublishableKey',
  ];
  if (!adminOnly(session, world, ...keyOperations)) {
    for (const operationId of publicOperations) session.note(operationId, 'not run: needs a publishable key, which an admin --key makes');
    await secretKeyRefusals(session, world);
    return;
  }
  const key = await createKey(session, world, 'publishableKey', 'Conformance website');
  if (key) world.publishable = { key: key.value, origin: allowedOrigin };
  if (whenMade(session, world, 'publishableKey', 'getPublishableKey')) {
    const readAgain = await session.call('getPublishableKey', { path: { id: key?.id } }, readBack('the publishable key just made'));
    if (key && readAgain && keyValueOf(readAgain) !== key.value) {
      session.fail(
        'getPublishableKey',
        'ensure_resource_availability',
        `GET ${readAgain.url}`,
        'the value read back differs from the one made',
      );
    }
  }
  expectListed(session, 'listPublishableKeys', await walkList(session, 'listPublishableKeys'), key?.id);

  await respond(session, world);
  await secretKeyRefusals(session, world);
  await publishableKeyRefusals(session, world);
  await addOrigin(session, world, key?.id);

  const doomed = await createKey(session, world, 'doomedPublishableKey', 'Conformance revoked publishable key');
  if (!whenMade(session, world, 'doomedPublishableKey', 'revokePublishableKey')) return;
  const revoked = await session.call('revokePublishableKey', { path: { id: doomed?.id } }, ok('revoking a publishable key'));
  if (!revoked) return;
  expectRevoked(session, 'revokePublishableKey', revoked);
  // The contract keeps a revoked key readable (and listed), with its status, and never changes it again.
  const after = await session.call('getPublishableKey', { path: { id: doomed?.id } }, readBack('the revoked publishable key'));
  if (after) expectRevoked(session, 'getPublishableKey', after);
  await session.call(
    'updatePublishableKey',
    { path: { id: doomed?.id }, body: exampleBody(session.contract, 'updatePublishableKey') },
    { status: [409], check: 'negative_data_rejection', what: 'a change to a revoked publishable key', code: 'key_revoked' },
  );
  world.revokedPublishableKey = doomed?.value;
}

/**
 * The run's key changed to allow a second origin, first with an If-Match that names no state of it (refused), then
 * as the example does: the same key then serves a page on the added origin, with its CORS grant.
 */
async function addOrigin(session: Session, world: World, id: string | undefined): Promise<void> {
  if (!whenMade(session, world, 'publishableKey', 'updatePublishableKey')) return;
  const body = exampleBody(session.contract, 'updatePublishableKey');
  body.allowed_origins = [allowedOrigin, otherOrigin];
  await session.call(
    'updatePublishableKey',
    { path: { id }, body, headers: { 'if-match': '"conformance-stale"' } },
    { status: [412], check: 'conditional_request', what: 'an If-Match that names no state of the publishable key' },
  );
  const updated = await session.call('updatePublishableKey', { path: { id }, body }, ok('adding an origin to the publishable key'));
  const origins = (updated?.json as { allowed_origins?: unknown } | undefined)?.allowed_origins;
  if (updated && JSON.stringify(origins) !== JSON.stringify(body.allowed_origins)) {
    session.fail(
      'updatePublishableKey',
      'positive_data_acceptance',
      `PATCH ${updated.url}`,
      `allowed_origins ${JSON.stringify(origins)}, not the ${JSON.stringify(body.allowed_origins)} sent`,
    );
  }
  const caller = publicCaller(world);
  if (!updated || !caller || !whenMade(session, world, 'form', 'getPublicForm')) return;
  const form = await session.call(
    'getPublicForm',
    { key: caller.key, headers: { origin: otherOrigin }, path: { id: world.ids.form } },
    ok('the form, from the origin just added to the key'),
  );
  if (form && form.headers['access-control-allow-origin'] !== otherOrigin) {
    session.fail(
      'getPublicForm',
      'response_headers_conformance',
      `GET ${form.url}`,
      `Access-Control-Allow-Origin ${form.headers['access-control-allow-origin'] ?? '(none)'} for the origin just allowed, ${otherOrigin}`,
    );
  }
}

/** A publishable key from the example, allowing the run's origin, in the environment of --key. */
async function createKey(
  session: Session,
  world: World,
  resource: Resource,
  name: string,
): Promise<{ id: string; value: string } | undefined> {
  const body = exampleBody(session.contract, 'createPublishableKey');
  body.name = `${name} ${world.suffix}`;
  body.allowed_origins = [allowedOrigin];
  if (world.me) body.environment = world.me.environment;
  const answer = await session.call('createPublishableKey', { body }, made('a publishable key from the example'));
  checkLocation(session, 'createPublishableKey', answer);
  const id = keepMade(session, world, resource, 'createPublishableKey', answer);
  const value = answer && keyValueOf(answer);
  return id && value ? { id, value } : undefined;
}

const keyValueOf = (exchange: Exchange): string | undefined => {
  const value = (exchange.json as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value : undefined;
};

function expectRevoked(session: Session, operationId: string, exchange: Exchange): void {
  const status = (exchange.json as { status?: unknown } | undefined)?.status;
  if (status !== 'revoked') {
    session.fail(operationId, 'positive_data_acceptance', `${exchange.method} ${exchange.url}`, `status ${String(status)}, not revoked`);
  }
}

/** A page's visit: the form rendered, a challenge, a partial submission, then its completion with the resume token. */
async function respond(session: Session, world: World): Promise<void> {
  if (!whenMade(session, world, 'publishableKey', ...publicOperations) || !whenMade(session, world, 'form', ...publicOperations)) {
    world.unmade.publicSubmission = world.unmade.publishableKey ?? world.unmade.form;
    return;
  }
  const caller = publicCaller(world);
  if (!caller) {
    for (const operationId of publicOperations) {
      session.note(operationId, 'happy path not run (the run could not make a publishable key); asked with a placeholder key');
      await session.call(operationId, {
        key: placeholderKey,
        path: {},
        body: session.contract.operation(operationId).requestMediaType ? exampleBody(session.contract, operationId) : undefined,
      });
    }
    return;
  }
  const form = await session.call('getPublicForm', { ...caller, path: { id: world.ids.form } }, ok('the form to render, from the page'));
  if (form && form.headers['access-control-allow-origin'] !== allowedOrigin) {
    session.fail(
      'getPublicForm',
      'response_headers_conformance',
      `GET ${form.url}`,
      `Access-Control-Allow-Origin ${form.headers['access-control-allow-origin'] ?? '(none)'} for the allowed origin ${allowedOrigin}`,
    );
  }
  await session.call('createPublicChallenge', caller, ok('a proof-of-work challenge'));

  const body = exampleBody(session.contract, 'createPublicSubmission', { form: world.ids.form });
  const startedToken = (form?.json as { started_token?: unknown } | undefined)?.started_token;
  if (typeof startedToken === 'string') body.started_token = startedToken;
  else delete body.started_token;
  const created = await session.call('createPublicSubmission', { ...caller, body }, made('a partial submission from the page'));
  checkLocation(session, 'createPublicSubmission', created);
  const id = keepMade(session, world, 'publicSubmission', 'createPublicSubmission', created);
  if (!whenMade(session, world, 'publicSubmission', 'getSubmission', 'updatePublicSubmission')) return;
  const stored = await session.call('getSubmission', { path: { id } }, readBack('the public submission, by the secret key'));
  if (stored) session.ran('createPublicSubmission', 'ensure_resource_availability');

  const update = exampleBody(session.contract, 'updatePublicSubmission');
  await session.call(
    'updatePublicSubmission',
    { ...caller, path: { id }, body: update },
    refused("the example's resume token, which is not the submission's", 403, 'invalid_resume_token', 'ignored_auth'),
  );
  const resumeToken = (created?.json as { resume_token?: unknown } | undefined)?.resume_token;
  if (typeof resumeToken === 'string') update.resume_token = resumeToken;
  // The public examples answer the form createForm's example makes, as the run's form is: they complete it as they are.
  await session.call('updatePublicSubmission', { ...caller, path: { id }, body: update }, ok('completing it with its resume token'));
}

/** The public operations refuse a secret key for what it is, valid or not, so that no secret ends up in a page. */
async function secretKeyRefusals(session: Session, world: World): Promise<void> {
  const paths: Record<string, string | undefined> = { getPublicForm: world.ids.form, updatePublicSubmission: world.ids.publicSubmission };
  for (const operationId of publicOperations) {
    const operation = session.contract.operation(operationId);
    await session.call(
      operationId,
      {
        path: { id: paths[operationId] },
        body: operation.requestMediaType ? exampleBody(session.contract, operationId, { form: world.ids.form }) : undefined,
      },
      refused('a secret key on a public operation', 403, 'secret_key_not_allowed'),
    );
  }
}

/** A publishable key reaches the public operations only, and only from the origins it allows. */
async function publishableKeyRefusals(session: Session, world: World): Promise<void> {
  const caller = publicCaller(world);
  if (!caller) return;
  await session.call(
    'getMe',
    { key: caller.key },
    refused('a publishable key on a secret-key operation', 403, 'publishable_key_not_allowed'),
  );
  await session.call(
    'getPublicForm',
    { key: caller.key, headers: { origin: otherOrigin }, path: { id: world.ids.form } },
    refused('an origin the publishable key does not allow', 403, 'origin_not_allowed'),
  );
}
