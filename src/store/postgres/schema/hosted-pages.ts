/**
 * Hosted forms' pages call the public operations with a publishable key the service manages: one per workspace and
 * environment, made on the first page served, allowed on the service's own origin only. The key is an ordinary row
 * of `publishable_keys` (so authentication is unchanged); this table marks it as the service's, which keeps it out
 * of the customer's lists, reads and revocations, and its primary key lets exactly one be made.
 */
export const hostedPagesSchema = `
  CREATE TABLE hosted_page_keys (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    key_id TEXT NOT NULL UNIQUE REFERENCES publishable_keys(id),
    PRIMARY KEY (workspace_id, environment)
  );
`;
