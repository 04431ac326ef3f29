/**
 * Form use cases: who may see and change a form, versioning on update and cascades. Storage is
 * behind `Services.store`; validation of the definition is in `validate-definition.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isStoreConflict } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput, FormRecord } from '../../store/types.js';
import { actorOf, assertFormVisible, assertMayChange, definitionEnvironments, type Principal } from '../access.js';
import { conflict, forbidden, invalidValue, notFound } from '../errors.js';
import type { DomainEvent } from '../events.js';
import { outboxOf } from '../outbox.js';
import { assertIfMatch, type IfMatch, withCompareAndSet } from '../preconditions.js';
import { type Services, timestamp } from '../services.js';
import { assertDefinitionFits } from './definition-size.js';
import { slugify } from './slug.js';
import { assertValidFormDefinition } from './validate-definition.js';

type Form = Schema<'Form'>;

/** The outbox of a change to the form: its event, and what the use case returns. */
const formOutbox = (services: Services, record: FormRecord, event: Pick<DomainEvent, 'type' | 'data'>, returns: unknown) =>
  outboxOf<void>(services, () => ({
    events: [{ workspaceId: record.workspaceId, environment: record.environment, formId: record.form.id, ...event }],
    returns,
  }));

/**
 * Versions kept per form: with definitions of up to 256 KiB, an unbounded history would let one busy form
 * grow without limit. An update that publishes a new version deletes the ones that fall out of this window.
 */
export const KEPT_VERSIONS = 100;

export async function findVisibleForm(services: Services, principal: Principal, id: string): Promise<FormRecord> {
  const record = await services.store.forms.get(principal.workspace.id, id);
  if (!record) throw notFound('form', id);
  assertFormVisible(principal, record.form);
  return record;
}

export async function listForms(services: Services, principal: Principal, query: { folderId?: string | undefined }, page: PageRequest) {
  return services.store.forms.list(
    { workspaceId: principal.workspace.id, environments: definitionEnvironments(principal.environment), attachment: principal.attachment },
    query,
    page,
  );
}

/** A folder given in a create or update must exist for this caller, and fit the key's folder attachment. */
async function assertUsableFolder(services: Services, principal: Principal, folderId: string | null): Promise<void> {
  if (folderId === null) return;
  const folder = await services.store.folders.get(principal.workspace.id, folderId);
  if (!folder || (folder.environment === 'test' && principal.environment === 'live')) {
    throw invalidValue([
      { location: 'body', pointer: '/folder_id', code: 'not_found', message: `no folder ${folderId} in this workspace` },
    ]);
  }
}

export async function createForm(services: Services, principal: Principal, input: Schema<'FormCreate'>): Promise<Form> {
  const { attachment } = principal;
  if (attachment.type === 'form') throw forbidden('form_not_attached', 'This key is attached to one form and cannot create forms.');
  const folderId = attachment.type === 'folder' ? (input.folder_id ?? attachment.folder_id) : (input.folder_id ?? null);
  if (attachment.type === 'folder' && folderId !== attachment.folder_id) {
    throw forbidden('form_not_attached', 'This key is attached to a folder and can create forms only in it.');
  }
  await assertUsableFolder(services, principal, folderId);
  const definition = { steps: input.steps ?? [], logic: input.logic ?? [], scoring: input.scoring ?? { rules: [], grades: [] } };
  assertDefinitionFits(definition);
  assertValidFormDefinition(definition);
  const now = timestamp(services);
  const form: Form = {
    id: newId('form'),
    object: 'form',
    name: input.name,
    slug: input.slug ?? slugify(input.name),
    status: 'published',
    version: 1,
    folder_id: folderId,
    test: principal.environment === 'test',
    created_at: now,
    updated_at: now,
    ...definition,
  };
  const record = { form, workspaceId: principal.workspace.id, environment: principal.environment };
  const outbox = formOutbox(services, record, { type: 'form.created', data: { object: form } }, form);
  if (input.slug !== undefined) {
    await services.store.forms.create(record, outbox).catch(rethrowSlugTaken(form.slug));
    return form;
  }
  // A derived slug that is taken gets a numeric suffix: only a slug the caller chose is a conflict.
  for (let attempt = 1; ; attempt++) {
    try {
      await services.store.forms.create(record, outbox);
      return form;
    } catch (error) {
      if (!isStoreConflict(error, 'slug_taken') || attempt >= 50) rethrowSlugTaken(form.slug)(error);
      form.slug = `${slugify(input.name)}-${attempt + 1}`;
    }
  }
}

const rethrowSlugTaken =
  (slug: string) =>
  (error: unknown): never => {
    if (isStoreConflict(error, 'slug_taken')) {
      throw conflict('slug_taken', `Another form of this workspace already has the slug ${slug}.`, [
        { location: 'body', pointer: '/slug', code: 'slug_taken', message: 'is already used by another form' },
      ]);
    }
    throw error;
  };

export async function updateForm(
  services: Services,
  principal: Principal,
  id: string,
  changes: Schema<'FormUpdate'>,
  ifMatch?: IfMatch,
): Promise<Form> {
  return withCompareAndSet(ifMatch, { resource: 'form', id }, async () => {
    const { form, workspaceId, environment } = await findVisibleForm(services, principal, id);
    assertMayChange(principal, form);
    const readTag = assertIfMatch(ifMatch, { resource: 'form', id, representation: form });
    const next: Form = {
      ...form,
      name: changes.name ?? form.name,
      slug: changes.slug ?? form.slug,
      folder_id: changes.folder_id === undefined ? form.folder_id : changes.folder_id,
      steps: changes.steps ?? form.steps,
      logic: changes.logic ?? form.logic,
      scoring: changes.scoring ?? form.scoring,
    };
    if (next.folder_id !== form.folder_id) {
      // Moving a form between folders changes what every folder-attached key reaches: that is workspace
      // administration, not something a key limited to one form or folder may decide.
      if (principal.attachment.type !== 'workspace') {
        throw forbidden(
          'form_not_attached',
          `This key is attached to a ${principal.attachment.type} and cannot move forms between folders.`,
        );
      }
      await assertUsableFolder(services, principal, next.folder_id);
    }
    // An update that changes nothing publishes nothing: no new version, no new snapshot.
    if (isDeepStrictEqual(next, form)) return form;
    return publishVersion(services, { form, workspaceId, environment }, next, { expectedTag: readTag });
  });
}

/**
 * Stores `next` as the form's next version, compared-and-set on the state read (`expectedTag`), and sends
 * `form.updated`; `audit` is recorded with it.
 */
async function publishVersion(
  services: Services,
  read: FormRecord,
  next: Form,
  options: { expectedTag: string; audit?: (at: string) => AuditEventInput },
): Promise<Form> {
  assertDefinitionFits(next);
  assertValidFormDefinition(next);
  const at = timestamp(services);
  const updated = { ...next, version: read.form.version + 1, updated_at: at };
  const record = { form: updated, workspaceId: read.workspaceId, environment: read.environment };
  await services.store.forms
    .update(
      record,
      { keepVersions: KEPT_VERSIONS, expectedTag: options.expectedTag, audit: options.audit?.(at) },
      formOutbox(services, record, { type: 'form.updated', data: { object: updated, previous_version: read.form.version } }, updated),
    )
    .catch(rethrowSlugTaken(updated.slug));
  return updated;
}

/**
 * Publishes a new version whose definition is that of `version`; name, slug and folder stay as they are. It
 * always publishes, even a definition equal to the current one, so that the history shows the restore.
 */
export async function restoreFormVersion(
  services: Services,
  principal: Principal,
  id: string,
  version: number,
  ifMatch?: IfMatch,
): Promise<Form> {
  return withCompareAndSet(ifMatch, { resource: 'form', id }, async () => {
    const read = await findVisibleForm(services, principal, id);
    assertMayChange(principal, read.form);
    const expectedTag = assertIfMatch(ifMatch, { resource: 'form', id, representation: read.form });
    const snapshot = await getFormVersion(services, principal, id, version);
    const next: Form = { ...read.form, steps: snapshot.steps, logic: snapshot.logic, scoring: snapshot.scoring };
    return publishVersion(services, read, next, {
      expectedTag,
      audit: (at) => ({
        workspaceId: read.workspaceId,
        environment: principal.environment,
        type: 'form.version_restored',
        actor: actorOf(principal),
        target: { type: 'form', id: read.form.id, name: read.form.name },
        reason: `version ${version} restored as version ${read.form.version + 1}`,
        at,
      }),
    });
  });
}

export async function deleteForm(services: Services, principal: Principal, id: string, ifMatch?: IfMatch): Promise<void> {
  await withCompareAndSet(ifMatch, { resource: 'form', id }, async () => {
    const record = await findVisibleForm(services, principal, id);
    assertMayChange(principal, record.form);
    const readTag = assertIfMatch(ifMatch, { resource: 'form', id, representation: record.form });
    const at = timestamp(services);
    const actor = actorOf(principal);
    await services.store.forms.delete(
      record.workspaceId,
      record.form.id,
      at,
      {
        form: {
          workspaceId: record.workspaceId,
          environment: principal.environment,
          type: 'form.deleted',
          actor,
          target: { type: 'form', id: record.form.id, name: record.form.name },
          reason: null,
          at,
        },
        revokedKey: (key) => ({
          workspaceId: record.workspaceId,
          environment: key.environment,
          type: 'api_key.revoked',
          actor,
          target: { type: 'api_key', id: key.id, name: key.name },
          reason: `form ${record.form.id} was deleted`,
          at,
        }),
      },
      formOutbox(
        services,
        record,
        { type: 'form.deleted', data: { object: { id: record.form.id, object: 'form', deleted: true } } },
        undefined,
      ),
      // Only a client that named the state it saw holds the deletion to it; `*` deletes whatever is there.
      { expectedTag: ifMatch && 'tags' in ifMatch ? readTag : undefined },
    );
  });
}

export async function listFormVersions(services: Services, principal: Principal, id: string, page: PageRequest) {
  const { form } = await findVisibleForm(services, principal, id);
  return services.store.forms.listVersions(form.id, page);
}

export async function getFormVersion(services: Services, principal: Principal, id: string, version: number) {
  const { form } = await findVisibleForm(services, principal, id);
  if (version <= form.version - KEPT_VERSIONS) {
    throw notFound(
      'version of this form',
      String(version),
      `Version ${version} of this form is no longer kept: only the latest ${KEPT_VERSIONS} are.`,
    );
  }
  const snapshot = await services.store.forms.getVersion(form.id, version);
  if (!snapshot) throw notFound('version of this form', String(version));
  return snapshot;
}
