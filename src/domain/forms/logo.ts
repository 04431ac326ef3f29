/**
 * A form's logo, set from an uploaded image and removed: each an update of the form (a new version, a new `ETag`,
 * `form.updated`) that leaves its definition as it was, published as every other update is (service.ts). The form's
 * `logo` names the image by its content hash; the bytes are kept beside the form (src/store/form-logo-store.ts),
 * stored before the update that names them, and the update keeps only the image it names.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Schema } from '../../contract.js';
import type { LogoFile } from '../../store/form-logo-store.js';
import { logoPath, storedLogoOf } from '../../store/rows/forms.js';
import type { Principal } from '../access.js';
import { unsupportedMediaType } from '../errors.js';
import { presentedForm } from '../hosting/settings.js';
import { type IfMatch, withCompareAndSet } from '../preconditions.js';
import { type Services, timestamp } from '../services.js';
import { assertLogoImage, isLogoType, type LogoImage } from './logo-image.js';
import { publishVersion, readForWrite } from './service.js';

type Form = Schema<'Form'>;

/** An uploaded file: its bytes and the media type it was sent as. */
export interface LogoUpload {
  bytes: Uint8Array;
  contentType: string;
}

/**
 * Makes the image the form's logo. The same image again changes nothing (no version, no event); another image, or
 * one where there was none, is published as the form's next version.
 */
export async function setFormLogo(
  services: Services,
  principal: Principal,
  id: string,
  upload: LogoUpload,
  ifMatch?: IfMatch,
): Promise<Form> {
  const { contentType } = upload;
  if (!isLogoType(contentType)) throw unsupportedMediaType('image/png, image/jpeg or image/webp');
  let image: LogoImage | undefined;
  return withCompareAndSet(ifMatch, { resource: 'form', id }, async () => {
    // Who may change the form, and whether it is as the client read it, come before what the file is.
    const { record, storedTag } = await readForWrite(services, principal, id, ifMatch);
    image ??= assertLogoImage(upload.bytes, contentType);
    const { sha256, ...read } = image;
    const next = presentedForm(services, { ...record.form, logo: { url: logoPath(id, image), ...read } });
    if (isDeepStrictEqual(next.logo, record.form.logo)) return record.form;
    await services.store.formLogos.stage(record.workspaceId, id, {
      sha256,
      contentType,
      bytes: upload.bytes,
      createdAt: timestamp(services),
    });
    return publishVersion(services, record, next, { expectedTag: storedTag });
  });
}

/** Removes the form's logo; a form without one is returned as it is. */
export async function deleteFormLogo(services: Services, principal: Principal, id: string, ifMatch?: IfMatch): Promise<Form> {
  return withCompareAndSet(ifMatch, { resource: 'form', id }, async () => {
    const { record, storedTag } = await readForWrite(services, principal, id, ifMatch);
    if (record.form.logo === null) return record.form;
    return publishVersion(services, record, { ...record.form, logo: null }, { expectedTag: storedTag });
  });
}

/**
 * The image at a logo's address, for anyone who has the address: only while the form exists and names this image (by
 * its hash and type) as its logo. An image the form named before is not served, even while its bytes are still kept.
 */
export async function findLogoFile(
  services: Services,
  formId: string,
  image: Pick<LogoImage, 'sha256' | 'content_type'>,
): Promise<LogoFile | undefined> {
  const workspaceId = await services.store.forms.workspaceOf(formId);
  const logo = workspaceId === undefined ? null : ((await services.store.forms.get(workspaceId, formId))?.form.logo ?? null);
  if (logo === null) return undefined;
  const named = storedLogoOf(logo);
  if (named.sha256 !== image.sha256 || named.content_type !== image.content_type) return undefined;
  return services.store.formLogos.get(formId, image.sha256);
}
