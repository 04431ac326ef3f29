import type pg from 'pg';
import { RecordNotFound } from '../errors.js';
import { type TransferRow, toTransfer } from '../rows/transfers.js';
import type { TransferAcceptance, TransferStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { one, Parameters, type Queryable, run } from './database.js';
import { moveFormRows, slugChecked } from './forms.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

/** The transfers a workspace sees: those it received, those it sent, or both (`$w`: its id). */
const sides = {
  incoming: (w: string) => `t.to_workspace_id = ${w}`,
  outgoing: (w: string) => `t.from_workspace_id = ${w}`,
  both: (w: string) => `(t.to_workspace_id = ${w} OR t.from_workspace_id = ${w})`,
} as const;

// Pending transfers past their expiry become expired when next read, at the instant they expired.
const expire = (db: Queryable, where: string, params: readonly unknown[], now: string) =>
  run(
    db,
    `UPDATE form_transfers t SET status = 'expired', resolved_at = expires_at WHERE status = 'pending' AND expires_at <= $1 AND ${where}`,
    [now, ...params],
  );

const rowOf = (db: Queryable, id: string, lock = '') => one<TransferRow>(db, `SELECT * FROM form_transfers WHERE id = $1 ${lock}`, [id]);

export function postgresTransfers(pool: pg.Pool): TransferStore {
  return {
    async create(transfer, now, audit, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        // The form's row lock makes requests to transfer one form take turns, so the second sees the first pending;
        // the sender must still hold the form under it (an accept may have moved it since the caller read it).
        const owned = await one(client, 'SELECT 1 FROM forms WHERE id = $1 AND workspace_id = $2 FOR NO KEY UPDATE', [
          transfer.form_id,
          transfer.from_workspace_id,
        ]);
        if (!owned) throw new RecordNotFound('form', transfer.form_id);
        await expire(client, 't.form_id = $2', [transfer.form_id], now);
        const pending = await one<{ id: string }>(client, `SELECT id FROM form_transfers WHERE form_id = $1 AND status = 'pending'`, [
          transfer.form_id,
        ]);
        if (pending) return { pendingId: pending.id };
        await run(
          client,
          `INSERT INTO form_transfers (id, form_id, form_name, from_workspace_id, to_workspace_id, status, created_at, expires_at, resolved_at)
           VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, NULL)`,
          [
            transfer.id,
            transfer.form_id,
            transfer.form_name,
            transfer.from_workspace_id,
            transfer.to_workspace_id,
            transfer.created_at,
            transfer.expires_at,
          ],
        );
        for (const event of audit) await insertAuditEvent(client, event);
        return undefined;
      });
    },
    async get(workspaceId, id, now) {
      await expire(pool, 't.id = $2', [id], now);
      const found = await rowOf(pool, id);
      if (!found || (found.from_workspace_id !== workspaceId && found.to_workspace_id !== workspaceId)) return undefined;
      return toTransfer(found);
    },
    async list(workspaceId, filter, now, page) {
      const side = sides[filter.direction ?? 'both'];
      await expire(pool, side('$2'), [workspaceId], now);
      const params = new Parameters();
      const result = await keysetPage<TransferRow>(pool, {
        from: 'form_transfers t',
        alias: 't',
        select: 't.*',
        where: side(params.add(workspaceId)),
        params,
        page,
      });
      return { data: result.data.map(toTransfer), hasMore: result.hasMore };
    },
    async close(id, status, at, audit, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        await expire(client, 't.id = $2', [id], at);
        const closed = await one<TransferRow>(
          client,
          `UPDATE form_transfers SET status = $1, resolved_at = $2 WHERE id = $3 AND status = 'pending' RETURNING *`,
          [status, at, id],
        );
        if (!closed) return undefined;
        for (const event of audit) await insertAuditEvent(client, event);
        return toTransfer(closed);
      });
    },
    async accept(id, at, audit, outbox) {
      return slugChecked(
        withOutbox(pool, outbox, async (client): Promise<TransferAcceptance> => {
          // The form's row first, then the transfer's: the order of every writer of the form (a delete locks the form,
          // then cancels its pending transfer), so the two queue instead of deadlocking. Held until the commit, the
          // form's lock orders the accept with the form's other writers, each of which checks ownership under it
          // (forms.ts, submissions.ts, rescore-jobs.ts): a writer that comes later finds the form in its new workspace.
          const { form_id: formId } = (await rowOf(client, id))!;
          const form = await one<{ workspace_id: string; environment: string }>(
            client,
            'SELECT workspace_id, environment FROM forms WHERE id = $1 FOR NO KEY UPDATE',
            [formId],
          );
          await expire(client, 't.id = $2', [id], at);
          // Locked: of an accept racing a decline or a cancel, the second sees the transfer answered.
          const transfer = (await rowOf(client, id, 'FOR UPDATE'))!;
          if (transfer.status !== 'pending') return { outcome: 'not_pending', transfer: toTransfer(transfer) };
          if (!form || form.workspace_id !== transfer.from_workspace_id || form.environment !== 'live') {
            const canceled = await one<TransferRow>(
              client,
              `UPDATE form_transfers SET status = 'canceled', resolved_at = $1 WHERE id = $2 RETURNING *`,
              [at, id],
            );
            return { outcome: 'form_gone', transfer: toTransfer(canceled!) };
          }
          await moveFormRows(client, transfer.form_id, transfer.to_workspace_id, at, audit.revokedKey);
          const accepted = await one<TransferRow>(
            client,
            `UPDATE form_transfers SET status = 'accepted', resolved_at = $1 WHERE id = $2 RETURNING *`,
            [at, id],
          );
          for (const event of audit.events) await insertAuditEvent(client, event);
          return { outcome: 'accepted', transfer: toTransfer(accepted!) };
        }),
      );
    },
  };
}
