/**
 * The image files of forms' logos. A form's `logo` (in its definition column) names its image by content hash; the
 * bytes are kept here, one row per form and hash. An upload stores its bytes first (`stage`), then the form update
 * that names them; that update deletes every other image of the form in its own transaction (`FormStore.update`),
 * so a form keeps only the image it names, and an image is never gone while its form names it. Bytes staged by an
 * upload whose update then failed stay until the form's next update or its deletion, unserved: only the hash the
 * form names is served.
 */
import type { Schema } from '../contract.js';

export type LogoContentType = Schema<'FormLogo'>['content_type'];

export interface LogoFile {
  contentType: LogoContentType;
  bytes: Buffer;
}

export interface FormLogoStore {
  /**
   * Keeps the image's bytes for the workspace's form (a second stage of the same hash keeps the first);
   * `RecordNotFound('form')` when the workspace does not hold the form.
   */
  stage(
    workspaceId: string,
    formId: string,
    image: { sha256: string; contentType: LogoContentType; bytes: Uint8Array; createdAt: string },
  ): Promise<void>;
  /** The form's image with this hash, while it is kept. */
  get(formId: string, sha256: string): Promise<LogoFile | undefined>;
}
