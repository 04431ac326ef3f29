/**
 * No foreign key from the rows every create writes to their workspace. Each such key's check locks the parent row
 * (`FOR KEY SHARE`) for the rest of the transaction, so every create of a workspace, whatever its form, locked
 * the same `workspaces` row: concurrent lockers of one row make PostgreSQL create a MultiXact and rewrite the
 * row's header (a WAL record) on each create, and the check itself is a query of its own per key. A workspace's
 * id comes from the credential that authenticated the request, and workspaces are never deleted, so the keys
 * guarded against nothing that can happen. The form's key stays: a form is deleted, and its key is the last guard
 * of a create racing that delete (docs/internals/postgres-writes.md).
 */
export const hotParentKeysSchema = `
  ALTER TABLE submissions DROP CONSTRAINT submissions_workspace_id_fkey;
  ALTER TABLE events DROP CONSTRAINT events_workspace_id_fkey;
`;
