/**
 * Form transfers between workspaces. A transfer is an offer: the sending workspace asks, the form stays where
 * it is, and only an admin of the destination can accept (the form moves) or decline; the sender may cancel
 * while it is pending. The answer to a request never depends on whether the destination exists, so a
 * transfer cannot be used to probe for workspace ids. Transfers move live forms between real workspaces:
 * test-mode keys may read them but not change them.
 */
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isStoreConflict } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput } from '../../store/types.js';
import { actorOf, assertWorkspaceWide, type Principal } from '../access.js';
import { conflict, forbidden, invalidValue, notFound } from '../errors.js';
import { findVisibleForm } from '../forms/service.js';
import { outboxOf } from '../outbox.js';
import type { Services } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';

type FormTransfer = Schema<'FormTransfer'>;

const transferLifetimeMs = 7 * 24 * 3600 * 1000;

function assertMayTransfer(principal: Principal): void {
  assertWorkspaceWide(principal, 'transfer forms');
  if (principal.environment === 'test') throw forbidden('live_resource', 'Test-mode keys cannot transfer forms; transfers are live-only.');
}

/**
 * The audit event of each side. The other workspace's event names no key of the acting one: its actor is
 * `system` and the reason names the acting workspace.
 */
function auditBoth(
  principal: Principal,
  transfer: FormTransfer,
  type: AuditEventInput['type'],
  reasons: { own: string; other: string },
  at: string,
): AuditEventInput[] {
  const other = transfer.from_workspace_id === principal.workspace.id ? transfer.to_workspace_id : transfer.from_workspace_id;
  const target = { type: 'form' as const, id: transfer.form_id, name: transfer.form_name };
  return [
    { workspaceId: principal.workspace.id, environment: 'live', type, actor: actorOf(principal), target, reason: reasons.own, at },
    { workspaceId: other, environment: 'live', type, actor: { type: 'system', id: null, name: null }, target, reason: reasons.other, at },
  ];
}

/** Only a real destination gets an audit event; the caller's answer is the same either way. */
async function existingWorkspaces(services: Services, events: AuditEventInput[]): Promise<AuditEventInput[]> {
  const known = await Promise.all(events.map(async (event) => (await services.store.workspaces.get(event.workspaceId)) !== undefined));
  return events.filter((_, index) => known[index]);
}

export async function requestTransfer(
  services: Services,
  principal: Principal,
  formId: string,
  toWorkspaceId: string,
): Promise<FormTransfer> {
  assertMayTransfer(principal);
  const { form } = await findVisibleForm(services, principal, formId);
  const from = principal.workspace.id;
  if (toWorkspaceId === from) {
    throw invalidValue([
      { location: 'body', pointer: '/workspace_id', code: 'same_workspace', message: 'the form is already in this workspace' },
    ]);
  }
  const now = services.now();
  const transfer: FormTransfer = {
    id: newId('xfr'),
    object: 'form_transfer',
    form_id: form.id,
    form_name: form.name,
    from_workspace_id: from,
    to_workspace_id: toWorkspaceId,
    status: 'pending',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + transferLifetimeMs).toISOString(),
    resolved_at: null,
  };
  const audit = auditBoth(
    principal,
    transfer,
    'form.transfer_requested',
    { own: `offered to workspace ${toWorkspaceId}`, other: `offered by workspace ${from}` },
    transfer.created_at,
  );
  const existing = await services.store.transfers
    .create(
      transfer,
      transfer.created_at,
      await existingWorkspaces(services, audit),
      outboxOf(services, (pending) => (pending ? undefined : { returns: transfer })),
    )
    .catch(rethrowAsNotFound);
  if (existing) {
    throw conflict('transfer_pending', `Form ${form.id} already has a pending transfer, ${existing.pendingId}; cancel it first.`);
  }
  return transfer;
}

export function listTransfers(
  services: Services,
  principal: Principal,
  filter: { direction?: 'incoming' | 'outgoing' | undefined },
  page: PageRequest,
) {
  assertWorkspaceWide(principal, 'read transfers');
  return services.store.transfers.list(principal.workspace.id, filter, services.now().toISOString(), page);
}

export async function getTransfer(services: Services, principal: Principal, id: string): Promise<FormTransfer> {
  assertWorkspaceWide(principal, 'read transfers');
  const transfer = await services.store.transfers.get(principal.workspace.id, id, services.now().toISOString());
  if (!transfer) throw notFound('transfer', id);
  return transfer;
}

/** A transfer the caller's workspace received (accept, decline) or sent (cancel); the other side gets 404. */
async function findTransfer(services: Services, principal: Principal, id: string, side: 'incoming' | 'outgoing'): Promise<FormTransfer> {
  assertMayTransfer(principal);
  const transfer = await services.store.transfers.get(principal.workspace.id, id, services.now().toISOString());
  const ours = side === 'incoming' ? transfer?.to_workspace_id : transfer?.from_workspace_id;
  if (!transfer || ours !== principal.workspace.id) throw notFound(`${side} transfer`, id);
  return transfer;
}

const notPending = (transfer: FormTransfer) =>
  conflict('transfer_not_pending', `Transfer ${transfer.id} is ${transfer.status}, not pending.`);

export async function acceptTransfer(services: Services, principal: Principal, id: string): Promise<FormTransfer> {
  const transfer = await findTransfer(services, principal, id, 'incoming');
  const at = services.now().toISOString();
  const from = transfer.from_workspace_id;
  const accepted = services.store.transfers.accept(
    id,
    at,
    {
      events: auditBoth(
        principal,
        transfer,
        'form.transferred',
        { own: `accepted from workspace ${from}`, other: `transferred to workspace ${principal.workspace.id}` },
        at,
      ),
      revokedKey: (key) => ({
        workspaceId: from,
        environment: key.environment,
        type: 'api_key.revoked_by_transfer',
        actor: { type: 'system', id: null, name: null },
        target: { type: 'api_key', id: key.id, name: key.name },
        reason: `form ${transfer.form_id} was transferred to workspace ${principal.workspace.id}`,
        at,
      }),
    },
    outboxOf(services, (result) => (result.outcome === 'accepted' ? { returns: result.transfer } : undefined)),
  );
  // The destination's own form with this slug wins; the store has moved nothing.
  const { outcome, transfer: after } = await accepted.catch((error: unknown) => {
    if (isStoreConflict(error, 'slug_taken')) {
      throw conflict(
        'slug_taken',
        'A form of this workspace already has the slug of the incoming form; change that slug, then accept again.',
      );
    }
    throw error;
  });
  if (outcome === 'form_gone') {
    throw conflict('transfer_not_pending', `Form ${transfer.form_id} was deleted or moved since; transfer ${id} is canceled.`);
  }
  if (outcome === 'not_pending') throw notPending(after);
  return after;
}

async function closeTransfer(services: Services, principal: Principal, id: string, status: 'declined' | 'canceled'): Promise<FormTransfer> {
  const transfer = await findTransfer(services, principal, id, status === 'declined' ? 'incoming' : 'outgoing');
  if (transfer.status !== 'pending') throw notPending(transfer);
  const at = services.now().toISOString();
  const type = status === 'declined' ? 'form.transfer_declined' : 'form.transfer_canceled';
  const verb = status === 'declined' ? 'declined' : 'canceled';
  const audit = auditBoth(principal, transfer, type, { own: `${verb} here`, other: `${verb} by workspace ${principal.workspace.id}` }, at);
  const closed = await services.store.transfers.close(
    id,
    status,
    at,
    await existingWorkspaces(services, audit),
    outboxOf(services, (result) => (result ? { returns: result } : undefined)),
  );
  if (!closed) throw notPending((await services.store.transfers.get(principal.workspace.id, id, at)) ?? transfer);
  return closed;
}

export const declineTransfer = (services: Services, principal: Principal, id: string) => closeTransfer(services, principal, id, 'declined');
export const cancelTransfer = (services: Services, principal: Principal, id: string) => closeTransfer(services, principal, id, 'canceled');
