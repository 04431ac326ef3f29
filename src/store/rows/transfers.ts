import type { Schema } from '../../contract.js';

type FormTransfer = Schema<'FormTransfer'>;

export interface TransferRow {
  id: string;
  form_id: string;
  form_name: string;
  from_workspace_id: string;
  to_workspace_id: string;
  status: FormTransfer['status'];
  created_at: string;
  expires_at: string;
  resolved_at: string | null;
}

export const toTransfer = (row: TransferRow): FormTransfer => ({
  id: row.id,
  object: 'form_transfer',
  form_id: row.form_id,
  form_name: row.form_name,
  from_workspace_id: row.from_workspace_id,
  to_workspace_id: row.to_workspace_id,
  status: row.status,
  created_at: row.created_at,
  expires_at: row.expires_at,
  resolved_at: row.resolved_at,
});
