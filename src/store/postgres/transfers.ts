import type pg from 'pg';
import { RecordNotFound } from '../errors.js';
import { type TransferRow, toTransfer } from '../rows/transfers.js';
import { transferListExpirySql, transferParameters, transferSql } from '../sql/transfers.js';
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

const expire = (db: Queryable, id: string, now: string) => run(db, ...transferSql.expire.bindPostgres({ id, now }));

const resolve = (db: Queryable, id: string, status: TransferRow['status'], at: string) =>
  one<TransferRow>(db, ...transferSql.resolve.bindPostgres({ id, status, at }));

export function postgresTransfers(pool: pg.Pool): TransferStore {
  return {
    async create(transfer, now, audit, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        const owned = await one(
          client,
          ...transferSql.formOwned.bindPostgres({ formId: transfer.form_id, workspaceId: transfer.from_workspace_id }),
        );
        if (!owned) throw new RecordNotFound('form', transfer.form_id);
        await run(client, ...transferSql.expireOfForm.bindPostgres({ formId: transfer.form_id, now }));
        const pending = await one<{ id: string }>(client, ...transferSql.pendingOfForm.bindPostgres({ formId: transfer.form_id }));
        if (pending) return { pendingId: pending.id };
        await run(client, ...transferSql.insert.bindPostgres(transferParameters(transfer)));
        for (const event of audit) await insertAuditEvent(client, event);
        return undefined;
      });
    },
    async get(workspaceId, id, now) {
      await expire(pool, id, now);
      const found = await one<TransferRow>(pool, ...transferSql.get.bindPostgres({ id }));
      if (!found || (found.from_workspace_id !== workspaceId && found.to_workspace_id !== workspaceId)) return undefined;
      return toTransfer(found);
    },
    async list(workspaceId, filter, now, page) {
      const side = filter.direction ?? 'both';
      await run(pool, ...transferListExpirySql[side].bindPostgres({ workspaceId, now }));
      const params = new Parameters();
      const result = await keysetPage<TransferRow>(pool, {
        from: 'form_transfers t',
        alias: 't',
        select: 't.*',
        where: sides[side](params.add(workspaceId)),
        params,
        page,
      });
      return { data: result.data.map(toTransfer), hasMore: result.hasMore };
    },
    async close(id, status, at, audit, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        await expire(client, id, at);
        const closed = await resolve(client, id, status, at);
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
          const { form_id: formId } = (await one<TransferRow>(client, ...transferSql.get.bindPostgres({ id })))!;
          const form = await one<{ workspace_id: string; environment: string }>(
            client,
            ...transferSql.formForAccept.bindPostgres({ formId }),
          );
          await expire(client, id, at);
          const transfer = (await one<TransferRow>(client, ...transferSql.getForAnswer.bindPostgres({ id })))!;
          if (transfer.status !== 'pending') return { outcome: 'not_pending', transfer: toTransfer(transfer) };
          // Still pending under the transfer's row lock: the update finds it so.
          if (!form || form.workspace_id !== transfer.from_workspace_id || form.environment !== 'live')
            return { outcome: 'form_gone', transfer: toTransfer((await resolve(client, id, 'canceled', at))!) };
          await moveFormRows(client, transfer.form_id, transfer.to_workspace_id, at, audit.revokedKey);
          const accepted = (await resolve(client, id, 'accepted', at))!;
          for (const event of audit.events) await insertAuditEvent(client, event);
          return { outcome: 'accepted', transfer: toTransfer(accepted) };
        }),
      );
    },
  };
}
