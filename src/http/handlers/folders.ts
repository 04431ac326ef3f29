import * as folders from '../../domain/folders/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listFolders: Handler<'listFolders'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(folders.listFolders(services, principal, pageOf(query))),
});

export const createFolder: Handler<'createFolder'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => folders.createFolder(services, principal, body),
    (folder) => ({ status: 201, body: folder, headers: { Location: `/v1/folders/${folder.id}` } }),
  );

export const getFolder: Handler<'getFolder'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await folders.getFolder(services, principal, params.id),
});

export const updateFolder: Handler<'updateFolder'> = async ({ services, principal, params, body }) => ({
  status: 200,
  body: await folders.updateFolder(services, principal, params.id, body),
});

export const deleteFolder: Handler<'deleteFolder'> = async ({ services, principal, params }) => {
  await folders.deleteFolder(services, principal, params.id);
  return { status: 200, body: { id: params.id, object: 'folder', deleted: true } };
};
