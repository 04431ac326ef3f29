import * as forms from '../../domain/forms/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listForms: Handler<'listForms'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(forms.listForms(services, principal, { folderId: query.folder_id }, pageOf(query))),
});

export const createForm: Handler<'createForm'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => forms.createForm(services, principal, body),
    (form) => ({ status: 201, body: form, headers: { Location: `/v1/forms/${form.id}` } }),
  );

export const getForm: Handler<'getForm'> = async ({ services, principal, params }) => ({
  status: 200,
  body: (await forms.findVisibleForm(services, principal, params.id)).form,
});

export const updateForm: Handler<'updateForm'> = async ({ services, principal, params, body }) => ({
  status: 200,
  body: await forms.updateForm(services, principal, params.id, body),
});

export const deleteForm: Handler<'deleteForm'> = async ({ services, principal, params }) => {
  await forms.deleteForm(services, principal, params.id);
  return { status: 200, body: { id: params.id, object: 'form', deleted: true } };
};

export const listFormVersions: Handler<'listFormVersions'> = async ({ services, principal, params, query }) => ({
  status: 200,
  body: await listBody(forms.listFormVersions(services, principal, params.id, pageOf(query))),
});

export const getFormVersion: Handler<'getFormVersion'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await forms.getFormVersion(services, principal, params.id, params.version),
});
