/**
 * Form use cases: who may see and change a form, versioning on update and cascades. Storage is
 * behind `Services.store`; validation of the definition is in `validate-definition.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Schema } from '../../contract.js';
import { entityTagOf } from '../../etag.js';
import { newId } from '../../ids.js';
import { isStoreConflict, ReferenceMissing } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput, FormRecord } from '../../store/types.js';
import { actorOf, assertFormVisible, assertMayChange, definitionEnvironments, type Principal } from '../access.js';
import { conflict, forbidden, invalidValue, notFound, unprocessable } from '../errors.js';
import type { DomainEvent } from '../events.js';
import { appearanceOf, hostingOf, presentedForm } from '../hosting/settings.js';
import { createdMetadata, mergedMetadata } from '../metadata.js';
import { outboxOf } from '../outbox.js';
import { assertIfMatch, type IfMatch, withCompareAndSet } from '../preconditions.js';
import { type Services, timestamp } from '../services.js';
import { checkHoneypotField, spamProtectionOf } from '../spam-protection/rules.js';
import { assertDefinitionFits } from './definition-size.js';
import { endingOf, languageOf, welcomeOf } from './screens.js';
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

/** 422 `invalid_form` when the honeypot names a field of the form (its real answers would all be discarded). */
function assertHoneypotIsNoField(definition: Pick<Form, 'steps'>, spamProtection: Form['spam_protection']): void {
  const refs = new Set(definition.steps.flatMap((step) => step.fields.map((field) => field.ref)));
  const issues = checkHoneypotField(spamProtection, refs);
  if (issues.length > 0) throw unprocessable('invalid_form', issues);
}

/** The form as stored, if the caller may see it: what a write compares-and-sets on. */
async function findStoredForm(services: Services, principal: Principal, id: string): Promise<FormRecord> {
  const record = await services.store.forms.get(principal.workspace.id, id);
  if (!record) throw notFound('form', id);
  assertFormVisible(principal, record.form);
  return record;
}

/** The form as the caller may see it, with its page's address of now (every form that leaves the server is one of these). */
export async function findVisibleForm(services: Services, principal: Principal, id: string): Promise<FormRecord> {
  const record = await findStoredForm(services, principal, id);
  return { ...record, form: presentedForm(services, record.form) };
}

/**
 * A write's read: the form as presented, which the client's `If-Match` names (its `ETag` covers the page's address),
 * and the tag of the form as stored, which the store compares-and-sets on (it knows no address).
 */
export async function readForWrite(services: Services, principal: Principal, id: string, ifMatch: IfMatch | undefined) {
  const stored = await findStoredForm(services, principal, id);
  const record = { ...stored, form: presentedForm(services, stored.form) };
  assertMayChange(principal, record.form);
  assertIfMatch(ifMatch, { resource: 'form', id, representation: record.form });
  return { record, storedTag: entityTagOf(stored.form) };
}

export async function listForms(
  services: Services,
  principal: Principal,
  query: { folderId?: string | undefined; metadata?: Record<string, string> | undefined },
  page: PageRequest,
) {
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
  if (!folder || (folder.environment === 'test' && principal.environment === 'live')) throw folderNotFound(folderId);
}

const folderNotFound = (folderId: string) =>
  invalidValue([{ location: 'body', pointer: '/folder_id', code: 'not_found', message: `no folder ${folderId} in this workspace` }]);

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
  const spamProtection = spamProtectionOf(input.spam_protection);
  assertHoneypotIsNoField(definition, spamProtection);
  const now = timestamp(services);
  const id = newId('form');
  const form: Form = {
    id,
    object: 'form',
    name: input.name,
    slug: input.slug ?? slugify(input.name),
    status: 'published',
    version: 1,
    folder_id: folderId,
    test: principal.environment === 'test',
    created_at: now,
    updated_at: now,
    metadata: createdMetadata(input.metadata),
    ...definition,
    spam_protection: spamProtection,
    hosting: hostingOf(input.hosting),
    appearance: appearanceOf(input.appearance),
    welcome: welcomeOf(input.welcome),
    ending: endingOf(input.ending),
    language: languageOf(input.language),
    logo: null,
  };
  // What the answer and `form.created` carry: the page's address, which the store does not keep.
  const presented = (): Form => presentedForm(services, form);
  const record = { form, workspaceId: principal.workspace.id, environment: principal.environment };
  const outbox = () => formOutbox(services, record, { type: 'form.created', data: { object: presented() } }, presented());
  if (input.slug !== undefined) {
    await services.store.forms.create(record, outbox()).catch(rethrowFormRefusal(form.slug));
    return presented();
  }
  // A derived slug that is taken gets a numeric suffix: only a slug the caller chose is a conflict.
  for (let attempt = 1; ; attempt++) {
    try {
      await services.store.forms.create(record, outbox());
      return presented();
    } catch (error) {
      if (!isStoreConflict(error, 'slug_taken') || attempt >= 50) rethrowFormRefusal(form.slug)(error);
      form.slug = `${slugify(input.name)}-${attempt + 1}`;
    }
  }
}

/**
 * A store's refusal of a form's write, as the client hears it: a taken slug, or a folder deleted after
 * `assertUsableFolder` found it (the answer its check would have given a moment later).
 */
const rethrowFormRefusal =
  (slug: string) =>
  (error: unknown): never => {
    if (error instanceof ReferenceMissing) throw folderNotFound(error.id);
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
    const { record, storedTag: readTag } = await readForWrite(services, principal, id, ifMatch);
    const { form, workspaceId, environment } = record;
    const next: Form = {
      ...form,
      name: changes.name ?? form.name,
      slug: changes.slug ?? form.slug,
      folder_id: changes.folder_id === undefined ? form.folder_id : changes.folder_id,
      steps: changes.steps ?? form.steps,
      logic: changes.logic ?? form.logic,
      scoring: changes.scoring ?? form.scoring,
      metadata: mergedMetadata(form.metadata, changes.metadata),
      // Replaced whole when given: an omitted member takes its default.
      spam_protection: changes.spam_protection === undefined ? form.spam_protection : spamProtectionOf(changes.spam_protection),
      hosting:
        changes.hosting === undefined
          ? form.hosting
          : presentedForm(services, { id: form.id, hosting: hostingOf(changes.hosting) }).hosting,
      appearance: changes.appearance === undefined ? form.appearance : appearanceOf(changes.appearance),
      welcome: changes.welcome === undefined ? form.welcome : welcomeOf(changes.welcome),
      ending: changes.ending === undefined ? form.ending : endingOf(changes.ending),
      language: languageOf(changes.language, form.language),
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
export async function publishVersion(
  services: Services,
  read: FormRecord,
  next: Form,
  options: { expectedTag: string; audit?: (at: string) => AuditEventInput },
): Promise<Form> {
  assertDefinitionFits(next);
  assertValidFormDefinition(next);
  assertHoneypotIsNoField(next, next.spam_protection);
  const at = timestamp(services);
  const updated = { ...next, version: read.form.version + 1, updated_at: at };
  const record = { form: updated, workspaceId: read.workspaceId, environment: read.environment };
  await services.store.forms
    .update(
      record,
      { keepVersions: KEPT_VERSIONS, expectedTag: options.expectedTag, audit: options.audit?.(at) },
      formOutbox(services, record, { type: 'form.updated', data: { object: updated, previous_version: read.form.version } }, updated),
    )
    .catch(rethrowFormRefusal(updated.slug));
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
    const { record: read, storedTag: expectedTag } = await readForWrite(services, principal, id, ifMatch);
    const snapshot = await getFormVersion(services, principal, id, version);
    const { steps, logic, scoring, welcome, ending, language } = snapshot;
    const next: Form = { ...read.form, steps, logic, scoring, welcome, ending, language };
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
    const { record, storedTag: readTag } = await readForWrite(services, principal, id, ifMatch);
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
