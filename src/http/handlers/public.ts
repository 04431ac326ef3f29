import * as forms from '../../domain/public/forms.js';
import * as keys from '../../domain/public/publishable-keys.js';
import * as submissions from '../../domain/public/submissions.js';
import { entityTagOf } from '../../etag.js';
import { ifMatchOf } from '../if-match.js';
import { listBody, pageOf } from './pagination.js';
import { tagged } from './tagged.js';
import type { Handler } from './types.js';

export const listPublishableKeys: Handler<'listPublishableKeys'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(keys.listPublishableKeys(services, principal, pageOf(query))),
});

export const createPublishableKey: Handler<'createPublishableKey'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => keys.createPublishableKey(services, principal, body),
    (key) => ({ status: 201, body: key, headers: { Location: `/v1/publishable_keys/${key.id}`, ETag: entityTagOf(key) } }),
  );

export const getPublishableKey: Handler<'getPublishableKey'> = async ({ services, principal, params }) =>
  tagged(await keys.getPublishableKey(services, principal, params.id));

export const updatePublishableKey: Handler<'updatePublishableKey'> = async ({ services, principal, params, body, header }) =>
  tagged(await keys.updatePublishableKey(services, principal, params.id, body, ifMatchOf(header('if-match'))));

export const revokePublishableKey: Handler<'revokePublishableKey'> = async ({ services, principal, params, header }) => ({
  status: 200,
  body: await keys.revokePublishableKey(services, principal, params.id, ifMatchOf(header('if-match'))),
});

export const getPublicForm: Handler<'getPublicForm'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await forms.getPublicForm(services, principal, params.id),
});

export const createPublicSubmission: Handler<'createPublicSubmission'> = ({ replayable, principal, body, header }) =>
  replayable(
    (services) =>
      submissions.createPublicSubmission(services, principal, body, {
        userAgent: header('user-agent'),
        referrer: header('referer'),
      }),
    (submission) => ({ status: 201, body: submission, headers: { Location: `/v1/public/submissions/${submission.id}` } }),
  );

export const updatePublicSubmission: Handler<'updatePublicSubmission'> = ({ replayable, principal, params, body }) =>
  replayable(
    (services) => submissions.updatePublicSubmission(services, principal, params.id, body),
    (submission) => ({ status: 200, body: submission }),
  );
