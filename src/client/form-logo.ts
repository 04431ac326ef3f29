import type { FormFunnelClient } from './create-form-funnel-client.js';
import type { Schema } from './schemas.js';

/** The media types a logo is sent in (`FormLogo.content_type`). */
export type LogoContentType = Schema<'FormLogo'>['content_type'];

const logoContentTypes: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'] satisfies readonly LogoContentType[];

export interface SetFormLogoOptions {
  /** The image's media type; by default a Blob's (or File's) own `type`. Bytes have none: give it. */
  contentType?: LogoContentType;
  /** `ifMatch(read)`: set the logo only if the form is unchanged since that read (else 412 `precondition_failed`). */
  header?: { 'If-Match'?: string };
  /** Headers for this request only. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Uploads `image` as the form's logo (`PUT /forms/{id}/logo`): the file itself as the body, never JSON, with its media
 * type as `Content-Type`. The result is the client's own, for `unwrap`: the form with its new `logo`.
 *
 *   const file = input.files[0]; // a File from <input type="file">
 *   const form = unwrap(await setFormLogo(client, formId, file, { header: ifMatch(read) }));
 *   await setFormLogo(client, formId, await readFile('logo.png'), { contentType: 'image/png' }); // Node
 *
 * Throws a TypeError before sending anything when the media type is not one a logo may have.
 */
export function setFormLogo(
  client: FormFunnelClient,
  formId: string,
  image: Blob | Uint8Array | ArrayBuffer,
  options: SetFormLogoOptions = {},
) {
  const contentType = options.contentType ?? (image instanceof Blob ? image.type : '');
  if (!logoContentTypes.includes(contentType)) {
    throw new TypeError(
      `setFormLogo: a logo is sent as ${logoContentTypes.join(', ')}; ` +
        (contentType ? `got ${contentType}.` : 'give contentType for bytes, or a Blob with a type.'),
    );
  }
  return client.PUT('/forms/{id}/logo', {
    params: { path: { id: formId }, ...(options.header && { header: options.header }) },
    // The contract types a file body as a string; fetch sends a Blob or bytes as they are.
    body: image as unknown as string,
    bodySerializer: (body) => body,
    headers: { ...options.headers, 'Content-Type': contentType },
    ...(options.signal && { signal: options.signal }),
  });
}
