/**
 * The image files of forms' logos (src/store/form-logo-store.ts): one row per form and content hash, deleted with
 * the form. A transfer keeps them: they are the form's, by its id, whatever its workspace.
 */
export const formLogosSchema = `
  CREATE TABLE form_logos (
    form_id TEXT NOT NULL REFERENCES forms(id),
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    content_type TEXT NOT NULL CHECK (content_type IN ('image/png','image/jpeg','image/webp')),
    bytes BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (form_id, sha256)
  );
`;
