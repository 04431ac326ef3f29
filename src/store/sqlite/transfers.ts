import type Database from 'better-sqlite3';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { type TransferRow, toTransfer } from '../rows/transfers.js';
import { transferListExpirySql, transferParameters, transferSql } from '../sql/transfers.js';
import type { TransferAcceptance, TransferStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { moveFormRows, slugTaken } from './forms.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { prepared } from './shared-sql.js';

/** The transfers a workspace sees: those it received, those it sent, or both. */
const sides = {
  incoming: 'to_workspace_id = ?',
  outgoing: 'from_workspace_id = ?',
  both: '(to_workspace_id = ? OR from_workspace_id = ?)',
} as const;

export function sqliteTransfers(db: Database.Database): TransferStore {
  const expire = (id: string, now: string) => prepared(db, transferSql.expire).run({ id, now });
  const row = (id: string) => prepared(db, transferSql.get).get({ id }) as TransferRow | undefined;
  const resolve = (id: string, status: TransferRow['status'], at: string) =>
    prepared(db, transferSql.resolve).get({ id, status, at }) as TransferRow | undefined;
  return {
    async create(transfer, now, audit, outbox) {
      return withOutbox(db, outbox, () => {
        if (!prepared(db, transferSql.formOwned).get({ formId: transfer.form_id, workspaceId: transfer.from_workspace_id }))
          throw new RecordNotFound('form', transfer.form_id);
        prepared(db, transferSql.expireOfForm).run({ formId: transfer.form_id, now });
        const pending = prepared(db, transferSql.pendingOfForm).get({ formId: transfer.form_id }) as { id: string } | undefined;
        if (pending) return { pendingId: pending.id };
        prepared(db, transferSql.insert).run(transferParameters(transfer));
        for (const event of audit) insertAuditEvent(db, event);
        return undefined;
      });
    },
    async get(workspaceId, id, now) {
      expire(id, now);
      const found = row(id);
      if (!found || (found.from_workspace_id !== workspaceId && found.to_workspace_id !== workspaceId)) return undefined;
      return toTransfer(found);
    },
    async list(workspaceId, filter, now, page) {
      const side = filter.direction ?? 'both';
      prepared(db, transferListExpirySql[side]).run({ workspaceId, now });
      const params = side === 'both' ? [workspaceId, workspaceId] : [workspaceId];
      const result = keysetPage<TransferRow>(db, { from: 'form_transfers t', alias: 't', select: 't.*', where: sides[side], params, page });
      return { data: result.data.map(toTransfer), hasMore: result.hasMore };
    },
    async close(id, status, at, audit, outbox) {
      return withOutbox(db, outbox, () => {
        expire(id, at);
        const closed = resolve(id, status, at);
        if (!closed) return undefined;
        for (const event of audit) insertAuditEvent(db, event);
        return toTransfer(closed);
      });
    },
    async accept(id, at, audit, outbox) {
      const accept = () =>
        withOutbox(db, outbox, (): TransferAcceptance => {
          expire(id, at);
          const transfer = row(id)!;
          if (transfer.status !== 'pending') return { outcome: 'not_pending' as const, transfer: toTransfer(transfer) };
          const form = prepared(db, transferSql.formForAccept).get({ formId: transfer.form_id }) as
            | { workspace_id: string; environment: string }
            | undefined;
          // Pending when read just above, in this same single-writer transaction: the update finds it so.
          if (!form || form.workspace_id !== transfer.from_workspace_id || form.environment !== 'live')
            return { outcome: 'form_gone' as const, transfer: toTransfer(resolve(id, 'canceled', at)!) };
          moveFormRows(db, transfer.form_id, transfer.to_workspace_id, at, audit.revokedKey);
          const accepted = resolve(id, 'accepted', at)!;
          for (const event of audit.events) insertAuditEvent(db, event);
          return { outcome: 'accepted' as const, transfer: toTransfer(accepted) };
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
