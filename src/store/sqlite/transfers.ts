import type Database from 'better-sqlite3';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { type TransferRow, toTransfer } from '../rows/transfers.js';
import type { TransferAcceptance, TransferStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { moveFormRows, slugTaken } from './forms.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement } from './statements.js';

/** The transfers a workspace sees: those it received, those it sent, or both. */
const sides = {
  incoming: 'to_workspace_id = ?',
  outgoing: 'from_workspace_id = ?',
  both: '(to_workspace_id = ? OR from_workspace_id = ?)',
} as const;

export function sqliteTransfers(db: Database.Database): TransferStore {
  // Pending transfers past their expiry become expired when next read, at the instant they expired.
  const expire = (where: string, params: readonly unknown[], now: string): void => {
    statement(
      db,
      `UPDATE form_transfers SET status = 'expired', resolved_at = expires_at WHERE status = 'pending' AND expires_at <= ? AND ${where}`,
    ).run(now, ...params);
  };
  const row = (id: string) => statement(db, 'SELECT * FROM form_transfers WHERE id = ?').get(id) as TransferRow | undefined;
  return {
    async create(transfer, now, audit, outbox) {
      return withOutbox(db, outbox, () => {
        // The sender must still hold the form: an accept may have moved it since the caller read it.
        if (!statement(db, 'SELECT 1 FROM forms WHERE id = ? AND workspace_id = ?').get(transfer.form_id, transfer.from_workspace_id))
          throw new RecordNotFound('form', transfer.form_id);
        expire('form_id = ?', [transfer.form_id], now);
        const pending = statement(db, `SELECT id FROM form_transfers WHERE form_id = ? AND status = 'pending'`).get(transfer.form_id) as
          | { id: string }
          | undefined;
        if (pending) return { pendingId: pending.id };
        statement(
          db,
          `INSERT INTO form_transfers (id, form_id, form_name, from_workspace_id, to_workspace_id, status, created_at, expires_at, resolved_at)
             VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, NULL)`,
        ).run(
          transfer.id,
          transfer.form_id,
          transfer.form_name,
          transfer.from_workspace_id,
          transfer.to_workspace_id,
          transfer.created_at,
          transfer.expires_at,
        );
        for (const event of audit) insertAuditEvent(db, event);
        return undefined;
      });
    },
    async get(workspaceId, id, now) {
      expire('id = ?', [id], now);
      const found = row(id);
      if (!found || (found.from_workspace_id !== workspaceId && found.to_workspace_id !== workspaceId)) return undefined;
      return toTransfer(found);
    },
    async list(workspaceId, filter, now, page) {
      const side = filter.direction ?? 'both';
      const params = side === 'both' ? [workspaceId, workspaceId] : [workspaceId];
      expire(sides[side], params, now);
      const result = keysetPage<TransferRow>(db, { from: 'form_transfers t', alias: 't', select: 't.*', where: sides[side], params, page });
      return { data: result.data.map(toTransfer), hasMore: result.hasMore };
    },
    async close(id, status, at, audit, outbox) {
      return withOutbox(db, outbox, () => {
        expire('id = ?', [id], at);
        const changed = statement(db, `UPDATE form_transfers SET status = ?, resolved_at = ? WHERE id = ? AND status = 'pending'`).run(
          status,
          at,
          id,
        ).changes;
        if (changed === 0) return undefined;
        for (const event of audit) insertAuditEvent(db, event);
        return toTransfer(row(id)!);
      });
    },
    async accept(id, at, audit, outbox) {
      const accept = () =>
        withOutbox(db, outbox, (): TransferAcceptance => {
          expire('id = ?', [id], at);
          const transfer = row(id)!;
          if (transfer.status !== 'pending') return { outcome: 'not_pending' as const, transfer: toTransfer(transfer) };
          const form = statement(db, 'SELECT workspace_id, environment FROM forms WHERE id = ?').get(transfer.form_id) as
            | { workspace_id: string; environment: string }
            | undefined;
          if (!form || form.workspace_id !== transfer.from_workspace_id || form.environment !== 'live') {
            statement(db, `UPDATE form_transfers SET status = 'canceled', resolved_at = ? WHERE id = ?`).run(at, id);
            return { outcome: 'form_gone' as const, transfer: toTransfer(row(id)!) };
          }
          moveFormRows(db, transfer.form_id, transfer.to_workspace_id, at, audit.revokedKey);
          statement(db, `UPDATE form_transfers SET status = 'accepted', resolved_at = ? WHERE id = ?`).run(at, id);
          for (const event of audit.events) insertAuditEvent(db, event);
          return { outcome: 'accepted' as const, transfer: toTransfer(row(id)!) };
        });
      try {
        return accept();
      } catch (error) {
        // The destination's own form with this slug wins; the transaction has moved nothing.
        if (slugTaken(error)) throw new StoreConflict('slug_taken');
        throw error;
      }
    },
  };
}
