import type { Schema } from '../../contract.js';
import * as integrations from '../../domain/integrations/service.js';
import { entityTagOf } from '../../etag.js';
import { ifMatchOf } from '../if-match.js';
import { listBody, pageOf } from './pagination.js';
import { tagged } from './tagged.js';
import type { Handler } from './types.js';

export const listIntegrations: Handler<'listIntegrations'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(integrations.listIntegrations(services, principal, pageOf(query))),
});

export const createIntegration: Handler<'createIntegration'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => integrations.createIntegration(services, principal, body),
    (created) => ({
      status: 201,
      body: created,
      headers: { Location: `/v1/integrations/${created.id}`, ETag: entityTagOf(withoutSecret(created)) },
    }),
  );

export const getIntegration: Handler<'getIntegration'> = async ({ services, principal, params }) =>
  tagged(await integrations.getIntegration(services, principal, params.id));

export const updateIntegration: Handler<'updateIntegration'> = async ({ services, principal, params, body, header }) =>
  tagged(await integrations.updateIntegration(services, principal, params.id, body, ifMatchOf(header('if-match'))));

export const deleteIntegration: Handler<'deleteIntegration'> = async ({ services, principal, params, header }) => {
  await integrations.deleteIntegration(services, principal, params.id, ifMatchOf(header('if-match')));
  return { status: 200, body: { id: params.id, object: 'integration', deleted: true } };
};

export const dispatchIntegration: Handler<'dispatchIntegration'> = ({ replayable, principal, params, body }) =>
  replayable(
    (services) => integrations.dispatchIntegration(services, principal, params.id, body),
    (log) => ({ status: 202, body: log }),
  );

export const listIntegrationLogs: Handler<'listIntegrationLogs'> = async ({ services, principal, params, query }) => ({
  status: 200,
  body: await listBody(
    integrations.listIntegrationLogs(services, principal, params.id, { status: query.status, eventType: query.event_type }, pageOf(query)),
  ),
});

export const rotateIntegrationSecret: Handler<'rotateIntegrationSecret'> = ({ replayable, principal, params, body }) =>
  replayable(
    (services) => integrations.rotateIntegrationSecret(services, principal, params.id, body),
    (rotated) => ({ status: 200, body: rotated, headers: { ETag: entityTagOf(withoutSecret(rotated)) } }),
  );

/** The integration as GET shows it, without the secret shown once: its tag is the one the next If-Match sends. */
function withoutSecret(integration: Schema<'Integration'> & { signing_secret: string }): Schema<'Integration'> {
  const { signing_secret: _shownOnce, ...shown } = integration;
  return shown;
}
