import * as keys from '../../domain/keys/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listApiKeys: Handler<'listApiKeys'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(keys.listApiKeys(services, principal, { status: query.status }, pageOf(query))),
});

export const createApiKey: Handler<'createApiKey'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => keys.createApiKey(services, principal, body),
    (key) => ({ status: 201, body: key, headers: { Location: `/v1/api_keys/${key.id}` } }),
  );

export const getApiKey: Handler<'getApiKey'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await keys.getApiKey(services, principal, params.id),
});

export const revokeApiKey: Handler<'revokeApiKey'> = async ({ services, principal, params, body }) => ({
  status: 200,
  body: await keys.revokeApiKey(services, principal, params.id, body?.reason ?? null),
});
