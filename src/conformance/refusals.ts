/**
 * The documented errors: what a server must refuse, and that it refuses it as the document says (the answer
 * still goes through every common check, so a refusal with the wrong body fails too).
 */

import type { ContractOperation } from './contract.js';
import { exampleBody } from './examples.js';
import { publicCaller } from './respondents.js';
import type { CallOptions, Session } from './session.js';
import { whenMade } from './steps.js';
import type { World } from './world.js';

/** Path values of the run's resources, by the operation's path, so a refusal is about a resource that exists. */
function pathFor(world: World, path: string): CallOptions['path'] {
  const { ids } = world;
  const byPrefix: Array<[string, string | undefined]> = [
    ['/forms/', ids.form],
    ['/folders/', ids.folder],
    ['/submissions/', ids.submission],
    ['/integrations/', ids.integration],
    ['/events/', ids.event],
    ['/api_keys/', ids.apiKey],
    ['/publishable_keys/', ids.publishableKey],
    ['/public/forms/', ids.form],
    ['/public/submissions/', ids.publicSubmission],
    ['/rescore_jobs/', ids.rescoreJob],
    ['/team/invites/', ids.invite],
  ];
  return { id: byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1], version: 1 };
}

/** The example body of an operation that takes one, so that a refusal is not a validation error by accident. */
function bodyFor(session: Session, world: World, operationId: string): unknown {
  const operation = session.contract.operation(operationId);
  if (Object.keys(operation.requestExamples).length === 0) return undefined;
  return exampleBody(session.contract, operationId, { form: world.ids.form, ws: world.other?.workspaceId, evt: world.ids.event });
}

/**
 * Schemathesis's ignored_auth: every operation that needs a key refuses a request without one, and a malformed
 * or revoked key. Failed authentications are limited per client address, so past that budget the answer is 429,
 * which refuses the request too.
 */
export async function authentication(session: Session, world: World): Promise<void> {
  const refused = { status: [401, 429], check: 'ignored_auth' as const };
  if (world.revokedKey) await session.call('getMe', { key: world.revokedKey }, { ...refused, what: 'a revoked key' });
  else session.runNote('revoked key not tried: the run makes and revokes one, which needs an admin --key, createApiKey and revokeApiKey');
  if (world.revokedPublishableKey) {
    await session.call(
      'getPublicForm',
      { key: world.revokedPublishableKey, path: { id: world.ids.form } },
      { ...refused, what: 'a revoked publishable key' },
    );
  } else session.runNote('revoked publishable key not tried: the run makes and revokes one, which needs an admin --key');
  await session.call('getMe', { authorization: `bearer ${world.keys.main}` }, { ...refused, what: 'the scheme written in lower case' });
  await session.call('getMe', { authorization: `Bearer  ${world.keys.main}` }, { ...refused, what: 'two spaces after Bearer' });
  await session.call('getMe', { authorization: 'Bearer svc_test_not_a_key' }, { ...refused, what: 'a key that does not exist' });
  for (const operation of session.contract.operations.filter((candidate) => candidate.authenticated)) {
    await session.call(
      operation.operationId,
      { key: null, path: pathFor(world, operation.path), body: bodyFor(session, world, operation.operationId) },
      { ...refused, what: 'no Authorization header' },
    );
  }
}

/** Every operation that needs more than `read` refuses a read key with 403. */
export async function scopes(session: Session, world: World): Promise<void> {
  const needsMore = session.contract.operations.filter(
    (operation) => operation.authenticated && operation.scopes.length > 0 && !operation.scopes.includes('read'),
  );
  if (!world.keys.read) {
    session.runNote('scopes not checked: needs --key-read, or an admin --key and createApiKey to make one');
    return;
  }
  for (const operation of needsMore) {
    await session.call(
      operation.operationId,
      { key: world.keys.read, path: pathFor(world, operation.path), body: bodyFor(session, world, operation.operationId) },
      { status: [403], check: 'scope_enforcement', what: 'a read key' },
    );
  }
}

/** Another workspace's key reads none of this workspace's resources: 404, as if they did not exist. */
export async function isolation(session: Session, world: World): Promise<void> {
  const reads = session.contract.operations.filter(
    (operation) =>
      operation.method === 'get' && operation.path.includes('{id}') && !operation.path.startsWith('/transfers/') && !operation.publishable,
  );
  if (!world.keys.otherWorkspace || !world.other) {
    session.runNote(
      world.keys.otherWorkspace
        ? 'workspace isolation not checked: getMe did not say which workspace --key-other-workspace belongs to'
        : 'workspace isolation not checked: needs --key-other-workspace',
    );
    return;
  }
  for (const operation of reads) {
    if (operation.scopes.includes('admin') && world.other.scope !== 'admin') continue;
    const path = pathFor(world, operation.path);
    if (!path?.id) continue;
    await session.call(
      operation.operationId,
      { key: world.keys.otherWorkspace, path },
      { status: [404], check: 'workspace_isolation', what: "another workspace's key" },
    );
  }
}

/** Schemathesis's negative_data_rejection: a body, query or path the schema refuses gets a 4xx problem. */
export async function negativeData(session: Session, world: World): Promise<void> {
  const rejected = (what: string, status = [400]) => ({ status, check: 'negative_data_rejection' as const, what });
  // The public operations refuse a secret key before they look at the data (403): they are sent the run's
  // publishable key, from its origin, or not asked when the run has none.
  const operations = session.contract.operations.filter((operation) => !operation.publishable || publicCaller(world));
  const callerOf = (operation: ContractOperation) => (operation.publishable ? publicCaller(world) : {});
  for (const operation of operations) {
    const path = pathFor(world, operation.path);
    const caller = callerOf(operation);
    if (operation.requestMediaType === 'application/json' && operation.authenticated) {
      await session.call(
        operation.operationId,
        { ...caller, path, rawBody: '[]' },
        rejected('a JSON array where the schema wants an object'),
      );
    }
    if (operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'limit')) {
      await session.call(operation.operationId, { ...caller, path, query: { limit: 0 } }, rejected('limit=0'));
    }
    if (operation.method === 'get' && operation.path.endsWith('/{id}')) {
      await session.call(operation.operationId, { ...caller, path: { id: 'not-an-id' } }, rejected('an id of the wrong shape', [400, 404]));
    }
  }
  if (operations.length < session.contract.operations.length) {
    session.runNote('negative data not sent to the public operations: needs a publishable key, which an admin --key makes');
  }
  await session.call('createForm', { rawBody: '{"name": ' }, rejected('JSON that does not parse'));
  for (const operation of operations.filter((candidate) => candidate.responses['415'] && candidate.requestMediaType)) {
    await session.call(
      operation.operationId,
      { ...callerOf(operation), path: pathFor(world, operation.path), rawBody: 'name=conformance', contentType: 'text/plain' },
      rejected('a body in a media type the operation does not take', [415]),
    );
  }
  if (whenMade(session, world, 'form', 'createSubmission')) {
    await session.call(
      'createSubmission',
      { body: { ...exampleBody(session.contract, 'createSubmission', { form: world.ids.form }, 'completed'), answers: {} } },
      rejected('a completed submission without its required answers', [422]),
    );
  }
}

/**
 * 429 where it is cheap to reach: a burst on a key of the run's own until the per-key limit answers, which must
 * say when to come back (`Retry-After`) and what the limit is.
 */
export async function rateLimit(session: Session, world: World, burst = 150): Promise<void> {
  if (!world.spareKey) {
    session.runNote('429 not tried: needs an admin --key and createApiKey, to make a key to spend');
    return;
  }
  const answers = await Promise.all(
    Array.from({ length: burst }, () =>
      session.call('getMe', { key: world.spareKey }, { status: [200, 429], check: 'rate_limit_headers', what: 'a burst' }),
    ),
  );
  const limited = answers.find((answer) => answer?.status === 429);
  if (!limited) {
    session.runNote(`429 not reached in a burst of ${burst} requests`);
    return;
  }
  const missing = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].filter(
    (name) => limited.headers[name] === undefined,
  );
  if (missing.length > 0) session.fail('getMe', 'rate_limit_headers', `GET ${limited.url}`, `429 without ${missing.join(', ')}`);
}

/**
 * Schemathesis's unsupported_method: on every path whose operations document a 405, a method the path does not
 * have gets 405 with an `Allow` header naming the ones it has.
 */
export async function unsupportedMethods(session: Session, world: World): Promise<void> {
  const paths = new Map<string, ContractOperation[]>();
  for (const operation of session.contract.operations) paths.set(operation.path, [...(paths.get(operation.path) ?? []), operation]);
  for (const [path, operations] of paths) {
    const documenting = operations.find((operation) => operation.responses['405']);
    if (!documenting) continue;
    const allowed = operations.map((operation) => operation.method.toUpperCase());
    const method = ['PUT', 'PATCH', 'DELETE', 'POST'].find((candidate) => !allowed.includes(candidate))!;
    const answer = await session.call(
      documenting.operationId,
      { method, path: pathFor(world, path) },
      { status: [405], check: 'unsupported_method', what: `${method}, which the path does not have` },
    );
    if (!answer) continue;
    const allow = (answer.headers.allow ?? '').split(',').map((item) => item.trim().toUpperCase());
    const missing = allowed.filter((item) => !allow.includes(item));
    if (missing.length > 0) {
      session.fail(
        documenting.operationId,
        'unsupported_method',
        `${method} ${path}`,
        `Allow: ${answer.headers.allow ?? '(none)'} leaves out ${missing.join(', ')}`,
      );
    }
  }
}
