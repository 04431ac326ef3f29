import * as forms from '../../domain/forms/service.js';
import { entityTagOf } from '../../etag.js';
import { ifMatchOf } from '../if-match.js';
import { listBody, pageOf } from './pagination.js';
import { tagged } from './tagged.js';
import type { Handler } from './types.js';

export const listForms: Handler<'listForms'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(forms.listForms(services, principal, { folderId: query.folder_id, metadata: query.metadata }, pageOf(query))),
});

export const createForm: Handler<'createForm'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => forms.createForm(services, principal, body),
    (form) => ({ status: 201, body: form, headers: { Location: `/v1/forms/${form.id}`, ETag: entityTagOf(form) } }),
  );

export const getForm: Handler<'getForm'> = async ({ services, principal, params }) =>
  tagged((await forms.findVisibleForm(services, principal, params.id)).form);

export const updateForm: Handler<'updateForm'> = async ({ services, principal, params, body, header }) =>
  tagged(await forms.updateForm(services, principal, params.id, body, ifMatchOf(header('if-match'))));

export const deleteForm: Handler<'deleteForm'> = async ({ services, principal, params, header }) => {
  await forms.deleteForm(services, principal, params.id, ifMatchOf(header('if-match')));
  return { status: 200, body: { id: params.id, object: 'form', deleted: true } };
};

export const restoreFormVersion: Handler<'restoreFormVersion'> = ({ replayable, principal, params, header }) =>
  replayable((services) => forms.restoreFormVersion(services, principal, params.id, params.version, ifMatchOf(header('if-match'))), tagged);

export const listFormVersions: Handler<'listFormVersions'> = async ({ services, principal, params, query }) => ({
  status: 200,
  body: await listBody(forms.listFormVersions(services, principal, params.id, pageOf(query))),
});

export const getFormVersion: Handler<'getFormVersion'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await forms.getFormVersion(services, principal, params.id, params.version),
});
