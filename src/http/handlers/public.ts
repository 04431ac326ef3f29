import * as forms from '../../domain/public/forms.js';
import * as keys from '../../domain/public/publishable-keys.js';
import * as submissions from '../../domain/public/submissions.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listPublishableKeys: Handler<'listPublishableKeys'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(keys.listPublishableKeys(services, principal, pageOf(query))),
});

export const createPublishableKey: Handler<'createPublishableKey'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => keys.createPublishableKey(services, principal, body),
    (key) => ({ status: 201, body: key, headers: { Location: `/v1/publishable_keys/${key.id}` } }),
  );

export const getPublishableKey: Handler<'getPublishableKey'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await keys.getPublishableKey(services, principal, params.id),
});

export const revokePublishableKey: Handler<'revokePublishableKey'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await keys.revokePublishableKey(services, principal, params.id),
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
