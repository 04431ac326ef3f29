/** What the stateful phases share: the expectations of a happy path, and the guards that skip what a key cannot do. */
import { exampleBody } from './examples.js';
import type { Exchange } from './http.js';
import type { Expectation, Session } from './session.js';
import type { Resource, World } from './world.js';

export const ok = (what: string): Expectation => ({ status: [200], check: 'positive_data_acceptance', what });
export const made = (what: string, status = 201): Expectation => ({ status: [status], check: 'positive_data_acceptance', what });
export const readBack = (what: string): Expectation => ({ status: [200], check: 'ensure_resource_availability', what });
export const gone = (what: string): Expectation => ({ status: [404], check: 'use_after_free', what });

export const idOf = (exchange: Exchange | undefined): string | undefined => {
  const id = (exchange?.json as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
};

/** A 201's `Location` names the resource it made. */
export function checkLocation(session: Session, operationId: string, exchange: Exchange | undefined): void {
  const id = idOf(exchange);
  const location = exchange?.headers.location;
  if (!id || location === undefined) return;
  if (!location.endsWith(`/${id}`))
    session.fail(
      operationId,
      'response_headers_conformance',
      `${exchange!.method} ${exchange!.url}`,
      `Location ${location} does not name ${id}`,
    );
}

/**
 * Keeps the id of the resource `operationId` was asked to make. When it made none and was not merely "not
 * implemented" (it refused, failed, or answered without an id), the resource is unmade: see `whenMade`.
 */
export function keepMade(
  session: Session,
  world: World,
  resource: Resource,
  operationId: string,
  exchange: Exchange | undefined,
): string | undefined {
  const id = idOf(exchange);
  world.ids[resource] = id;
  if (id === undefined && !session.lastCallNotImplemented(operationId)) world.unmade[resource] = operationId;
  else delete world.unmade[resource];
  return id;
}

/**
 * The dependents rule. Returns whether the operations that need `resource` may run: not when the operation that was
 * to make it failed, since each would only fail again on an id that names nothing; each is then noted "not run
 * because <that operation> failed", so that one cause is reported once. A prerequisite that is not implemented
 * blocks nothing: its dependents are asked with the schema's example id, and a stub says "not implemented" for each.
 */
export function whenMade(session: Session, world: World, resource: Resource, ...operationIds: string[]): boolean {
  const prerequisite = world.unmade[resource];
  if (!prerequisite) return true;
  for (const operationId of operationIds) session.note(operationId, `not run because ${prerequisite} failed`);
  return false;
}

const isAdmin = (world: World) => world.me?.scope === 'admin';

/** Notes on admin operations that a non-admin key cannot try. Returns whether the run may call them. */
export function adminOnly(session: Session, world: World, ...operationIds: string[]): boolean {
  // Without an answer from getMe the scope is unknown: try, and let the answers speak.
  if (!world.me || isAdmin(world)) return true;
  for (const operationId of operationIds) session.note(operationId, 'not run: needs an admin key as --key');
  return false;
}

/**
 * Notes on operations the contract keeps from test keys (team changes and transfers are live-only, 403
 * `live_resource`). Returns whether the run may call them.
 */
export function liveOnly(session: Session, world: World, ...operationIds: string[]): boolean {
  if (world.me?.environment !== 'test') return true;
  for (const operationId of operationIds) session.note(operationId, 'not run: live-only, and --key is a test key');
  return false;
}

/** A form from the example, its slug made unique to the run, kept as `resource`; its id, or undefined when it could not be made. */
export async function createForm(session: Session, world: World, resource: Resource, label: string): Promise<string | undefined> {
  const body = exampleBody(session.contract, 'createForm');
  if (typeof body.slug === 'string') body.slug = `${body.slug}-${label}-${world.suffix}`;
  const form = await session.call('createForm', { body }, made('a form from the example'));
  checkLocation(session, 'createForm', form);
  return keepMade(session, world, resource, 'createForm', form);
}
