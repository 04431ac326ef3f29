import { shared } from './statement.js';

/** The form's logo images (src/store/form-logo-store.ts): the statements both stores run as written. */
export const formLogoSql = {
  stage: shared(
    `INSERT INTO form_logos (form_id, sha256, content_type, bytes, created_at)
     VALUES (:formId, :sha256, :contentType, :bytes, :createdAt) ON CONFLICT DO NOTHING`,
  ),
  get: shared('SELECT content_type, bytes FROM form_logos WHERE form_id = :formId AND sha256 = :sha256'),
  /** In the form update's transaction: every image but the one the form now names (none: every image). */
  keepOnly: shared("DELETE FROM form_logos WHERE form_id = :formId AND sha256 <> COALESCE(:sha256, '')"),
};

export interface LogoFileRow {
  content_type: 'image/png' | 'image/jpeg' | 'image/webp';
  bytes: Buffer;
}
