import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isStoreConflict } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { FolderRecord } from '../../store/types.js';
import { actorOf, assertMayChange, definitionEnvironments, type Principal } from '../access.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { createdMetadata, mergedMetadata } from '../metadata.js';
import { outboxOf } from '../outbox.js';
import { type Services, timestamp } from '../services.js';

/** Folders are definitions like forms: test keys see the live ones too, and change only their own. */
async function findVisibleFolder(services: Services, principal: Principal, id: string): Promise<FolderRecord> {
  const record = await services.store.folders.get(principal.workspace.id, id);
  if (!record || (record.folder.test && principal.environment === 'live')) throw notFound('folder', id);
  const { attachment } = principal;
  if (attachment.type === 'form' || (attachment.type === 'folder' && attachment.folder_id !== id)) {
    throw forbidden('form_not_attached', `This key is attached to a ${attachment.type} and cannot reach this folder.`);
  }
  return record;
}

export async function listFolders(services: Services, principal: Principal, page: PageRequest) {
  const { attachment } = principal;
  if (attachment.type === 'folder') {
    const record = await findVisibleFolder(services, principal, attachment.folder_id);
    return { data: page.startingAfter || page.endingBefore ? [] : [record.folder], hasMore: false };
  }
  if (attachment.type === 'form') return { data: [], hasMore: false };
  return services.store.folders.list(principal.workspace.id, definitionEnvironments(principal.environment), page);
}

export const getFolder = async (services: Services, principal: Principal, id: string) =>
  (await findVisibleFolder(services, principal, id)).folder;

export async function createFolder(services: Services, principal: Principal, input: Schema<'FolderCreate'>): Promise<Schema<'Folder'>> {
  if (principal.attachment.type !== 'workspace') {
    throw forbidden('form_not_attached', `This key is attached to a ${principal.attachment.type} and cannot create folders.`);
  }
  const folder: Schema<'Folder'> = {
    id: newId('fld'),
    object: 'folder',
    name: input.name,
    test: principal.environment === 'test',
    form_count: 0,
    created_at: timestamp(services),
    metadata: createdMetadata(input.metadata),
  };
  await services.store.folders.create(
    { folder, workspaceId: principal.workspace.id, environment: principal.environment },
    outboxOf(services, () => ({ returns: folder })),
  );
  return folder;
}

/** Renames the folder or merges its metadata (../metadata.ts); a change that changes nothing still answers 200. */
export async function updateFolder(
  services: Services,
  principal: Principal,
  id: string,
  changes: Schema<'FolderUpdate'>,
): Promise<Schema<'Folder'>> {
  assertMayChange(principal, (await findVisibleFolder(services, principal, id)).folder);
  const updated = await services.store.folders.update(principal.workspace.id, id, (current) => ({
    ...current,
    name: changes.name ?? current.name,
    metadata: mergedMetadata(current.metadata, changes.metadata),
  }));
  if (!updated) throw notFound('folder', id);
  return updated;
}

export async function deleteFolder(services: Services, principal: Principal, id: string): Promise<void> {
  const { folder, environment } = await findVisibleFolder(services, principal, id);
  assertMayChange(principal, folder);
  const at = timestamp(services);
  const actor = actorOf(principal);
  const deletion = services.store.folders.delete(id, at, {
    folder: {
      workspaceId: principal.workspace.id,
      environment,
      type: 'folder.deleted',
      actor,
      target: { type: 'folder', id, name: folder.name },
      reason: null,
      at,
    },
    revokedKey: (key) => ({
      workspaceId: principal.workspace.id,
      environment: key.environment,
      type: 'api_key.revoked',
      actor,
      target: { type: 'api_key', id: key.id, name: key.name },
      reason: `folder ${id} was deleted`,
      at,
    }),
  });
  await deletion.catch((error: unknown) => {
    if (isStoreConflict(error, 'folder_not_empty'))
      throw conflict('folder_not_empty', `The folder still holds ${folder.form_count} forms; move or delete them first.`);
    throw error;
  });
}
