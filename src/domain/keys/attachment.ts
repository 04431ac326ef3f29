/**
 * The check on a key's attachment, shared by API keys and publishable keys: the form or folder it names must be
 * one of the workspace's, and one the key's environment may use (a live key is never attached to a sandbox form).
 */
import type { Attachment, Environment, ValidationIssue } from '../../contract.js';
import { RecordNotFound } from '../../store/errors.js';
import { invalidValue } from '../errors.js';
import type { Services } from '../services.js';

export async function attachmentIssues(
  services: Services,
  workspaceId: string,
  attachment: Attachment,
  environment: Environment,
): Promise<ValidationIssue[]> {
  const usable = (record: { environment: Environment } | undefined) =>
    record !== undefined && !(record.environment === 'test' && environment === 'live');
  if (attachment.type === 'form') {
    const form = await services.store.forms.get(workspaceId, attachment.form_id);
    return usable(form) ? [] : [notFoundIssue('form', attachment.form_id)];
  }
  if (attachment.type === 'folder') {
    const folder = await services.store.folders.get(workspaceId, attachment.folder_id);
    return usable(folder) ? [] : [notFoundIssue('folder', attachment.folder_id)];
  }
  return [];
}

const notFoundIssue = (what: 'form' | 'folder', id: string): ValidationIssue => ({
  location: 'body',
  pointer: `/attachment/${what}_id`,
  code: 'not_found',
  message: `no ${what} ${id} in this workspace`,
});

/**
 * The store found the attachment gone when it wrote the key (deleted, or moved by a transfer's accept, after
 * `attachmentIssues` read it): the answer that check would have given.
 */
export function rethrowAttachmentGone(error: unknown): never {
  if (error instanceof RecordNotFound && (error.kind === 'form' || error.kind === 'folder'))
    throw invalidValue([notFoundIssue(error.kind, error.id)]);
  throw error;
}
