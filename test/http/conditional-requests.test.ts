/**
 * Conditional requests, walked from the bundled document: every resource whose GET declares an `ETag` declares
 * it on its create's 201 too, takes `If-Match` (with 412) on its PATCH and DELETE and `If-None-Match` (with 304)
 * on its GET; and the server does each of them, on the store of the run (the api and api-postgres projects).
 * Every response an operation with an `Idempotency-Key` can replay declares `Idempotent-Replayed`, and a replay
 * carries it.
 */
import { describe, expect, it } from 'vitest';
import { deref, documentedOperations, type Operation, requestExample } from '../contract/support/document.js';
import { formBody, PUBLIC_URL } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';

interface Parameter {
  name: string;
  in: string;
}
interface ResponseObject {
  headers?: Record<string, unknown>;
}

const operations = documentedOperations();
const responseOf = (operation: Operation, status: string) => {
  const response = operation.responses[status];
  return response === undefined ? undefined : deref<ResponseObject>(response);
};
const declaresHeader = (operation: Operation | undefined, status: string, header: string) =>
  Object.keys(responseOf(operation!, status)?.headers ?? {}).includes(header);
const takesHeader = (operation: Operation | undefined, header: string) =>
  (operation?.parameters ?? []).some((parameter) => {
    const resolved = deref<Parameter>(parameter);
    return resolved.in === 'header' && resolved.name === header;
  });
const find = (method: string, path: string) => operations.find((operation) => operation.method === method && operation.path === path);

/** Resources whose read answers an ETag: `/forms/{id}` with its collection `/forms`, and so on. */
const taggedResources = operations
  .filter((operation) => operation.method === 'GET' && declaresHeader(operation, '200', 'ETag'))
  .map((read) => {
    const collection = read.path.replace(/\/\{id\}$/, '');
    return { path: read.path, read, create: find('POST', collection), update: find('PATCH', read.path), remove: find('DELETE', read.path) };
  });

/**
 * A create body per tagged resource that this workspace accepts any number of times (the documented examples name
 * a slug, a receiver host and a form of their own). A resource that gains an ETag needs an entry here.
 */
const createBodies: Record<string, () => object> = {
  '/forms/{id}': () => formBody('Conditional'),
  '/integrations/{id}': () => ({ url: PUBLIC_URL, events: ['form.created'] }),
  '/publishable_keys/{id}': () => ({ name: 'Conditional', environment: 'live', allowed_origins: ['https://conditional.example'] }),
};

/** Resources whose DELETE revokes rather than deletes: they stay readable, with this status. */
const revokedByDelete: Record<string, string> = { '/publishable_keys/{id}': 'revoked' };

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

describe('the document', () => {
  it('when a read declares ETag, then its create, update and delete declare conditional requests', () => {
    expect(taggedResources.map((resource) => resource.path)).toEqual(
      expect.arrayContaining(['/forms/{id}', '/integrations/{id}', '/publishable_keys/{id}']),
    );
    const missing = taggedResources.flatMap(({ path, read, create, update, remove }) => [
      ...(create && !declaresHeader(create, '201', 'ETag') ? [`${create.operationId}: no ETag on 201`] : []),
      ...(takesHeader(read, 'If-None-Match') ? [] : [`${read.operationId}: no If-None-Match`]),
      ...(responseOf(read, '304') ? [] : [`${read.operationId}: no 304`]),
      ...[update, remove].flatMap((change) =>
        change === undefined
          ? []
          : [
              ...(takesHeader(change, 'If-Match') ? [] : [`${change.operationId}: no If-Match`]),
              ...(responseOf(change, '412') ? [] : [`${change.operationId}: no 412`]),
            ],
      ),
      ...(create ? [] : [`${path}: no create`]),
    ]);
    expect(missing).toEqual([]);
  });

  it('when an operation takes an Idempotency-Key, then every response it can replay declares Idempotent-Replayed', () => {
    // Refusals before the key is claimed (401, 405, 406, 413, 415, 429) and 5xx failures are never stored.
    const replayable = /^(2\d\d|400|403|404|409|410|412|422)$/;
    const undeclared = operations
      .filter((operation) => takesHeader(operation, 'Idempotency-Key'))
      .flatMap((operation) =>
        Object.keys(operation.responses)
          .filter((status) => replayable.test(status) && !declaresHeader(operation, status, 'Idempotent-Replayed'))
          .map((status) => `${operation.operationId} ${status}`),
      );
    expect(undeclared).toEqual([]);
  });
});

describe.each(taggedResources.map((resource) => [resource.path, resource] as const))('%s', (_path, resource) => {
  const at = (id: string) => `/v1${resource.path.replace('{id}', id)}`;
  const create = () => api.call('post', `/v1${resource.create!.path}`).send(createBodies[resource.path]!());

  it('when created, then the 201 carries the ETag a GET answers, and a replay carries it with Idempotent-Replayed', async () => {
    const body = createBodies[resource.path]!();
    const collection = `/v1${resource.create!.path}`;
    const created = await api.call('post', collection).set('Idempotency-Key', `conditional-${resource.path}`).send(body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.etag).toMatch(/^"[0-9A-Za-z_-]{22}"$/);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    const read = await api.call('get', at(created.body.id));
    expect(read.headers.etag).toBe(created.headers.etag);
    const replayed = await api.call('post', collection).set('Idempotency-Key', `conditional-${resource.path}`).send(body);
    expect({ status: replayed.status, replayed: replayed.headers['idempotent-replayed'], tag: replayed.headers.etag }).toEqual({
      status: 201,
      replayed: 'true',
      tag: created.headers.etag,
    });
  });

  it('when If-None-Match names the current tag (strong, weak or *), then 304 without a body; another tag, then 200', async () => {
    const created = await create();
    const tag = created.headers.etag!;
    for (const current of [tag, `W/${tag}`, `"AAAAAAAAAAAAAAAAAAAAAA", ${tag}`, '*']) {
      const notModified = await api.call('get', at(created.body.id)).set('If-None-Match', current);
      expect({ status: notModified.status, tag: notModified.headers.etag, text: notModified.text }).toEqual({ status: 304, tag, text: '' });
      expect(notModified.headers['x-request-id']).toMatch(/^req_/);
    }
    // The URL passed the checks with a valid header: a malformed one is still refused.
    const malformed = await api.call('get', at(created.body.id)).set('If-None-Match', 'no quotes');
    expect({ status: malformed.status, code: malformed.body.code }).toEqual({ status: 400, code: 'invalid_parameters' });
    const changed = await api.call('get', at(created.body.id)).set('If-None-Match', '"AAAAAAAAAAAAAAAAAAAAAA"');
    expect({ status: changed.status, id: changed.body.id, tag: changed.headers.etag }).toEqual({ status: 200, id: created.body.id, tag });
  });

  it('when updated and deleted with a stale If-Match, then 412 and nothing changes; with the current tag, then the change is made', async () => {
    const created = await create();
    const id: string = created.body.id;
    const first = created.headers.etag!;
    let current = first;
    if (resource.update) {
      const changes = requestExample<object>(resource.update.operationId);
      const stale = await api.call('patch', at(id)).set('If-Match', '"AAAAAAAAAAAAAAAAAAAAAA"').send(changes);
      expect({ status: stale.status, code: stale.body.code }, JSON.stringify(stale.body)).toEqual({
        status: 412,
        code: 'precondition_failed',
      });
      const updated = await api.call('patch', at(id)).set('If-Match', first).send(changes);
      expect(updated.status).toBe(200);
      current = updated.headers.etag!;
      expect(current).not.toBe(first);
      // The copy held is no longer current: the read answers the new state.
      expect((await api.call('get', at(id)).set('If-None-Match', first)).status).toBe(200);
    }
    if (resource.remove) {
      if (current !== first) {
        const stale = await api.call('delete', at(id)).set('If-Match', first);
        expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 412, code: 'precondition_failed' });
        expect((await api.call('get', at(id))).status).toBe(200);
      }
      const wrong = await api.call('delete', at(id)).set('If-Match', '"AAAAAAAAAAAAAAAAAAAAAA"');
      expect({ status: wrong.status, code: wrong.body.code }).toEqual({ status: 412, code: 'precondition_failed' });
      expect((await api.call('get', at(id))).status).toBe(200);
      const deleted = await api.call('delete', at(id)).set('If-Match', current);
      expect(deleted.status).toBe(200);
      const after = await api.call('get', at(id));
      const revoked = revokedByDelete[resource.path];
      if (revoked) expect({ status: after.status, state: after.body.status }).toEqual({ status: 200, state: revoked });
      else expect(after.status).toBe(404);
    }
  });
});
