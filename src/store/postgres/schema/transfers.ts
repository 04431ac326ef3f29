/**
 * Form transfers: a request from one workspace to move a form to another, answered by the destination. At
 * most one transfer per form is pending (a partial unique index), and each workspace lists the transfers it
 * sent and received, hence one keyset index per side. `to_workspace_id` is not a foreign key: a transfer to
 * an id that names no workspace is stored like any other, so the sender learns nothing from the answer.
 */
export const transfersSchema = `
  CREATE TABLE form_transfers (
    id TEXT PRIMARY KEY,
    form_id TEXT NOT NULL,
    form_name TEXT NOT NULL,
    from_workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    to_workspace_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending','accepted','declined','canceled','expired')),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    resolved_at TIMESTAMPTZ
  );
  CREATE INDEX form_transfers_outgoing ON form_transfers (from_workspace_id, created_at DESC, id DESC);
  CREATE INDEX form_transfers_incoming ON form_transfers (to_workspace_id, created_at DESC, id DESC);
  CREATE UNIQUE INDEX form_transfers_pending_form ON form_transfers (form_id) WHERE status = 'pending';
  `;
